import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** What the page did that a test must see as a failure: requests off this machine, console errors. */
export interface Watch {
  blocked: string[];
  errors: string[];
}

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Headless Chromium with the flags this machine needs (no sandbox as root; no background
 * networking, which would try to reach Google) and a fresh profile (Playwright makes a new
 * --user-data-dir for each launch and removes it on close). Every request of every
 * page goes through a route that lets only loopback through and records anything else.
 */
export async function openBrowser(): Promise<{
  browser: Browser;
  /** A new context and its page; `options` as Playwright's (`javaScriptEnabled: false` for a page without scripts). */
  context: (
    viewport?: { width: number; height: number },
    options?: Omit<BrowserContextOptions, 'viewport'>,
  ) => Promise<{ context: BrowserContext; page: Page }>;
  watch: Watch;
  close(): Promise<void>;
}> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  const watch: Watch = { blocked: [], errors: [] };
  return {
    browser,
    watch,
    async context(viewport = { width: 1280, height: 900 }, options = {}) {
      const context = await browser.newContext({ ...options, viewport });
      await context.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (LOCAL.has(url.hostname)) return route.continue();
        watch.blocked.push(url.href);
        return route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error') watch.errors.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => watch.errors.push(`${page.url()}: ${error.message}`));
      return { context, page };
    },
    async close() {
      await browser.close();
    },
  };
}
