import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort, repoRoot, waitFor, SOURCE_NODE_ARGS } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

/** Webhooks of async jobs, received by a real HTTP endpoint and verified with the Standard Webhooks library. */
interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}
const received: Received[] = [];
/** Statuses the receiver answers with, one per request, then 200. */
const answers: number[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    received.push({ headers: req.headers, body });
    res.statusCode = answers.shift() ?? 200;
    res.end();
  });
});
let port: number;
let stack: Stack;
beforeAll(async () => {
  port = await freePort();
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  stack = await startStack({ allow: [`127.0.0.1:${port}`], tuning: { webhooks: { backoffMs: 50 } } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  receiver.close();
});

/** The admin CLI as a subprocess against this stack, answering in JSON (`--json`, for scripts); its stdout. */
const cli = (...args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'apps/api/src/admin/cli.ts', ...args, '--json'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', ADMIN_URL: stack.url, ADMIN_TOKEN: stack.adminToken },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`cli exited ${code}`))));
  });

const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse, announced' };
const json = async <T>(res: Promise<Response>) => (await res).json() as Promise<T>;

test('an async job announces its end, signed; a failing endpoint is retried; the log shows each attempt', async () => {
  const { key, accountId } = await stack.newKey();
  const created = await stack.admin('POST', `/accounts/${accountId}/webhooks`, {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    description: 'ci',
  });
  expect(created.status).toBe(201);
  const endpoint = (await created.json()) as { id: string; secret: string; events: string[] };
  expect(endpoint.secret).toMatch(/^whsec_/);
  expect(endpoint.events).toEqual([
    'job.completed',
    'job.failed',
    'job.cancelled',
    'batch.completed',
    'batch.failed',
    'batch.cancelled',
    'batch.expired',
  ]);
  // the secret is shown once: the listing never carries it
  const listed = await json<{ webhooks: Array<Record<string, unknown>> }>(stack.admin('GET', `/accounts/${accountId}/webhooks`));
  expect(listed.webhooks.map((w) => w.id)).toEqual([endpoint.id]);
  expect(JSON.stringify(listed)).not.toContain(endpoint.secret);

  answers.push(500, 503);
  const before = received.length;
  const accepted = await postJson(`${stack.url}/v1/images/generations`, IMAGE, key, { Prefer: 'respond-async' });
  const job = (await accepted.json()) as { id: string };
  await waitFor(() => received.length >= before + 3, 30_000, 'the delivery after two failures');
  const attempts = received.slice(before);
  // the same message each time: one id, and each attempt verifies with the endpoint's secret
  expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
  const verifier = new Webhook(endpoint.secret);
  for (const attempt of attempts) {
    const payload = verifier.verify(attempt.body, attempt.headers as Record<string, string>) as {
      type: string;
      data: { id: string; status: string };
    };
    expect(payload).toMatchObject({ type: 'job.completed', data: { id: job.id, object: 'relay.job', status: 'completed' } });
  }
  // tampering is caught by the receiver's check
  expect(() => verifier.verify(attempts[0]!.body.replace('completed', 'failed'), attempts[0]!.headers as Record<string, string>)).toThrow();
  const log = await json<{ deliveries: Array<{ status: number; attempt: number; event: string }> }>(
    stack.admin('GET', `/webhooks/${endpoint.id}/deliveries`),
  );
  expect(log.deliveries.map((d) => [d.attempt, d.status])).toEqual([
    [3, 200],
    [2, 503],
    [1, 500],
  ]);

  // a synchronous caller got its answer already: no webhook for it
  expect((await postJson(`${stack.url}/v1/images/generations`, IMAGE, key)).status).toBe(200);
  // a job the upstream refuses for good announces its failure
  await stack.fault({ type: 'error', api: 'images', status: 400, code: 'InputTextSensitiveContentDetected' });
  const refused = (await (
    await postJson(`${stack.url}/v1/images/generations`, { ...IMAGE, prompt: 'refused' }, key, { Prefer: 'respond-async' })
  ).json()) as { id: string };
  await waitFor(() => received.some((r) => r.body.includes(refused.id)), 30_000, 'the failure announced');
  const failure = JSON.parse(received.find((r) => r.body.includes(refused.id))!.body) as unknown;
  expect(failure).toMatchObject({ type: 'job.failed', data: { id: refused.id, status: 'failed', error: { code: 'content_rejected' } } });
  const announced = new Set(received.slice(before).map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id));
  expect([...announced].sort()).toEqual([job.id, refused.id].sort());
});

