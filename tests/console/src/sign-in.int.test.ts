import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test, type TestContext } from 'vitest';
import { buildConsole } from '@relay/console/build';
import { startStack } from '@relay/e2e';
import { openBrowser } from './browser.js';

/**
 * The console's first paint is its sign-in form (issue 34: it was "Loading…" until the script
 * ran): the HTML the api serves is the form, usable before any JavaScript, which the app then
 * takes over; without JavaScript the form is there with a line saying the console needs it.
 */
const consoleDir = mkdtempSync(join(tmpdir(), 'relay-sign-in-'));
await buildConsole({ outdir: consoleDir });
const stack = await startStack({ consoleDir });
const browser = await openBrowser();

afterEach((context: TestContext) => {
  if (context.task.result?.state === 'fail') console.error('browser errors:', browser.watch.errors, 'blocked:', browser.watch.blocked);
});
afterAll(async () => {
  await browser.close();
  await stack.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

/** The elements of the form the HTML painted, kept on the page to compare with what the app shows. */
type Painted = { painted?: { main: Element | null; form: Element | null; input: Element | null } };

test('without JavaScript the page is the sign-in form, and says the console needs JavaScript', async () => {
  const { context, page } = await browser.context(undefined, { javaScriptEnabled: false });
  page.setDefaultTimeout(15_000);
  const url = `${stack.url}/console/accounts`;
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  await page.getByRole('heading', { name: 'relay console' }).waitFor();
  const token = page.getByLabel('Admin token');
  await token.waitFor();
  expect(await token.getAttribute('type')).toBe('password');
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  // Playwright's text locators skip <noscript>: the line is found by its place
  const line = page.locator('noscript p');
  await line.waitFor();
  expect(await line.textContent()).toMatch(/^The relay console needs JavaScript/);
  expect(await page.locator('form').count()).toBe(1);
  // submitting it without the app sends the token nowhere (method="dialog" outside a dialog)
  expect(await page.locator('form').getAttribute('method')).toBe('dialog');
  await token.fill('typed-without-javascript');
  await page.getByRole('button', { name: 'Sign in' }).click();
  expect(page.url()).toBe(url);
  expect(await token.inputValue()).toBe('typed-without-javascript');
  expect(requests.filter((r) => r.includes('typed-without-javascript') || r.includes('/admin'))).toEqual([]);
  await context.close();
});

test('the sign-in form paints before the script runs, is taken over when it does, and signs in', async () => {
  const { context, page } = await browser.context();
  page.setDefaultTimeout(15_000);
  // the app's script is held until the form has been seen and typed into
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked = () => {};
  const scriptAsked = new Promise<void>((resolve) => (asked = resolve));
  await page.route(/\/console\/assets\/app-[^/]+\.js$/, async (route) => {
    asked();
    await released;
    await route.continue();
  });
  await page.goto(`${stack.url}/console`, { waitUntil: 'commit' });
  await scriptAsked;
  const token = page.getByLabel('Admin token');
  await token.waitFor(); // visible, from the HTML and its stylesheet alone
  expect(await page.getByRole('button', { name: 'Sign in' }).isEnabled()).toBe(true);
  expect(await page.getByText('Loading').count()).toBe(0);
  expect(await page.locator('noscript p').filter({ visible: true }).count()).toBe(0);
  await token.fill(stack.adminToken);
  // the script has not run: the document waits for it before DOMContentLoaded
  expect(
    await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventStart),
  ).toBe(0);
  await page.evaluate(() => {
    (globalThis as Painted).painted = {
      main: document.querySelector('#app main'),
      form: document.querySelector('form'),
      input: document.querySelector('input'),
    };
  });

  release();
  await page.waitForLoadState('domcontentloaded'); // the module has run: render() is synchronous
  // the app took over the very elements painted: one form, the same nodes, what was typed and the focus kept
  expect(
    await page.evaluate(() => {
      const { painted } = globalThis as Painted;
      return {
        forms: document.querySelectorAll('form').length,
        sameMain: document.querySelector('#app main') === painted?.main,
        sameForm: document.querySelector('form') === painted?.form,
        sameInput: document.querySelector('input') === painted?.input,
        focused: document.activeElement === painted?.input,
        busy: document.querySelectorAll('[aria-busy="true"]').length,
      };
    }),
  ).toEqual({ forms: 1, sameMain: true, sameForm: true, sameInput: true, focused: true, busy: 0 });
  expect(await token.inputValue()).toBe(stack.adminToken);

  // signing in works as before: Enter, the overview, the token in this tab's sessionStorage only
  await token.press('Enter');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
  expect(page.url()).not.toContain(stack.adminToken);
  // and a signed-in tab that reloads goes back to the page
  await page.reload();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  expect(await page.getByLabel('Admin token').count()).toBe(0);
  await context.close();
});

test('nothing left the machine and the browser logged no error', () => {
  expect(browser.watch.blocked).toEqual([]);
  expect(browser.watch.errors).toEqual([]);
});
