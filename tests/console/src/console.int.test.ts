import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { loadApiConfig, startApi } from '@relay/api';
import { createLogger, loadCatalog } from '@relay/core';
import { formatMoney } from '@relay/core/money';
import { channelsReachedWorker, postJson } from '@relay/e2e';
import { IMAGE_MODEL, json, SHOTS, startConsoleStack } from './console-stack.js';
import { fitsThePage } from './layout.js';

const { stack, browser, page, consoleDir, customer, shot, keepFailure, close } = await startConsoleStack();

afterEach(keepFailure);
afterAll(close);

test('sign in: a wrong token is refused, the right one opens the overview with charts of real traffic', async () => {
  await page.goto(`${stack.url}/console`);
  await page.getByLabel('Admin token').fill('not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.getByRole('alert').textContent()).toContain('not the admin token');
  await shot('sign-in');
  // the refused attempt is the one error the browser may log (a 401 on the network)
  expect(browser.watch.errors).toEqual([expect.stringMatching(/status of 401/)]);
  browser.watch.errors.length = 0;
  await page.getByLabel('Admin token').fill(stack.adminToken);
  await page.getByLabel('Admin token').press('Enter');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
  expect(page.url()).not.toContain(stack.adminToken);
  // the relay-wide spend chart is drawn from the settled requests above
  const relay = await json<{ days: Array<{ model: string; charged: number }> }>(stack.admin('GET', '/usage/daily?days=30'));
  const spent = relay.days.reduce((sum, d) => sum + d.charged, 0);
  expect(spent).toBeGreaterThan(0);
  await page.locator('.chart-canvas canvas').first().waitFor();
  await expect.poll(() => page.getByTestId('period-spend').textContent()).toBe(formatMoney(spent));
  // traffic comes from the api's per-minute buckets once they are flushed
  await expect
    .poll(() => page.getByRole('list', { name: 'Requests in the window by kind' }).textContent(), { timeout: 20_000 })
    .toMatch(/images: 2 requests/);
  await shot('overview');
});

test('accounts: search finds the account by a word of its name and by its id', async () => {
  await page.getByRole('link', { name: 'Accounts' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  await page.getByLabel('Search accounts').fill('rocke');
  await expect.poll(() => page.getByRole('region', { name: 'Accounts' }).locator('tbody tr').count()).toBe(1);
  await page.getByLabel('Search accounts').fill(customer.accountId.slice(0, 12));
  await page.getByRole('link', { name: 'Acme Rockets' }).waitFor();
  await page.getByLabel('Search accounts').fill('');
  await expect.poll(() => page.getByRole('region', { name: 'Accounts' }).locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
  await shot('accounts');
  await page.getByLabel('Search accounts').fill('acme');
  await page.getByRole('link', { name: 'Acme Rockets' }).click();
  await page.getByRole('heading', { name: 'Acme Rockets' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/console/accounts/${customer.accountId}`);
});

test("the account's usage chart shows what its requests were charged", async () => {
  const usage = await json<{ days: Array<{ model: string; charged: number; units: number }> }>(
    stack.admin('GET', `/accounts/${customer.accountId}/usage/daily`),
  );
  const images = usage.days.find((d) => d.model === IMAGE_MODEL)!;
  expect(images).toMatchObject({ charged: 70_000, units: 2 });
  await page.locator('.chart-canvas canvas').first().waitFor();
  await page.getByText('Spend per day and model as a table').click();
  const table = page.locator('details[open] table');
  expect(await table.locator('thead').textContent()).toContain(IMAGE_MODEL);
  expect(await table.locator('tbody tr').last().textContent()).toContain('0.07');
});

test('money: credit with a note changes the balance and shows in the ledger', async () => {
  const before = await json<{ balance: number }>(stack.admin('GET', `/accounts/${customer.accountId}`));
  await page.getByLabel('Amount (units; negative to correct)').fill('12.5');
  expect(await page.locator('#amount-hint').textContent()).toBe('12,500,000 micro-units');
  await page.getByLabel('Note (kept in the ledger)').fill('invoice 42');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect.poll(() => page.getByRole('status').filter({ hasText: 'Done' }).textContent()).toContain('balance is now');
  const after = await json<{ balance: number }>(stack.admin('GET', `/accounts/${customer.accountId}`));
  expect(after.balance - before.balance).toBe(12_500_000);
  await expect.poll(() => page.getByTestId('balance').textContent()).toBe(formatMoney(after.balance));
  await page.getByRole('region', { name: 'Ledger entries, newest first' }).getByText('invoice 42').waitFor();
});

test("fair share: the account's weight and cap on jobs in flight are set from its page", async () => {
  await page.getByLabel('Weight (share of the capacity against other waiting accounts; default 1)').fill('0');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Weight: a number from 0.01 to 1000.').waitFor();
  await page.getByLabel('Weight (share of the capacity against other waiting accounts; default 1)').fill('2.5');
  await page.getByLabel('Most jobs in flight (empty: no cap of its own)').fill('3');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).textContent())
    .toBe('Saved: weight 2.5, at most 3 jobs in flight.');
  expect(await json<{ weight: number; maxInFlight: number | null }>(stack.admin('GET', `/accounts/${customer.accountId}`))).toMatchObject({
    weight: 2.5,
    maxInFlight: 3,
  });
  await page.getByLabel('Most jobs in flight (empty: no cap of its own)').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).textContent())
    .toBe('Saved: weight 2.5, no cap on jobs in flight.');
  expect(await json<{ maxInFlight: number | null }>(stack.admin('GET', `/accounts/${customer.accountId}`))).toMatchObject({
    maxInFlight: null,
  });
  // the list shows each account's weight
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Accounts' }).click();
  await page.getByLabel('Search accounts').fill('acme');
  const row = page.getByRole('region', { name: 'Accounts' }).locator('tbody tr', { hasText: 'Acme Rockets' });
  await expect.poll(() => row.locator('td').nth(5).textContent()).toBe('2.5');
  await page.getByRole('link', { name: 'Acme Rockets' }).click();
  await page.getByRole('heading', { name: 'Acme Rockets' }).waitFor();
});

test('keys: a new key shows its secret once and works; revoking it makes it fail', async () => {
  await page.getByLabel('Key name').fill('ci key');
  await page.getByLabel('Requests per minute').fill('120');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.getByTestId('new-secret').textContent())!.trim();
  expect(secret).toMatch(/^rk_/);
  await page.getByRole('button', { name: 'Copy secret' }).click();
  await shot('new-key');
  expect((await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
  await page.getByRole('button', { name: 'I have copied it' }).click();
  expect(await page.getByTestId('new-secret').count()).toBe(0);
  const keys = page.getByRole('region', { name: 'Keys' });
  await keys.getByRole('cell', { name: 'ci key', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Revoke key ci key' }).click();
  await page.getByRole('button', { name: 'Revoke ci key now' }).click();
  await keys.getByText(/^revoked/).waitFor();
  expect((await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
  // the key that made the requests says it was used
  expect(await keys.locator('tr', { hasText: 'launch pad' }).textContent()).toMatch(/just now|min ago/);
});

test('the ledger filters by key, model and end user', async () => {
  const ledger = page.getByRole('region', { name: 'Ledger entries, newest first' });
  await page.getByLabel('Key', { exact: true }).selectOption(customer.keyId);
  await page.getByLabel('Model', { exact: true }).selectOption(IMAGE_MODEL);
  await page.getByLabel('End user').fill('pilot-1');
  await page.getByRole('button', { name: 'Filter' }).click();
  // two images: a reservation and a settlement each, all by pilot-1 with the launch pad key
  await expect.poll(() => ledger.locator('tbody tr').count()).toBe(4);
  for (const row of await ledger.locator('tbody tr').allTextContents()) expect(row).toMatch(/launch pad.*pilot-1/);
  await shot('account');
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect.poll(() => ledger.locator('tbody tr').count()).toBeGreaterThan(4);
});

test('queues: counts per queue and state, with links to the BullMQ dashboard', async () => {
  await page.getByRole('link', { name: 'Queues' }).click();
  const table = page.getByRole('region', { name: 'Jobs per queue and state' });
  const images = table.locator('tbody tr', { hasText: 'images' });
  // two image jobs went through: completed (or already trimmed by age, never by count)
  await expect.poll(async () => Number((await images.locator('td').nth(5).textContent())?.replace(/,/g, ''))).toBe(2);
  expect(await table.getByRole('link', { name: 'speech' }).getAttribute('href')).toBe('/admin/queues/queue/speech');
  await shot('queues');
});

test('scheduling: pending jobs per lane and account from the fair scheduler', async () => {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Scheduling' }).click();
  const lanes = page.getByRole('region', { name: 'Pending images jobs per lane' });
  await expect.poll(() => lanes.locator('tbody tr td:first-child').allTextContents()).toEqual(['interactive', 'async', 'batch']);
  // nothing waits now: every job of this test already ran
  expect(await page.getByRole('region', { name: 'Pending images jobs per account' }).textContent()).toContain('Nothing waits.');
  await shot('scheduling');
});

test('channels: each channel with its breaker state; one is taken out of service and put back', async () => {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Channels' }).click();
  const table = page.getByRole('region', { name: 'Upstream channels' });
  const row = (id: string) => table.locator('tbody tr', { has: page.locator('strong', { hasText: new RegExp(`^${id}$`) }) });
  await row('ark').getByText('healthy').waitFor();
  // the setup's images went through the configured image channel, counted over the breaker's
  // window once each call's channel is released (after the answer); the page refreshes every 5 s
  await expect
    .poll(async () => Number((await row('ark').locator('td').nth(3).textContent())?.split(',')[0]), { timeout: 20_000 })
    .toBeGreaterThanOrEqual(2);
  await page.getByRole('button', { name: 'Disable channel gemini' }).click();
  await row('gemini').getByText('disabled: by an operator').waitFor();
  expect(await json<{ disabled: boolean; state: string }>(stack.admin('GET', '/channels/gemini'))).toMatchObject({
    disabled: true,
    state: 'disabled',
  });
  await shot('channels');
  await page.getByRole('button', { name: 'Enable channel gemini' }).click();
  await row('gemini').getByText('healthy').waitFor();
  await channelsReachedWorker(stack); // the playground below speaks through it
});

test('batches: progress bars, cancel, and the files of the ended batch to download', async () => {
  // every call is held at the upstream until released: the batch is surely running when cancelled
  // 500 lines, as people send them: the widest progress ("500 / 500 (492 failed)") must fit the page
  await stack.fault({ type: 'hold', api: 'images', times: 500 });
  const input = Array.from({ length: 500 }, (_, i) =>
    JSON.stringify({
      custom_id: `rocket-${i}`,
      method: 'POST',
      url: '/v1/images/generations',
      body: { model: IMAGE_MODEL, prompt: `rocket ${i}` },
    }),
  ).join('\n');
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob([input]), 'rockets.jsonl');
  const file = await json<{ id: string }>(
    fetch(`${stack.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${customer.key}` }, body: form }),
  );
  const batch = await json<{ id: string }>(
    postJson(
      `${stack.url}/v1/batches`,
      { input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' },
      customer.key,
    ),
  );
  await expect.poll(async () => (await stack.simStats()).holding, { timeout: 30_000 }).toBeGreaterThan(0);

  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Batches' }).click();
  const row = page.getByRole('region', { name: 'Batches' }).locator('tbody tr', { hasText: batch.id });
  await row.getByText('in_progress').waitFor();
  expect(await row.getByRole('progressbar').getAttribute('max')).toBe('500');
  await fitsThePage(page.getByRole('region', { name: 'Batches' }), row);
  await shot('batches');
  await page.getByRole('button', { name: `Cancel batch ${batch.id}` }).click();
  await row.getByText(/^cancell(ing|ed)$/).waitFor();
  await fetch(`${stack.sim.url}/_sim/faults`, { method: 'DELETE' }); // the holds the cancelled lines never used
  await stack.release(); // the lines already at the upstream finish, and are kept
  await row.getByText('cancelled', { exact: true }).waitFor({ timeout: 30_000 });
  const ended = await json<{ request_counts: { total: number; completed: number; failed: number } }>(
    stack.admin('GET', `/batches/${batch.id}`),
  );
  expect(ended.request_counts.completed).toBeGreaterThan(0);
  expect(ended.request_counts.failed).toBeGreaterThan(0); // the lines never started: batch_cancelled
  await row.getByText(`500 / 500 (${ended.request_counts.failed} failed)`).waitFor();
  await fitsThePage(page.getByRole('region', { name: 'Batches' }), row);

  for (const [button, filename] of [
    [`Download the archive of ${batch.id}`, `${batch.id}.zip`],
    [`Download the errors of ${batch.id}`, `${batch.id}_errors.jsonl`],
  ] as const) {
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: button }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(filename);
    const bytes = readFileSync(await download.path());
    if (filename.endsWith('.zip')) expect(bytes.subarray(0, 2).toString()).toBe('PK');
    else expect(bytes.toString().trim().split('\n')).toHaveLength(ended.request_counts.failed);
  }
  await shot('batches-ended');
});

test('on a phone the pages fit the screen and the navigation is reachable by keyboard', async () => {
  const phone = await browser.context({ width: 390, height: 844 });
  await phone.page.goto(`${stack.url}/console`);
  await phone.page.getByLabel('Admin token').fill(stack.adminToken);
  await phone.page.getByRole('button', { name: 'Sign in' }).click();
  // the token is kept only once the admin API has accepted it: a navigation before that answer
  // cancels the check and lands on the sign-in form again (a loaded CI machine did so)
  await phone.page.getByRole('heading', { name: 'Overview' }).waitFor();
  for (const path of ['/console', `/console/accounts/${customer.accountId}`, '/console/playground']) {
    await phone.page.goto(`${stack.url}${path}`);
    // the shell's page (main#main), not the sign-in form index.html paints first, before the app has read its token
    await phone.page.locator('main#main h1').first().waitFor();
    await phone.page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  }
  await phone.page.screenshot({ path: join(SHOTS, 'phone-playground.png'), fullPage: true });
  // the skip link is the first element Tab reaches (first in the document's order among what can
  // take focus, no positive tabindex anywhere), and Enter on it moves focus to the page. Read from
  // the DOM rather than from a Tab press: Chromium starts Tab from its focus navigation starting
  // point, which the playground's re-renders can leave inside its form (a Tab from a focused body
  // landed there in two clean-clone CI runs)
  const order = await phone.page.evaluate(() => {
    const focusable = [...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter(
      (e) => e.tabIndex >= 0 && !(e as HTMLButtonElement).disabled,
    );
    return { first: focusable[0]?.textContent, positive: focusable.filter((e) => e.tabIndex > 0).length };
  });
  expect(order).toEqual({ first: 'Skip to the page', positive: 0 });
  await phone.page.getByRole('link', { name: 'Skip to the page' }).focus();
  expect(await phone.page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the page');
  await phone.page.keyboard.press('Enter');
  expect(await phone.page.evaluate(() => document.activeElement?.id)).toBe('main');
  await phone.context.close();
});

test('a relay without ADMIN_TOKEN says so instead of asking for one', async () => {
  const bare = await startApi(loadApiConfig({ ...stack.env, PORT: '0' }), loadCatalog({}), createLogger('api', 'silent'), { consoleDir });
  const { context, page: other } = await browser.context();
  await other.goto(`${bare.url}/console/accounts`);
  await other.getByRole('heading', { name: 'The admin API is off' }).waitFor();
  expect(await other.getByLabel('Admin token').count()).toBe(0);
  await other.screenshot({ path: join(SHOTS, 'admin-disabled.png') });
  await context.close();
  await bare.close();
});

test('nothing left the machine and the browser logged no error', () => {
  expect(browser.watch.blocked).toEqual([]);
  expect(browser.watch.errors).toEqual([]);
});
