import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { repoRoot, waitFor, SOURCE_NODE_ARGS } from '@relay/testkit';
import { imageDimensions } from '@relay/simulator';
import { startStack, type Stack } from './stack.js';

/** `npm run batch`: prompts in, files and a manifest out, resumable after the CLI itself is killed. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack?.close());

interface Manifest {
  batch: string;
  status: string;
  files: Record<string, Array<{ path: string; bytes: number; sha256: string }>>;
  errors: Record<string, { status: number | null; code: string }>;
}

function cli(key: string, args: string[]): { child: ChildProcess; exited: Promise<{ code: number | null; err: string }> } {
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'apps/cli/src/batch.ts', ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', RELAY_URL: stack.url, RELAY_API_KEY: key, RELAY_DATA_DIR: join(tmpdir(), 'no-such-relay-data') },
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout.resume();
  // 'close', not 'exit': everything the CLI wrote to stderr has been read by then
  return { child, exited: new Promise((resolve) => child.on('close', (code) => resolve({ code, err }))) };
}

function checkFiles(dir: string, manifest: Manifest) {
  for (const files of Object.values(manifest.files)) {
    for (const file of files) {
      const bytes = readFileSync(join(dir, file.path));
      expect(bytes.length).toBe(file.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    }
  }
}

test('a prompts file in, every image and a manifest out; a line the relay refuses is in the manifest as an error', async () => {
  const { key } = await stack.newKey();
  const dir = mkdtempSync(join(tmpdir(), 'relay-batch-'));
  writeFileSync(join(dir, 'prompts.txt'), 'a red kite\n\na blue kite\na green kite\n');
  const { exited } = cli(key, [
    'run',
    join(dir, 'prompts.txt'),
    '--model',
    'vendor-gen-4-0-250828',
    '--n',
    '2',
    '--quiet',
    '--out',
    join(dir, 'out'),
  ]);
  const { code, err } = await exited;
  expect(code, err).toBe(0);
  const manifest = JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8')) as Manifest;
  expect(manifest.status).toBe('completed');
  expect(Object.keys(manifest.files).sort()).toEqual(['line-00001', 'line-00003', 'line-00004']);
  expect(Object.values(manifest.files).every((f) => f.length === 2)).toBe(true);
  checkFiles(join(dir, 'out'), manifest);
  expect(imageDimensions(readFileSync(join(dir, 'out', manifest.files['line-00001']![0]!.path)))).toEqual({ width: 2048, height: 2048 });

  // speech, and a text the relay refuses (an unknown voice)
  writeFileSync(join(dir, 'lines.txt'), 'Hello from the batch CLI.\nGoodbye.\n');
  const speech = cli(key, [
    'run',
    join(dir, 'lines.txt'),
    '--model',
    'vendor-2.5-flash-preview-tts',
    '--voice',
    'Nobody',
    '--quiet',
    '--out',
    join(dir, 'speech'),
  ]);
  // every line failed: exit 1, the reason named where the user looks, once for both lines
  const ended = await speech.exited;
  expect(ended.code).toBe(1);
  expect(ended.err).toMatch(/^ {2}2 lines failed \(400 INVALID_ARGUMENT\): .*unknown voice "Nobody".* \(line-00001, line-00002\)$/m);
  const refused = JSON.parse(readFileSync(join(dir, 'speech', 'manifest.json'), 'utf8')) as Manifest;
  expect(refused.errors).toEqual({
    'line-00001': { status: 400, code: 'INVALID_ARGUMENT', message: expect.stringMatching(/voice/) },
    'line-00002': expect.objectContaining({ status: 400 }),
  });
  const voiced = cli(key, [
    'run',
    join(dir, 'lines.txt'),
    '--model',
    'vendor-2.5-flash-preview-tts',
    '--voice',
    'Puck',
    '--quiet',
    '--out',
    join(dir, 'voiced'),
  ]);
  expect((await voiced.exited).code).toBe(0);
  const audio = JSON.parse(readFileSync(join(dir, 'voiced', 'manifest.json'), 'utf8')) as Manifest;
  expect(
    Object.values(audio.files)
      .flat()
      .map((f) => f.path.endsWith('.wav')),
  ).toEqual([true, true]);
  checkFiles(join(dir, 'voiced'), audio);
}, 120_000);

test('killed halfway, resume fetches the rest: every file once, the manifest complete', async () => {
  const { key } = await stack.newKey();
  const dir = mkdtempSync(join(tmpdir(), 'relay-batch-'));
  writeFileSync(join(dir, 'prompts.txt'), Array.from({ length: 6 }, (_, i) => `kite number ${i}`).join('\n'));
  await stack.fault({ type: 'hold', api: 'images', times: 2 });
  const out = join(dir, 'out');
  const first = cli(key, ['run', join(dir, 'prompts.txt'), '--model', 'vendor-gen-4-0-250828', '--quiet', '--out', out]);
  // the lines not held finish and are fetched; then the CLI dies
  await waitFor(
    () =>
      existsSync(join(out, 'manifest.json')) &&
      Object.keys((JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest).files).length >= 4,
    60_000,
    'four lines fetched',
  );
  first.child.kill('SIGKILL');
  await first.exited;
  const { batchId } = JSON.parse(readFileSync(join(out, 'batch.json'), 'utf8')) as { batchId: string };
  await waitFor(async () => (await stack.simStats()).holding === 2, 30_000, 'the held lines');
  await stack.release();
  const resumed = cli(key, ['resume', batchId, '--quiet', '--out', out]);
  const { code, err } = await resumed.exited;
  expect(code, err).toBe(0);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest;
  expect(Object.keys(manifest.files)).toHaveLength(6);
  checkFiles(out, manifest);
  expect(readdirSync(out).filter((f) => f.endsWith('.jpeg'))).toHaveLength(6);
}, 120_000);
