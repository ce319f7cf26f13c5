import { describe, expect, test } from 'vitest';
import { waitFor } from './net.js';

describe('waitFor', () => {
  test('returns the first truthy value, retrying what threw meanwhile', async () => {
    let calls = 0;
    const value = await waitFor(() => {
      calls++;
      if (calls === 1) throw new Error('not up yet');
      return calls >= 3 ? { calls } : undefined;
    });
    expect(value).toEqual({ calls: 3 });
  });

  test('a timeout carries the last error as its cause', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const failure = await waitFor(
      () => {
        throw refused;
      },
      0,
      'a server',
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ message: expect.stringMatching(/waiting for a server \(last error: connect ECONNREFUSED\)/) });
    expect((failure as Error).cause).toBe(refused);
  });

  test('a programming error in the check is thrown at once, not read as a wait', async () => {
    let calls = 0;
    const failure = await waitFor(() => {
      calls++;
      return (undefined as unknown as { ready: boolean }).ready;
    }, 60_000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
  });

  test("fetch's network failure (a TypeError with a cause) is waited out like any other", async () => {
    let calls = 0;
    const value = await waitFor(() => {
      if (++calls < 2) throw new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') });
      return 'up';
    });
    expect(value).toBe('up');
  });
});
