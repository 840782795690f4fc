// Plays an exported VAST URL in headless Chromium: `node play.mjs <vast url>` serves the
// player page (player/index.html) and the browser build of @dailymotion/vast-client on a
// loopback port, opens the page with puppeteer-core in Debian's `chromium` (CHROMIUM names
// another binary), waits until the ad ended (or failed, at most 60 s), lets the tracking
// requests finish and prints the page's result as JSON. Exits non-zero on a player error.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, personPage } from './browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const vastUrl = process.argv[2];
if (!vastUrl) {
  console.error('usage: node play.mjs <vast url>');
  process.exit(2);
}
const files = {
  '/': ['text/html', path.join(here, 'player', 'index.html')],
  '/vast-client.js': ['text/javascript', path.join(here, 'node_modules/@dailymotion/vast-client/dist/vast-client.min.js')],
};
const server = http.createServer((req, res) => {
  const f = files[new URL(req.url, 'http://x').pathname];
  if (!f) { res.writeHead(req.url === '/favicon.ico' ? 204 : 404); res.end(); return; }
  res.writeHead(200, { 'content-type': f[0] });
  fs.createReadStream(f[1]).pipe(res);
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const page_url = `http://127.0.0.1:${server.address().port}/?vast=${encodeURIComponent(vastUrl)}`;

const browser = await launch();
let result;
try {
  const page = await personPage(browser);
  const log = [];
  page.on('console', (m) => log.push(m.text()));
  await page.goto(page_url);
  await page.waitForFunction('window.result !== undefined', { timeout: 60000, polling: 100 });
  result = await page.evaluate('window.result');
  // The last tracking requests (complete) leave before the browser closes.
  await page.waitForNetworkIdle({ idleTime: 300, timeout: 10000 }).catch(() => {});
  if (log.length) result.console = log;
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(result));
process.exit(result && result.ended ? 0 : 1);
