// The console as people use it, in headless Chromium (tests/api/console_browser.rs runs it
// on both stores): `node console.mjs <base url>` with TRAFFICKER, VIEWER, PASSWORD (VIEWER_PASSWORD
// when the viewer's differs) and CLIP
// (a small video file) in the environment, SCREENSHOTS (a directory) to save the pages as
// PNGs. Every control is found by its accessible name; axe-core checks every page visited,
// and each page's weight and origins are recorded. Prints the result as JSON; exits 1 with
// the step that failed.
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, personPage } from './browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const base = process.argv[2];
const { TRAFFICKER, VIEWER, PASSWORD, CLIP, SCREENSHOTS } = process.env;
const VIEWER_PASSWORD = process.env.VIEWER_PASSWORD || PASSWORD;
// An ADMIN's steps run when ADMIN names one (users, API keys, demand).
const { ADMIN } = process.env;
const ADMIN_PASSWORD = process.env.ADMIN_PASSWORD || PASSWORD;
// The server's clock (seconds since the epoch): the tests' clock stands still, and the
// two-factor codes are those of its time.
const SERVER_TIME = Number(process.env.SERVER_TIME || Math.floor(Date.now() / 1000));
const axeSource = fs.readFileSync(path.join(here, 'node_modules/axe-core/axe.min.js'), 'utf8');
const origin = new URL(base).origin;
const result = { pages: [], steps: [], foreign: [], dialogs: [] };

function check(cond, what) {
  if (!cond) throw new Error(what);
}

// The code an authenticator app shows for a base32 secret at `at` (RFC 6238: HMAC-SHA-1,
// 30-second steps, 6 digits).
function totp(secret, at) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30)));
  const h = crypto.createHmac('sha1', key).update(counter).digest();
  const o = h[h.length - 1] & 15;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1000000).padStart(6, '0');
}

// A control by its accessible name (and role).
function named(page, name, role) {
  const sel = role ? `::-p-aria([name="${name}"][role="${role}"])` : `::-p-aria(${name})`;
  return page.waitForSelector(sel, { timeout: 30000 });
}

async function has(page, name, role) {
  const sel = role ? `::-p-aria([name="${name}"][role="${role}"])` : `::-p-aria(${name})`;
  return (await page.$(sel)) !== null;
}

async function fill(page, name, value) {
  const el = await named(page, name);
  await el.click({ clickCount: 3 });
  await el.evaluate((e) => { e.value = ''; });
  await el.type(value);
}

// Date and time fields take their value as the picker would set it.
async function setValue(page, name, value) {
  const el = await named(page, name);
  await el.evaluate((e, v) => { e.value = v; e.dispatchEvent(new Event('change', { bubbles: true })); }, value);
}

async function clickAndWait(page, name, role = 'button') {
  const el = await named(page, name, role);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load', timeout: 60000 }), el.click()]);
}

async function heading(page) {
  return page.$eval('h1', (h) => h.textContent.trim());
}

// Records the page's weight (bytes over the wire, media excluded), checks it with axe-core,
// and saves a screenshot when asked.
async function visited(page, name, weights) {
  const bytes = weights.splice(0).reduce((n, w) => n + w, 0);
  await page.evaluate(axeSource);
  const axe = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length, target: v.nodes[0] && v.nodes[0].target }));
  });
  result.pages.push({ name, path: new URL(page.url()).pathname, bytes, violations: axe });
  if (SCREENSHOTS) {
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }
}

// Counts what each page loads, and notes anything from another origin.
function watch(page) {
  const weights = [];
  // Each page is weighed as a first visit (nothing cached), from its document on.
  page.setCacheEnabled(false);
  page.on('request', (req) => {
    if (req.resourceType() === 'document' && req.frame() === page.mainFrame()) weights.splice(0);
  });
  page.on('response', async (res) => {
    const url = res.url();
    if (url.startsWith('data:')) return;
    if (new URL(url).origin !== origin) result.foreign.push(url);
    const type = res.request().resourceType();
    if (type === 'media' || type === 'fetch' || type === 'xhr') return;
    try {
      const len = Number(res.headers()['content-length']) || (await res.buffer()).length;
      weights.push(len);
    } catch { /* a redirect has no body */ }
  });
  page.on('dialog', async (d) => { result.dialogs.push(d.message()); await d.dismiss(); });
  return weights;
}

