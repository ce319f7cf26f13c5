import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate, settlementsPerJob } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

test('async jobs and their results survive an api process killed and started again', async () => {
  const { key, accountId } = await stack.newKey();
  const first = await stack.spawn('api');
  await stack.fault({ type: 'latency', api: 'images', ms: 1_000, times: 5 });
  const accepted = await Promise.all(
    Array.from({ length: 5 }, () => generate(stack, key, undefined, { Prefer: 'respond-async' }, first.ready.url)),
  );
  const jobIds = await Promise.all(
    accepted.map(async (res) => {
      expect(res.status).toBe(202);
      expect(res.headers.get('preference-applied')).toBe('respond-async');
      const job = (await res.json()) as { id: string; status: string; links: { self: string } };
      expect(res.headers.get('location')).toBe(`/v1/jobs/${job.id}`);
      expect(job.links.self).toBe(`/v1/jobs/${job.id}`);
      return job.id;
    }),
  );
  await first.stop('SIGKILL');

  const second = await stack.spawn('api');
  for (const jobId of jobIds) {
    const answer = await finalAnswer(second.ready.url!, key, jobId);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(1);
  }
  const settled = await settlementsPerJob(stack, accountId);
  expect([...settled.keys()].sort()).toEqual([...jobIds].sort());
  expect([...settled.values()].every((n) => n === 1)).toBe(true);

  // another account's key cannot see these jobs
  const other = await stack.newKey();
  const res = await fetch(`${second.ready.url}/v1/jobs/${jobIds[0]}`, { headers: { authorization: `Bearer ${other.key}` } });
  expect(res.status).toBe(404);
}, 60_000);
