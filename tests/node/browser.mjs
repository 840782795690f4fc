// What the browser drivers share: Debian's headless Chromium (CHROMIUM names another
// binary) that autoplays muted, and a page that names itself as a person's Chrome does
// (headless Chromium says "HeadlessChrome", which the service counts as non-browser
// traffic: docs/traffic-quality.md).
import puppeteer from 'puppeteer-core';

export async function launch() {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--autoplay-policy=no-user-gesture-required', '--mute-audio'],
  });
}

export async function personPage(browser) {
  const page = await browser.newPage();
  await page.setUserAgent((await browser.userAgent()).replace('HeadlessChrome', 'Chrome'));
  return page;
}