async function signIn(page, weights, email, shot, password = PASSWORD) {
  await page.goto(`${base}/console/`, { waitUntil: 'load' });
  check(new URL(page.url()).pathname === '/console/sign-in', 'a signed-out visit goes to the sign-in page');
  if (shot) await visited(page, 'sign-in', weights);
  await fill(page, 'Email', email);
  await fill(page, 'Password', password);
  await clickAndWait(page, 'Sign in');
  weights.splice(0);
}

function step(s) {
  result.steps.push(s);
}

// 11-14. An ADMIN: makes a VIEWER, who signs in, sees no write control and cannot reach
// Users, and sets up two-factor sign-in and signs in with a code; makes an API key, shown once, which works and is refused within 5 s of Revoke;
// adds a demand partner whose auth header never reaches a page's HTML.
async function administration() {
  const ctx = await browser.createBrowserContext();
  const page = await ctx.newPage();
  const weights = watch(page);
  await signIn(page, weights, ADMIN, false, ADMIN_PASSWORD);
  await clickAndWait(page, 'Users', 'link');
  await visited(page, 'users', weights);
  await clickAndWait(page, 'New user');
  const email = `viewer-${Date.now()}@a.example`;
  await fill(page, 'Email', email);
  await fill(page, 'Name', 'Val Viewer');
  await page.select('#role', 'VIEWER');
  await fill(page, 'Password', 'a viewer password 42');
  await visited(page, 'user-new', weights);
  await clickAndWait(page, 'Save');
  check((await page.evaluate(() => document.body.innerText)).includes(email), 'the new user is listed');
  const vctx = await browser.createBrowserContext();
  const vpage = await vctx.newPage();
  const vweights = watch(vpage);
  await signIn(vpage, vweights, email, false, 'a viewer password 42');
  await vpage.goto(`${base}/console/campaigns`, { waitUntil: 'load' });
  check(!(await has(vpage, 'New campaign')) && !(await has(vpage, 'Users', 'link')), 'the new VIEWER sees no write control and no Users link');
  const users = await vpage.goto(`${base}/console/users`, { waitUntil: 'load' });
  check(users.status() === 403, `the VIEWER cannot reach Users (got ${users.status()})`);
  step('an ADMIN made a VIEWER, who signed in without write controls or Users');
  // 14. The VIEWER sets up two-factor sign-in on their account page (the secret as text and
  // as a QR code), confirms it with a code, and signs in again with the next code.
  await vpage.goto(`${base}/console/campaigns`, { waitUntil: 'load' });
  await clickAndWait(vpage, 'Your account', 'link');
  await visited(vpage, 'account', vweights);
  await clickAndWait(vpage, 'Set up two-factor');
  const totpSecret = await vpage.$eval('#secret', (e) => e.textContent.trim());
  check(await has(vpage, 'QR code of the secret'), 'the QR code is an image named for what it holds');
  await visited(vpage, 'two-factor-set-up', vweights);
  await fill(vpage, 'Code', totp(totpSecret, SERVER_TIME));
  await clickAndWait(vpage, 'Turn on two-factor');
  const codes = await vpage.$$eval('ol.recovery li', (l) => l.length);
  check(codes === 10, `ten recovery codes are shown (got ${codes})`);
  await visited(vpage, 'two-factor-on', vweights);
  await clickAndWait(vpage, 'Sign out');
  await signIn(vpage, vweights, email, false, 'a viewer password 42');
  check(new URL(vpage.url()).pathname === '/console/sign-in/code', `the password leads to the code step (at ${vpage.url()})`);
  vweights.splice(0);
  await vpage.reload({ waitUntil: 'load' });
  await visited(vpage, 'sign-in-code', vweights);
  await fill(vpage, 'Code', totp(totpSecret, SERVER_TIME + 30));
  await clickAndWait(vpage, 'Verify');
  check(new URL(vpage.url()).pathname === '/console/', `signed in with the code (at ${vpage.url()})`);
  await vctx.close();
  step('the VIEWER set up two-factor sign-in and signed in with a code');
  await clickAndWait(page, 'API keys', 'link');
  await visited(page, 'api-keys', weights);
  await clickAndWait(page, 'New key');
  const keyName = `Reporting ${Date.now()}`;
  await fill(page, 'Name', keyName);
  await page.select('#role', 'VIEWER');
  await clickAndWait(page, 'Create');
  const key = await page.$eval('#new-key', (e) => e.textContent.trim());
  const call = async () => (await fetch(`${base}/v3/campaigns`, { headers: { 'x-o-api-key': key } })).status;
  check((await call()) === 200, 'the new key works');
  await page.goto(`${base}/console/api-keys`, { waitUntil: 'load' });
  weights.splice(0);
  check(!(await page.content()).includes(key), 'the key is shown once');
  const row = await page.evaluateHandle((name) => [...document.querySelectorAll('tbody tr')].find((tr) => tr.cells[0].textContent === name), keyName);
  const revoke = await row.asElement().$('button');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), revoke.click()]);
  const revoked = Date.now();
  let refused = false;
  while (!refused && Date.now() - revoked < 5000) {
    refused = (await call()) === 401;
    if (!refused) await new Promise((r) => setTimeout(r, 100));
  }
  check(refused, 'the key is refused within 5 s of Revoke');
  step(`an API key shown once, used, refused ${Date.now() - revoked} ms after Revoke`);
  await clickAndWait(page, 'Demand', 'link');
  await visited(page, 'demand', weights);
  await clickAndWait(page, 'New demand partner', 'link');
  const secret = `Bearer secret-${Date.now()}`;
  await fill(page, 'Name', 'Acme DSP');
  await fill(page, 'Endpoint', 'http://127.0.0.1:9/openrtb2');
  await fill(page, 'Header name', 'Authorization');
  await fill(page, 'Header value', secret);
  await visited(page, 'demand-partner-new', weights);
  await clickAndWait(page, 'Save');
  check(!(await page.content()).includes(secret), 'the list does not carry the auth header');
  await clickAndWait(page, 'Acme DSP', 'link');
  const html = await page.content();
  check(!html.includes(secret) && html.includes('set'), 'the partner page says set, never the value');
  await visited(page, 'demand-partner', weights);
  step('a demand partner whose auth header never reached the page');
  await ctx.close();
}

