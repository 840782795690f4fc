// Opens a preview's player page (served by the service itself, under its own CSP) in
// headless Chromium: `node preview.mjs <player url>`, waits until the page's player ends
// (or fails, at most 60 s), lets the tracking requests finish and prints the page's result
// with the CSP violations the page reported. Exits non-zero unless the ad played to the end.
import { launch, personPage } from './browser.mjs';

const url = process.argv[2];
if (!url) {
  console.error('usage: node preview.mjs <player url>');
  process.exit(2);
}
const browser = await launch();
let result;
try {
  const page = await personPage(browser);
  const log = [];
  page.on('console', (m) => log.push(m.text()));
  const res = await page.goto(url);
  await page.waitForFunction('window.result !== undefined', { timeout: 60000, polling: 100 });
  result = await page.evaluate('window.result');
  await page.waitForNetworkIdle({ idleTime: 300, timeout: 10000 }).catch(() => {});
  result.csp = res.headers()['content-security-policy'] || null;
  result.status = res.status();
  result.title = await page.evaluate(() => document.getElementById('t').textContent);
  result.violations = log.filter((l) => l.includes('Content Security Policy'));
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
process.exit(result && result.ended ? 0 : 1);
