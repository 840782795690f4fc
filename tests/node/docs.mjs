// Opens the interactive API reference in headless Chromium: `node docs.mjs <base url>` loads
// <base>/docs with puppeteer-core, waits until Swagger UI has drawn the operations of
// /openapi.json (at most 30 s), and prints what a reader sees as JSON: the title, the
// number of operations and tags, whether a given operation's summary is shown, and any
// console errors or blocked requests (a Content-Security-Policy refusal shows there).
import puppeteer from 'puppeteer-core';

const base = process.argv[2];
if (!base) {
  console.error('usage: node docs.mjs <base url>');
  process.exit(2);
}
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
let result;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.url()}: ${r.status()}`); });
  await page.goto(`${base}/docs`, { waitUntil: 'networkidle0', timeout: 30000 });
  await page.waitForSelector('.opblock', { timeout: 30000 });
  result = await page.evaluate(() => ({
    title: document.querySelector('.info .title')?.textContent ?? null,
    operations: document.querySelectorAll('.opblock').length,
    tags: document.querySelectorAll('.opblock-tag').length,
    summaries: Array.from(document.querySelectorAll('.opblock-summary-description')).map((e) => e.textContent),
  }));
  result.errors = errors;
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
