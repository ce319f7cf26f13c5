import { afterAll, afterEach, expect, test } from 'vitest';
import { join } from 'node:path';
import { IMAGE_MODEL, json, SHOTS, SPEECH_MODEL, startConsoleStack } from './console-stack.js';

/** The console's playground and the API reference page, on a stack of their own (the main console test is long enough). */
const { stack, browser, page, customer, shot, keepFailure, close } = await startConsoleStack();

afterEach(keepFailure);
afterAll(close);

test('sign in', async () => {
  await page.goto(`${stack.url}/console`);
  await page.getByLabel('Admin token').fill(stack.adminToken);
  await page.getByLabel('Admin token').press('Enter');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
});

test('playground: an image and audio from the relay with the key pasted in, and the request as code', async () => {
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByLabel(/^API key/).fill(customer.key);
  await page.getByLabel('Image model').selectOption(IMAGE_MODEL);
  await page.getByLabel('Prompt').fill('a rocket over the sea');
  await page.getByRole('button', { name: 'Generate' }).click();
  const image = page.getByRole('img', { name: /a rocket over the sea/ });
  await image.waitFor({ timeout: 30_000 });
  expect(await image.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(100);
  const curl = await page.locator('figure.code', { hasText: 'curl' }).locator('code').textContent();
  expect(curl).toContain(`${stack.url}/v1/images/generations`);
  expect(curl).toContain('$RELAY_API_KEY');
  expect(curl).not.toContain(customer.key);
  expect(await page.locator('figure.code', { hasText: 'openai SDK' }).locator('code').textContent()).toContain('relay.images.generate(');
  await shot('playground-image');

  await page.getByRole('button', { name: 'Speech', exact: true }).click();
  await page.getByLabel('Voice').selectOption('Puck');
  await page.getByLabel('Text').fill('Lift off in three, two, one.');
  await page.getByRole('button', { name: 'Speak' }).click();
  const audio = page.locator('audio');
  await audio.waitFor({ timeout: 30_000 });
  // the WAV the page built from the answer's PCM loads and plays
  const played = await audio.evaluate(async (el: HTMLAudioElement) => {
    if (el.readyState < 1) await new Promise((resolve) => el.addEventListener('loadedmetadata', resolve, { once: true }));
    await el.play();
    await new Promise((resolve) => el.addEventListener('timeupdate', resolve, { once: true }));
    return { duration: el.duration, time: el.currentTime };
  });
  expect(played.duration).toBeGreaterThan(0.2);
  expect(played.time).toBeGreaterThan(0);
  const sdk = await page.locator('figure.code', { hasText: '@google/genai' }).locator('code').textContent();
  expect(sdk).toContain(`voiceName: "Puck"`);
  expect(sdk).toContain(`baseUrl: '${stack.url}'`);
  await shot('playground-speech');
  // the same text through OpenAI's /v1/audio/speech, encoded by the relay as mp3: the browser plays it too
  await page.getByLabel('Format').selectOption('mp3');
  await page.getByRole('button', { name: 'Speak' }).click();
  await page.getByText(/^mp3, \d+ KiB$/).waitFor({ timeout: 30_000 });
  const mp3 = await page.locator('audio').evaluate(async (el: HTMLAudioElement) => {
    if (el.readyState < 1) await new Promise((resolve) => el.addEventListener('loadedmetadata', resolve, { once: true }));
    return el.duration;
  });
  expect(mp3).toBeGreaterThan(0.2);
  expect(await page.locator('figure.code', { hasText: 'openai SDK' }).locator('code').textContent()).toContain(
    'relay.audio.speech.create(',
  );
  // all three were real, charged requests
  const ledger = await json<{ entries: Array<{ type: string; model: string }> }>(
    stack.admin('GET', `/accounts/${customer.accountId}/usage?limit=5`),
  );
  expect(
    ledger.entries
      .filter((e) => e.type === 'settle')
      .map((e) => e.model)
      .slice(0, 3),
  ).toEqual([SPEECH_MODEL, SPEECH_MODEL, IMAGE_MODEL]);
});

test('/docs renders the OpenAPI document from files the relay serves', async () => {
  const docs = await browser.context();
  await docs.page.goto(`${stack.url}/docs`);
  await docs.page.locator('.opblock').first().waitFor();
  expect(await docs.page.locator('.opblock').count()).toBeGreaterThan(20);
  await docs.page.getByText('/v1/images/generations', { exact: true }).first().waitFor();
  await docs.page.screenshot({ path: join(SHOTS, 'docs.png') });
  await docs.context.close();
});

test('nothing left the machine and the browser logged no error', () => {
  expect(browser.watch.blocked).toEqual([]);
  expect(browser.watch.errors).toEqual([]);
});
