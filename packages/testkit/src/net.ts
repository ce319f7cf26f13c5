import { setTimeout as sleep } from 'node:timers/promises';

export { freePort, portAnswers } from '@relay/local';

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

let counter = 0;
/** A name no other test run uses, for queues, prefixes and buckets. */
export const uniqueName = (base: string) => `${base}-${process.pid}-${Date.now().toString(36)}-${counter++}`;
