import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, expect, test } from 'vitest';
import { freePort, portAnswers, repoRoot, startRedis, waitFor } from '@relay/testkit';

/**
 * `npm start` (apps/embedded) as a newcomer runs it: every process it starts carries its data
 * directory in its environment, so what it leaves behind can be found by scanning /proc.
 */
const redis = await startRedis();
afterAll(() => redis.stop());

/** Pids of live processes whose environment names this data directory (the launcher's children inherit it). */
function processesOf(dataDir: string): number[] {
  const mark = `RELAY_DATA_DIR=${dataDir}\0`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(mark);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

async function launch(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'relay-start-'));
  const ports = { PORT: await freePort(), SIM_PORT: await freePort(), EMBEDDED_S3_PORT: await freePort() };
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--conditions=relay-source', '--import', 'tsx', 'apps/embedded/src/main.ts'], {
    cwd: repoRoot,
    // a prefix of its own: the shared Redis may hold what earlier runs (or a developer's npm start) left
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      REDIS_URL: redis.url,
      REDIS_PREFIX: `start-${randomUUID().slice(0, 8)}`,
      RELAY_DATA_DIR: dataDir,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, dataDir, ports, exited, output: () => output };
}

test('a start that fails half-way (api port taken) stops everything it started and says why', async () => {
  const blocker = createServer();
  const taken = await freePort();
  await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
  try {
    const run = await launch({ PORT: String(taken) });
    expect(await run.exited).not.toBe(0);
    expect(run.output()).toMatch(/EADDRINUSE|address already in use/);
    // the simulator, the embedded store and the worker had started: none of them is left
    await waitFor(() => processesOf(run.dataDir).length === 0, 15_000, 'no process left behind');
    expect(await portAnswers(run.ports.SIM_PORT)).toBe(false);
    expect(await portAnswers(run.ports.EMBEDDED_S3_PORT)).toBe(false);
    expect(existsSync(join(run.dataDir, 'relay.json'))).toBe(false);
  } finally {
    blocker.close();
  }
}, 90_000);

test('ADMIN_TOKEN= (empty) means unset; the token is kept in the data dir; killing the launcher takes its children down', async () => {
  const run = await launch({ ADMIN_TOKEN: '' });
  await waitFor(() => run.output().includes('admin token:'), 60_000, 'the banner');
  const token = readFileSync(join(run.dataDir, 'admin-token'), 'utf8').trim();
  expect(run.output()).toContain(`admin token:  ${token}`);
  // the banner is the last thing printed: the apps log only warnings here
  expect(run.output().trimEnd().endsWith('================================================================================')).toBe(true);
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

  // not even a chance to clean up: the children notice their parent is gone and stop themselves
  run.child.kill('SIGKILL');
  await run.exited;
  await waitFor(() => processesOf(run.dataDir).length === 0, 30_000, 'children gone with their parent');
  expect(await portAnswers(run.ports.PORT)).toBe(false);
}, 120_000);
