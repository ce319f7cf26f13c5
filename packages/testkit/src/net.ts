import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

export { freePort, portAnswers } from '@relay/local';

/**
 * A mistake in the check itself, which no amount of waiting fixes: a ReferenceError, or a
 * TypeError of the code's own (fetch's network failures are TypeErrors too, but carry a cause).
 */
const isProgrammingError = (error: unknown) => error instanceof ReferenceError || (error instanceof TypeError && error.cause === undefined);

/**
 * Polls `check` until it returns a truthy value or `timeoutMs` passes. A check that throws is
 * "not yet" (a server still starting, a file half written), and the last such error is the
 * cause of the timeout; a programming error in the check is thrown at once, not read as a wait.
 */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      if (isProgrammingError(error)) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const last = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : inspect(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`, { cause: lastError });
    }
    await sleep(50);
  }
}

let counter = 0;
/** A name no other test run uses, for queues, prefixes and buckets. */
export const uniqueName = (base: string) => `${base}-${process.pid}-${Date.now().toString(36)}-${counter++}`;
