import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ListObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, expect, onTestFinished, test } from 'vitest';
import { freePort, portAnswers, startRedis, waitFor } from '@relay/testkit';
import { launch, noneLeft, processesOf } from './launch.js';

/** `npm start` (apps/embedded) as a newcomer runs it (launch.ts). */
const redis = await startRedis();
afterAll(() => redis.close());

/** What binds a port in npm start, the variable that moves it, and who says so (the launcher repeats an app's line). */
const PORTS = [
  ['the embedded store', 'EMBEDDED_S3_PORT', ''],
  ['the simulator', 'SIM_PORT', 'relay: the simulator could not start: '],
  ['the worker (its metrics)', 'METRICS_PORT', 'relay: the worker could not start: '],
  ['the api', 'PORT', 'relay: the api could not start: '],
] as const;

test.each(PORTS)(
  'a port taken (%s) stops what had started and says which variable to change, in one line',
  async (_, variable, said) => {
    const blocker = createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    const run = await launch(redis.url, { [variable]: String(taken) });
    try {
      expect(await run.exited).toBe(1);
      const lastLine = run.output().trimEnd().split('\n').at(-1);
      expect(lastLine).toBe(
        `${said}cannot listen on 127.0.0.1:${taken}: address already in use ` +
          `(another relay, or another program, listens there); set ${variable} to a free port (or stop what holds it)`,
      );
      expect(run.output()).not.toMatch(/Unhandled 'error' event|\n\s+at /);
      // whatever had started (the store, the simulator, the worker) is stopped: no process, no port left
      await waitFor(() => noneLeft(run.dataDir), 15_000, 'no process left behind');
      for (const [name, port] of Object.entries(run.ports)) if (name !== variable) expect(await portAnswers(port), name).toBe(false);
      expect(existsSync(join(run.dataDir, 'relay.json'))).toBe(false);
    } finally {
      blocker.close();
      await run.remove();
    }
  },
  90_000,
);

test('ADMIN_TOKEN= (empty) means unset; the token is kept in the data dir; killing the launcher takes its children down', async () => {
  const run = await launch(redis.url, { ADMIN_TOKEN: '' });
  onTestFinished(() => run.remove());
  await waitFor(() => run.output().includes('admin token:'), 60_000, 'the banner');
  const token = readFileSync(join(run.dataDir, 'admin-token'), 'utf8').trim();
  expect(run.output()).toContain(`admin token:  ${token}`);
  // the banner is the last thing printed: the apps log only warnings here
  expect(run.output().trimEnd().endsWith('================================================================================')).toBe(true);
  // the Redis was running before it: the banner says it is not the launcher's, and what it held under the prefix
  expect(run.output()).toContain(`Redis:        ${redis.url} (already running: NOT started by npm start, may be shared)`);
  expect(run.output()).toContain(`it held nothing under the prefix "${run.prefix}" before this start`);
  const running = JSON.parse(readFileSync(join(run.dataDir, 'relay.json'), 'utf8')) as { url: string; adminToken: string };
  expect(running.adminToken).toBe(token);
  expect((await fetch(`${running.url}/admin/accounts`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  // channels can be added at once: the channel secret is made and kept beside the token
  expect(readFileSync(join(run.dataDir, 'channel-secret'), 'utf8').trim()).toMatch(/^[\w-]{32}$/);
  const channel = await fetch(`${running.url}/admin/channels`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'second', upstream: 'ark', baseUrl: `http://127.0.0.1:${run.ports.SIM_PORT}/api/v3`, apiKey: 'sim-key' }),
  });
  expect(channel.status).toBe(201);
  expect(processesOf(run.dataDir).length).toBeGreaterThanOrEqual(4); // launcher, simulator, worker, api

  // the embedded store answers only the relay: unsigned requests and the public s3rver key are refused
  const storeUrl = `http://127.0.0.1:${run.ports.EMBEDDED_S3_PORT}`;
  expect((await fetch(`${storeUrl}/relay?list-type=2`)).status).toBe(403);
  expect((await fetch(`${storeUrl}/relay/files/planted.jpeg`, { method: 'PUT', body: 'not an image' })).status).toBe(403);
  const publicKey = new S3Client({
    endpoint: storeUrl,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await expect(publicKey.send(new ListObjectsCommand({ Bucket: 'relay' }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  // while the relay itself stores and serves files
  const demo = JSON.parse(readFileSync(join(run.dataDir, 'demo-key.json'), 'utf8')) as { key: string };
  // the console's playground gets the demo key (behind the admin token), its channels page the simulator
  const asAdmin = { headers: { authorization: `Bearer ${token}` } };
  expect(await (await fetch(`${running.url}/admin/demo-key`, asAdmin)).json()).toEqual({ key: demo.key });
  expect((await fetch(`${running.url}/admin/demo-key`)).status).toBe(401);
  const { channels } = (await (await fetch(`${running.url}/admin/channels`, asAdmin)).json()) as {
    channels: Array<{ id: string; simulated: boolean }>;
  };
  expect(channels.filter((c) => c.id !== 'second').every((c) => c.simulated)).toBe(true);
  const made = await fetch(`${running.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse' }),
  });
  expect(made.status).toBe(200);
  const { data } = (await made.json()) as { data: Array<{ url: string }> };
  const file = await fetch(data[0]!.url);
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toMatch(/^image\//);
  // read whole, as a client does: a body left unread holds its connection open, and the api's
  // graceful shutdown rightly waits its grace period for a response still being written
  expect((await file.arrayBuffer()).byteLength).toBe(Number(file.headers.get('content-length')));

  // not even a chance to clean up: the children notice their parent is gone and stop themselves
  run.child.kill('SIGKILL');
  await run.exited;
  await waitFor(() => noneLeft(run.dataDir), 30_000, 'children gone with their parent');
  expect(await portAnswers(run.ports.PORT)).toBe(false);
}, 120_000);