const browser = await launch();
// A page on another origin whose form posts to the console (a forged request).
let forgedTarget = '';
const evil = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(`<!doctype html><html lang="en"><title>evil</title><body><form id="f" method="post" action="${forgedTarget}">
    <input name="name" value="Hacked"><input name="type" value="IMPRESSION"><input name="start" value="2030-01-01T00:00">
    <input name="value" value="1"></form><script>document.getElementById('f').submit()</script></body></html>`);
});
await new Promise((ok) => evil.listen(0, '127.0.0.1', ok));
let failed = null;
try {
  const page = await personPage(browser);
  await page.setViewport({ width: 1100, height: 800 });
  if (SCREENSHOTS) fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const weights = watch(page);
  const xss = '<img src=x onerror=alert(1)>';
  // 1. Sign in and see the campaigns.
  await signIn(page, weights, TRAFFICKER, true);
  await clickAndWait(page, 'Campaigns', 'link');
  check((await heading(page)) === 'Campaigns', 'the Campaigns page');
  step('signed in, campaigns listed');
  // 2. A campaign (named like markup: shown as text) and its goal.
  await clickAndWait(page, 'New campaign', 'link');
  await visited(page, 'campaign-new', weights);
  await fill(page, 'Name', xss);
  await fill(page, 'New advertiser', 'Acme Outdoor');
  await clickAndWait(page, 'Save');
  check((await heading(page)) === xss, 'the campaign named like markup is its heading, as text');
  const campaignUrl = page.url();
  await clickAndWait(page, 'New goal', 'link');
  await fill(page, 'Name', 'Morning');
  await setValue(page, 'Start', '2030-01-01T06:00');
  await setValue(page, 'End', '2030-01-31T23:00');
  await fill(page, 'Goal value', '10000');
  await fill(page, 'Priority', '4');
  await clickAndWait(page, 'Save');
  check((await heading(page)) === 'Morning', 'the goal page');
  const goalUrl = page.url();
  step('campaign and goal created');
  // 3. An ad with a video from disk: the upload's progress, then the transcode's, then the preview.
  await clickAndWait(page, 'New ad', 'link');
  await visited(page, 'ad-new', weights);
  await fill(page, 'Name', 'Spot 15s');
  // Chromium's accessibility query does not reach a file input: it is found by its label.
  const file = await page.evaluateHandle(() => {
    const label = [...document.querySelectorAll('label')].find((l) => l.textContent.trim() === 'Video');
    return label && document.getElementById(label.htmlFor);
  });
  await file.uploadFile(CLIP);
  await fill(page, 'Click-through URL', 'https://example.com/buy');
  await clickAndWait(page, 'Save');
  check((await heading(page)) === 'Spot 15s', 'the ad page after the upload');
  // The page polls the transcode and reloads itself when it is done: read it between reloads.
  let media = '';
  for (let i = 0; i < 240 && !/Playable|cannot be used/.test(media); i += 1) {
    await new Promise((ok) => setTimeout(ok, 500));
    media = await page.evaluate(() => (document.querySelector('video') ? document.body.innerText : '')).catch(() => '');
  }
  await page.waitForNetworkIdle({ idleTime: 300, timeout: 10000 }).catch(() => {});
  check(/Playable/.test(media), `the video became playable: ${media.slice(0, 300)}`);
  await page.waitForSelector('video', { timeout: 10000 });
  const played = await page.$eval('video', (v) => new Promise((ok) => {
    v.muted = true;
    v.addEventListener('timeupdate', () => { if (v.currentTime > 0.3) ok({ played: true, width: v.videoWidth }); });
    v.addEventListener('error', () => ok({ played: false, error: v.error && v.error.code }));
    v.play().catch((e) => ok({ played: false, error: String(e) }));
    setTimeout(() => ok({ played: false, error: 'timeout' }), 20000);
  }));
  check(played.played, `the preview plays: ${JSON.stringify(played)}`);
  const vastUrl = await page.$eval('#vast-url', (c) => c.textContent.trim());
  check(vastUrl.startsWith('http') && vastUrl.includes('/v1/adrequest'), `the VAST URL is shown: ${vastUrl}`);
  check(await has(page, 'Copy VAST URL', 'button'), 'the VAST URL has a copy button');
  await visited(page, 'ad', weights);
  step('ad uploaded, transcoded and previewed');
  // Targeting: read in words; the first category as the only one.
  await page.goto(goalUrl, { waitUntil: 'load' });
  await clickAndWait(page, 'Edit targeting', 'link');
  await visited(page, 'targeting', weights);
  const only = await page.waitForSelector('input[name=include]');
  const category = await only.evaluate((e) => e.getAttribute('aria-label').replace(/^Only /, ''));
  await (await named(page, `Only ${category}`, 'checkbox')).click();
  await clickAndWait(page, 'Save categories');
  const said = await page.evaluate(() => document.body.innerText);
  check(said.includes(`Category is ${category}`), `the goal's targeting reads in words: ${said.slice(0, 400)}`);
  step('targeting set and read in words');
  // 4. Change the goal's end; see the change with the person's email; revert it.
  await page.goto(goalUrl, { waitUntil: 'load' });
  await visited(page, 'goal', weights);
  await setValue(page, 'End', '2030-02-28T23:00');
  await clickAndWait(page, 'Save');
  check(/Saved\./.test(await page.evaluate(() => document.body.innerText)), 'the goal saved');
  await clickAndWait(page, 'Changes', 'link');
  const text = await page.evaluate(() => document.body.innerText);
  check(text.includes(TRAFFICKER), 'the change names who made it');
  await visited(page, 'changes', weights);
  const revert = await named(page, 'Revert', 'button');
  const newest = await page.$eval('tbody tr', (tr) => tr.innerText);
  check(newest.includes('goal') && newest.includes('UPDATE') && newest.includes('end'), `the newest change is the goal's end: ${newest}`);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), revert.click()]);
  check(/Reverted/.test(await page.evaluate(() => document.body.innerText)), 'reverted');
  await page.goto(goalUrl, { waitUntil: 'load' });
  weights.splice(0);
  const end = await (await named(page, 'End')).evaluate((e) => e.value);
  check(end === '2030-01-31T23:00', `the end is back: ${end}`);
  step('goal end changed, seen in Changes with the email, reverted');
  // 4b. A running goal (its start is the moment it was made, with seconds): its end changed.
  if (process.env.RUNNING_GOAL) {
    await page.goto(`${base}/console/goals/${process.env.RUNNING_GOAL}`, { waitUntil: 'load' });
    weights.splice(0);
    await setValue(page, 'End', process.env.RUNNING_END);
    await clickAndWait(page, 'Save');
    const saved = await page.evaluate(() => document.body.innerText);
    check(/Saved\./.test(saved), `the running goal's end saved: ${saved.slice(0, 600)}`);
    // A refused form lists its errors at the top, each linked to its field, and focus
    // moves there.
    await setValue(page, 'End', '2001-01-01T00:00');
    await clickAndWait(page, 'Save');
    const summary = await page.evaluate(() => {
      const box = document.getElementById('problems');
      return box && { focused: document.activeElement === box, links: [...box.querySelectorAll('a')].map((a) => a.getAttribute('href')) };
    });
    check(summary && summary.focused && summary.links.includes('#end'), `the summary is focused and links to End: ${JSON.stringify(summary)}`);
    await (await named(page, 'End: end must be after start', 'link')).click();
    check(await page.evaluate(() => document.activeElement && document.activeElement.id === 'end'), 'the summary link moves to End');
    await visited(page, 'goal-refused', weights);
    step('a running goal\'s end changed, its start kept; a refused form\'s summary links to its fields');
  }
  // 5. A bulk edit that fails on one goal changes none.
  await page.goto(campaignUrl, { waitUntil: 'load' });
  await clickAndWait(page, 'New goal', 'link');
  await fill(page, 'Name', 'Late');
  await setValue(page, 'Start', '2030-03-01T00:00');
  await setValue(page, 'End', '2030-03-31T00:00');
  await fill(page, 'Goal value', '5000');
  await clickAndWait(page, 'Save');
  await page.goto(campaignUrl, { waitUntil: 'load' });
  await visited(page, 'campaign', weights);
  for (const name of ['Select Morning', 'Select Late']) {
    const box = await named(page, name, 'checkbox');
    await box.click();
    check(await box.evaluate((e) => e.checked), `${name} is checked`);
  }
  await setValue(page, 'New end', '2030-02-15T00:00');
  await clickAndWait(page, 'Apply to selected goals');
  const refused = await page.evaluate(() => document.body.innerText);
  check(refused.includes('Goal “Late”') && !refused.includes('Goal “Morning”'), `the failing goal is named: ${refused.slice(0, 600)}`);
  check(refused.includes('2030-01-31 23:00'), 'Morning kept its end');
  await visited(page, 'bulk-refused', weights);
  step('bulk edit refused on one goal, none changed');
  // 6. A form posted from another origin changes nothing.
  forgedTarget = goalUrl;
  await page.goto(`http://127.0.0.1:${evil.address().port}/`, { waitUntil: 'load' });
  await page.waitForNavigation({ waitUntil: 'load', timeout: 15000 }).catch(() => {});
  const forged = await page.evaluate(() => document.body.innerText);
  check(/not sent from this site/.test(forged), `the forged post is refused: ${forged.slice(0, 200)}`);
  await page.goto(goalUrl, { waitUntil: 'load' });
  weights.splice(0);
  check((await heading(page)) === 'Morning', 'the forged post changed nothing');
  result.foreign = result.foreign.filter((u) => !u.startsWith(`http://127.0.0.1:${evil.address().port}/`));
  step('cross-origin form refused');
  // 10. Part 2: what needs attention, a report whose CSV has its table's rows, a goal's
  // pacing by day, a proposed goal's forecast run to its chart, why not serving.
  await page.goto(`${base}/console/`, { waitUntil: 'load' });
  check((await heading(page)) === 'What needs attention', 'the home page lists what needs attention');
  await visited(page, 'home', weights);
  await clickAndWait(page, 'Reports', 'link');
  await clickAndWait(page, 'Run');
  await visited(page, 'reports', weights);
  const csvUrl = await (await named(page, 'Download CSV', 'link')).evaluate((a) => a.href);
  const csvText = await page.evaluate(async (u) => (await fetch(u, { credentials: 'same-origin' })).text(), csvUrl);
  const tableRows = await page.$$eval('#report tbody tr', (trs) => trs.length);
  const tableCells = await page.$$eval('#report tbody tr', (trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent.replace(/,/g, '')]));
  const csvLines = csvText.trim().split(/\r?\n/).map((l) => l.split(','));
  const [date, impression] = ['date', 'impression'].map((h) => csvLines[0].indexOf(h));
  const csvCells = csvLines.slice(1).map((l) => [l[date], l[impression]]);
  check(tableRows > 0 && JSON.stringify(csvCells) === JSON.stringify(tableCells), `the 7-day CSV has the table's rows: ${JSON.stringify(tableCells)} vs ${JSON.stringify(csvCells)}`);
  step('report run, its CSV matches its table');
  await page.goto(goalUrl, { waitUntil: 'load' });
  await clickAndWait(page, 'Pacing of Morning by day', 'link');
  await visited(page, 'pacing', weights);
  const days = await page.$$eval('#pacing tbody tr', (trs) => trs.length);
  const drawn = await page.waitForFunction(() => { const i = document.querySelector('img.chart'); return i && i.complete && i.naturalWidth > 0; }, { timeout: 60000 }).then(() => true, () => false);
  check(days > 0 && drawn, `the pacing chart is drawn with its ${days} days`);
  step('pacing chart and its table');
  await page.goto(campaignUrl, { waitUntil: 'load' });
  await clickAndWait(page, 'Forecasts of this campaign', 'link');
  await visited(page, 'forecasts', weights);
  await fill(page, 'Goal value', '20000');
  await clickAndWait(page, 'Run forecast');
  await page.waitForFunction(() => document.body.innerText.includes('Expected delivery with its band'), { timeout: 120000 });
  const chartDrawn = await page.waitForFunction(() => { const i = document.querySelector('img.chart'); return i && i.complete && i.naturalWidth > 0; }, { timeout: 60000 }).then(() => true, () => false);
  check(chartDrawn, 'the forecast ran to its chart');
  await visited(page, 'forecast', weights);
  step('a forecast ran to its chart');
  await clickAndWait(page, 'Audiences', 'link');
  await visited(page, 'audiences', weights);
  await clickAndWait(page, 'Why not serving', 'link');
  await clickAndWait(page, 'Check');
  await visited(page, 'why-not-serving', weights);
  step('why not serving checked');
  // 7. Sign out: the old cookie opens nothing.
  const cookies = await page.cookies();
  const session = cookies.find((c) => c.name === 'o_session');
  await page.goto(`${base}/console/campaigns`, { waitUntil: 'load' });
  await visited(page, 'campaigns', weights);
  await clickAndWait(page, 'Sign out');
  await page.setCookie({ ...session });
  await page.goto(`${base}/console/campaigns`, { waitUntil: 'load' });
  check(new URL(page.url()).pathname === '/console/sign-in', 'the old cookie fails after sign-out');
  weights.splice(0);
  step('signed out; the old cookie is refused');
  // 8. A VIEWER sees no write control, and a POST with their own token is refused.
  const viewer = await browser.createBrowserContext();
  const vpage = await viewer.newPage();
  const vweights = watch(vpage);
  await signIn(vpage, vweights, VIEWER, false, VIEWER_PASSWORD);
  for (const url of [`${base}/console/campaigns`, campaignUrl, goalUrl, `${base}/console/changes`]) {
    await vpage.goto(url, { waitUntil: 'load' });
    vweights.splice(0);
    for (const control of ['New campaign', 'New goal', 'New ad', 'Save', 'Revert', 'Apply to selected goals']) {
      check(!(await has(vpage, control)), `a VIEWER sees no ${control} on ${url}`);
    }
  }
  const status = await vpage.evaluate(async (target) => {
    const csrf = document.querySelector('input[name=csrf]').value;
    const r = await fetch(target, { method: 'POST', body: new URLSearchParams({ csrf, name: 'Viewer was here', type: 'IMPRESSION', start: '2030-01-01T06:00', value: '1' }) });
    return r.status;
  }, goalUrl);
  check(status === 403, `a VIEWER's post is 403 (got ${status})`);
  await viewer.close();
  step('viewer: no write controls, post refused');
  // 9. With JavaScript off, the forms still work (post, redirect, get).
  const plain = await browser.createBrowserContext();
  const ppage = await plain.newPage();
  await ppage.setJavaScriptEnabled(false);
  const pweights = watch(ppage);
  await signIn(ppage, pweights, TRAFFICKER, false);
  await ppage.goto(goalUrl, { waitUntil: 'load' });
  await fill(ppage, 'Priority', '2');
  // By keyboard: Tab from the field to Save (its focus drawn), then Enter.
  let reached = null;
  for (let i = 0; i < 20 && !reached; i += 1) {
    await ppage.keyboard.press('Tab');
    reached = await ppage.evaluate(() => {
      const el = document.activeElement;
      if (!el || el.textContent.trim() !== 'Save') return null;
      const st = getComputedStyle(el);
      return { outline: st.outlineStyle, width: st.outlineWidth };
    });
  }
  check(reached && reached.outline !== 'none' && reached.width !== '0px', `Save is reached by Tab, its focus visible: ${JSON.stringify(reached)}`);
  await Promise.all([ppage.waitForNavigation({ waitUntil: 'load' }), ppage.keyboard.press('Enter')]);
  check(/Saved\./.test(await ppage.evaluate(() => document.body.innerText)), 'saved without JavaScript');
  const prio = await (await named(ppage, 'Priority')).evaluate((e) => e.value);
  check(prio === '2', `the priority saved without JavaScript: ${prio}`);
  await plain.close();
  step('a goal edited with JavaScript off, by keyboard');
  if (ADMIN) await administration();
  // 15. Single sign-on: a person signs in through the account's OpenID provider (the
  // tests' provider, on another loopback port: its pages are not the console's, so this
  // page is not watched for other origins).
  if (process.env.SSO_ACCOUNT) {
    const sctx = await browser.createBrowserContext();
    const spage = await sctx.newPage();
    await spage.goto(`${base}/console/sign-in?account=${process.env.SSO_ACCOUNT}`, { waitUntil: 'load' });
    await clickAndWait(spage, `Sign in with ${process.env.SSO_NAME}`, 'link');
    check(new URL(spage.url()).pathname === '/console/', `signed in through the provider (at ${spage.url()})`);
    const text = await spage.evaluate(() => document.body.innerText);
    check(text.includes(process.env.SSO_EMAIL), `signed in as the provider's person: ${text.slice(0, 200)}`);
    await sctx.close();
    step('signed in through the account\'s OpenID provider');
  }
  check(result.dialogs.length === 0, `no script ran from a record's name: ${result.dialogs}`);
} catch (e) {
  failed = String(e && e.stack || e);
} finally {
  await browser.close();
  evil.close();
}
result.failed = failed;
console.log(JSON.stringify(result));
process.exit(failed ? 1 : 0);
