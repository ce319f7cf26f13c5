import { afterAll, beforeAll, expect, test } from 'vitest';
import { Redis } from 'ioredis';
import { waitFor, type AppProcess } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let others: AppProcess[];
beforeAll(async () => {
  // this process's api looks at a waited job's state itself every 300 ms (a lost notice's fallback)
  stack = await startStack({ tuning: { api: { waitRecheckMs: 300 } } });
  others = await Promise.all([stack.spawn('api'), stack.spawn('api')]);
}, 90_000);
afterAll(async () => {
  await Promise.all(others.map((api) => api.stop()));
  await stack?.close();
});

/** What an api process's /metrics says its inbox received, by notice type. */
async function inboxNotices(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const lines = [...text.matchAll(/^relay_inbox_notices\{([^}]*)\} (\d+)$/gm)];
  return Object.fromEntries(lines.map(([, labels, n]) => [/type="(\w+)"/.exec(labels!)![1]!, Number(n)]));
}

test('a job end reaches only the api process waiting for it: three api processes, one waited, the others hear nothing', async () => {
  const [waiting, idle] = others as [AppProcess, AppProcess];
  const urls = [waiting.ready.url!, idle.ready.url!, stack.api.url];
  const { key } = await stack.newKey();
  const before = await Promise.all(urls.map(inboxNotices));
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      postJson(`${waiting.ready.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: `lamp ${i}` }, key),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
  const after = await Promise.all(urls.map(inboxNotices));
  // the waiting process heard of each of its 12 jobs once; the two others (one of them this test's own) of none of them
  expect(Object.keys(after[0]!).sort()).toEqual(['completed', 'failed', 'partial', 'removed', 'started']);
  expect((after[0]!.completed ?? 0) - (before[0]!.completed ?? 0)).toBe(12);
  for (const [i, idleAfter] of after.slice(1).entries()) {
    const idleBefore = before[i + 1]!;
    expect(Object.keys(idleAfter).map((type) => (idleAfter[type] ?? 0) - (idleBefore[type] ?? 0))).toEqual([0, 0, 0, 0, 0]);
  }
});

test("BullMQ's own event stream, which no process reads, is never written", async () => {
  const { key } = await stack.newKey();
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      postJson(`${stack.api.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: `kite ${i}` }, key),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
  const redis = new Redis(stack.redis.url, { maxRetriesPerRequest: 1 });
  try {
    // 40 jobs through BullMQ's scripts as BullMQ ships them wrote hundreds of events (added, active,
    // progress, completed, ...); the relay's (packages/jobs/src/bull-events.ts) write none
    expect(await redis.exists(`${stack.env.REDIS_PREFIX}:bull:images:events`)).toBe(0);
    // and a Queue made elsewhere with BullMQ's own scripts would keep one stream node, not 10,000 events
    expect(await redis.hget(`${stack.env.REDIS_PREFIX}:bull:images:meta`, 'opts.maxLenEvents')).toBe('0');
  } finally {
    redis.disconnect();
  }
});

test("a notice lost between a job's end and its telling (a worker dying there) costs the waiter a look at the job, not its budget", async () => {
  const { key } = await stack.newKey();
  await stack.fault({ type: 'hold', api: 'images' });
  // a wait of 300 s: without the look it would end only there
  const answer = postJson(`${stack.api.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: 'lost' }, key, {
    Prefer: 'wait=300',
  });
  await waitFor(async () => (await stack.simStats()).holding === 1, 10_000, 'the upstream call held');
  // this process's inbox gone: the worker's notice finds no one to tell (an inbox is never made by a notice)
  const redis = new Redis(stack.redis.url, { maxRetriesPerRequest: 1 });
  const before = await inboxNotices(stack.api.url);
  try {
    const [inbox] = await redis.keys(`${stack.env.REDIS_PREFIX}:inbox:${process.pid}-*`);
    expect(inbox).toBeDefined();
    await redis.del(inbox!);
    expect(await stack.release()).toBe(1);
    const res = await answer;
    // answered with the image by looking at the job (waitRecheckMs)
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Array<{ size: string }> }).data[0]!.size).toBe('2048x2048');
    expect(await redis.exists(inbox!)).toBe(0);
    expect((await inboxNotices(stack.api.url)).completed).toBe(before.completed);
  } finally {
    redis.disconnect();
  }
});