test('batches announce their end: batch.completed with the output file, batch.failed for an input that does not validate', async () => {
  const { key, accountId } = await stack.newKey();
  const created = await stack.admin('POST', `/accounts/${accountId}/webhooks`, {
    url: `http://127.0.0.1:${port}/batches`,
    events: ['batch.completed', 'batch.failed'],
  });
  const endpoint = (await created.json()) as { secret: string };
  const client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 });
  const line = JSON.stringify({ custom_id: 'one', method: 'POST', url: '/v1/images/generations', body: IMAGE });
  const good = await client.files.create({ file: await toFile(Buffer.from(`${line}\n`), 'good.jsonl'), purpose: 'batch' });
  const bad = await client.files.create({ file: await toFile(Buffer.from('{not json\n'), 'bad.jsonl'), purpose: 'batch' });
  const done = await client.batches.create({ input_file_id: good.id, endpoint: '/v1/images/generations', completion_window: '24h' });
  const failed = await client.batches.create({ input_file_id: bad.id, endpoint: '/v1/images/generations', completion_window: '24h' });
  const verifier = new Webhook(endpoint.secret);
  const announced = async (id: string) => {
    const hit = await waitFor(() => received.find((r) => r.body.includes(id)), 30_000, `${id} announced`);
    return verifier.verify(hit.body, hit.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
  };
  const completed = await announced(done.id);
  expect(completed).toMatchObject({ type: 'batch.completed', data: { id: done.id, object: 'batch', status: 'completed' } });
  expect(completed.data.output_file_id).toBe((await client.batches.retrieve(done.id)).output_file_id);
  expect(await announced(failed.id)).toMatchObject({ type: 'batch.failed', data: { id: failed.id, object: 'batch', status: 'failed' } });
});

test('an endpoint inside the network is refused at creation; removing one stops its deliveries', async () => {
  const { accountId } = await stack.newKey();
  for (const url of ['http://169.254.169.254/latest/meta-data', `http://127.0.0.1:${await freePort()}/`, 'ftp://example.com/']) {
    const res = await stack.admin('POST', `/accounts/${accountId}/webhooks`, { url });
    expect(res.status, url).toBe(400);
  }
  // the CLI drives the same routes
  const added = await cli('webhooks', 'add', accountId, `http://127.0.0.1:${port}/x`, '--events', 'job.failed');
  const endpoint = JSON.parse(added) as { id: string; events: string[]; secret: string };
  expect(endpoint.events).toEqual(['job.failed']);
  expect(JSON.parse(await cli('webhooks', 'list', accountId))).toEqual({ webhooks: [expect.objectContaining({ id: endpoint.id })] });
  expect(JSON.parse(await cli('webhooks', 'deliveries', endpoint.id))).toEqual({ deliveries: [] });
  expect((await stack.admin('DELETE', `/webhooks/${endpoint.id}`)).status).toBe(200);
  expect((await stack.admin('GET', `/webhooks/${endpoint.id}/deliveries`)).status).toBe(404);
  expect((await stack.admin('DELETE', `/webhooks/wh_nope`)).status).toBe(404);
  expect((await stack.admin('POST', '/accounts/acct_0000000000000000/webhooks', { url: `http://127.0.0.1:${port}/` })).status).toBe(404);
});
