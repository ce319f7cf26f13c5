import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test, type TestContext } from 'vitest';
import { buildConsole } from '@relay/console/build';
import { postJson, startStack } from '@relay/e2e';
import { openBrowser } from './browser.js';
import { IMAGE_MODEL, json } from './console-stack.js';

/** The built-in catalog's newest text-to-image model by the date its id ends with: Seedream 5.5. */
const NEWEST_IMAGE_MODEL = 'vendor-gen-5-5-261028';

/**
 * What a newcomer meets in the console right after npm start: the playground ready to go with
 * the demo key and the newest model, the simulated upstream said plainly, tables that keep ids
 * and dates on one line, and /docs asking for nothing the relay lacks.
 */
const dir = mkdtempSync(join(tmpdir(), 'relay-first-run-'));
const consoleDir = join(dir, 'console');
const demoKeyFile = join(dir, 'demo-key.json');
await buildConsole({ outdir: consoleDir });
const stack = await startStack({ consoleDir, demoKeyFile });
// as npm start does: the demo key is made through the admin API once the api answers, then written
const demo = await stack.newKey();
writeFileSync(demoKeyFile, JSON.stringify({ accountId: demo.accountId, keyId: demo.keyId, key: demo.key }));
const browser = await openBrowser();
const { page } = await browser.context();
page.setDefaultTimeout(15_000);

afterEach((context: TestContext) => {
  if (context.task.result?.state === 'fail') console.error('browser errors:', browser.watch.errors, 'blocked:', browser.watch.blocked);
});
afterAll(async () => {
  await browser.close();
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the demo key is handed to a signed-in operator only', async () => {
  expect((await fetch(`${stack.url}/admin/demo-key`)).status).toBe(401);
  expect(await (await fetch(`${stack.url}/console/config`)).text()).not.toContain(demo.key);
  expect(await json<{ key: string | null }>(stack.admin('GET', '/demo-key'))).toEqual({ key: demo.key });
});

test('the playground starts with the demo key and the newest image model, and generates at once', async () => {
  await page.goto(`${stack.url}/console`);
  await page.getByLabel('Admin token').fill(stack.adminToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.getByRole('link', { name: 'Playground' }).click();
  await expect.poll(() => page.getByLabel(/^API key/).inputValue()).toBe(demo.key);
  expect(await page.locator('#api-key-hint').textContent()).toMatch(/demo account's key that npm start made/);
  expect(await page.getByLabel('Image model').inputValue()).toBe(NEWEST_IMAGE_MODEL);
  await page.getByRole('button', { name: 'Generate' }).click();
  await page.getByRole('img', { name: /a lighthouse at dusk/ }).waitFor({ timeout: 30_000 });
  expect((await stack.account(demo.accountId)).ledger.some((e) => e.type === 'settle' && e.model === NEWEST_IMAGE_MODEL)).toBe(true);
});

test('channels that point at the simulator say so', async () => {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Channels' }).click();
  const notice = page.getByRole('note', { name: 'Simulated upstream' });
  await notice.waitFor();
  expect(await notice.textContent()).toMatch(/ark, gemini point at the upstream simulator/);
  const table = page.getByRole('region', { name: 'Upstream channels' });
  await expect.poll(() => table.getByText('simulated upstream').count()).toBe(2);
  const { channels } = await json<{ channels: Array<{ id: string; simulated: boolean }> }>(stack.admin('GET', '/channels'));
  expect(channels.map((c) => [c.id, c.simulated])).toEqual([
    ['ark', true],
    ['gemini', true],
  ]);
});

/** How many lines an element's text takes: one box per line for the text's range, counted by their tops. */
const linesOf = (el: Element) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
};

test('batch ids and dates stay on one line, whole in their tooltips', async () => {
  const form = new FormData();
  form.set('purpose', 'batch');
  const line = { custom_id: 'one', method: 'POST', url: '/v1/images/generations', body: { model: IMAGE_MODEL, prompt: 'a kite' } };
  form.set('file', new Blob([JSON.stringify(line)]), 'one.jsonl');
  const file = await json<{ id: string }>(
    fetch(`${stack.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${demo.key}` }, body: form }),
  );
  const batch = await json<{ id: string }>(
    postJson(`${stack.url}/v1/batches`, { input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' }, demo.key),
  );
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Batches' }).click();
  const row = page.getByRole('region', { name: 'Batches' }).locator('tbody tr', { hasText: batch.id });
  for (const cell of [row.locator('code.id').first(), row.locator('time')]) {
    await cell.waitFor();
    expect(await cell.evaluate(linesOf)).toBe(1);
  }
  expect(await row.locator('code.id').first().getAttribute('title')).toBe(batch.id);
  expect(await row.locator('time').getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // on a phone too: the table scrolls sideways, the cells do not wrap
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await row.locator('code.id').first().evaluate(linesOf)).toBe(1);
  expect(await row.locator('time').evaluate(linesOf)).toBe(1);
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('/docs asks for no favicon the relay does not serve', async () => {
  const docs = await browser.context();
  const missing: string[] = [];
  docs.page.on('response', (res) => res.status() >= 400 && missing.push(`${res.status()} ${res.url()}`));
  await docs.page.goto(`${stack.url}/docs`);
  await docs.page.locator('.opblock').first().waitFor();
  expect(await docs.page.locator('link[rel="icon"]').getAttribute('href')).toBe('data:,');
  expect(missing).toEqual([]);
  await docs.context.close();
});

test('nothing left the machine and the browser logged no error', () => {
  expect(browser.watch.blocked).toEqual([]);
  expect(browser.watch.errors).toEqual([]);
});
