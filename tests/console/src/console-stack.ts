import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type TestContext } from 'vitest';
import { buildConsole } from '@relay/console/build';
import { postJson, startStack, type Stack } from '@relay/e2e';
import { repoRoot } from '@relay/testkit';
import { openBrowser } from './browser.js';

/** Written by every run, kept out of git; docs/console.png is one of them, committed by hand. */
export const SHOTS = join(repoRoot, 'tests/console/screenshots');
export const IMAGE_MODEL = 'vendor-gen-5-0-260128';
export const SPEECH_MODEL = 'vendor-2.5-flash-preview-tts';

export const json = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T;

/**
 * What the console's browser test looks at: the console built into a directory of its own, a
 * relay serving it, a named customer with real image and speech traffic for the charts, and a
 * browser (its page signed in by the first test).
 */
export async function startConsoleStack() {
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  const consoleDir = mkdtempSync(join(tmpdir(), 'relay-console-'));
  await buildConsole({ outdir: consoleDir });
  // eight image jobs at once: a cancelled batch then has lines that never started. The breaker
  // window is an hour, not 10 s, so the channel page still counts the calls made here on a slow machine
  const stack = await startStack({
    consoleDir,
    worker: { WORKER_CONCURRENCY: '8' },
    tuning: { api: { statsFlushMs: 200 }, worker: { breaker: { windowMs: 3_600_000 } } },
  });
  try {
    return await withTraffic(stack, consoleDir);
  } catch (error) {
    await stack.close();
    throw error;
  }
}

async function withTraffic(stack: Stack, consoleDir: string) {
  // a customer with a name to find among others, and real traffic through the relay for the charts
  await stack.newKey();
  const named = await json<{ id: string }>(stack.admin('POST', '/accounts', { name: 'Acme Rockets' }));
  await stack.admin('POST', `/accounts/${named.id}/credits`, { amount: 5_000_000_000, note: 'opening' });
  const key = await json<{ id: string; key: string }>(stack.admin('POST', `/accounts/${named.id}/keys`, { name: 'launch pad' }));
  const customer = { key: key.key, keyId: key.id, accountId: named.id };
  for (const prompt of ['a red rocket', 'a blue rocket']) {
    expect(
      (await postJson(`${stack.url}/v1/images/generations`, { model: IMAGE_MODEL, prompt, user: 'pilot-1' }, customer.key)).status,
    ).toBe(200);
  }
  const speech = await fetch(`${stack.url}/v1beta/models/${SPEECH_MODEL}:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': customer.key },
    body: JSON.stringify({
      contents: [{ parts: [{ text: 'Ignition.' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    }),
  });
  expect(speech.status).toBe(200);
  const browser = await openBrowser();
  const { page } = await browser.context();
  page.setDefaultTimeout(15_000); // a missing element fails the step with its own message, before the test's timeout
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  return {
    stack,
    browser,
    page,
    consoleDir,
    customer,
    shot,
    /** After each test: a failed step leaves its page and what the browser said, to look at. */
    async keepFailure(context: TestContext) {
      if (context.task.result?.state !== 'fail') return;
      await shot(`failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
      console.error('browser errors:', browser.watch.errors, 'blocked:', browser.watch.blocked);
    },
    async close() {
      await browser.close();
      await stack.close();
      rmSync(consoleDir, { recursive: true, force: true });
    },
  };
}
