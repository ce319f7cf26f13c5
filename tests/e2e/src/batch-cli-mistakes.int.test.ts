import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '@relay/testkit';
import { startStack, type Stack } from './stack.js';

/**
 * The batch CLI's answers to what a new user types wrong in the first hour (issue 34): a typo in
 * an option, a model the relay does not have (in --model or in batch lines), a batch whose lines fail. Each is the real CLI,
 * spawned with the user's arguments, judged by its output and exit code once it has exited.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack?.close());

/** `how` runs the CLI as typed in the checkout (`npm run batch -- ...`) or as node runs its source (the same hints, faster). */
const batch = (args: string[], env: Record<string, string>, how: 'npm' | 'node' = 'node') =>
  runCli({ script: 'batch', source: 'apps/cli/src/batch.ts' }, args, { RELAY_DATA_DIR: join(tmpdir(), 'no-such-relay-data'), ...env }, how);

/** A relay stand-in that answers nothing useful and counts what reaches it: a mistake in the command line must send nothing. */
async function recorder() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

const noStack = (err: string) => {
  expect(err).not.toMatch(/^\s+at /m);
  expect(err).not.toMatch(/Error\b|ERR_/);
};

test('npm run batch -- --modle vendor-gen-4-0-250828 run prompts.txt: the option meant and the usage in a line each, exit 2, nothing sent', async () => {
  const relay = await recorder();
  try {
    const dir = mkdtempSync(join(tmpdir(), 'relay-batch-typo-'));
    const prompts = join(dir, 'prompts.txt');
    writeFileSync(prompts, 'a red kite\n');
    // prompts in a file named .jsonl, and one with no line at all
    writeFileSync(join(dir, 'prompts.jsonl'), 'a red kite\n');
    writeFileSync(join(dir, 'empty.jsonl'), '\n');
    const env = { RELAY_URL: relay.url, RELAY_API_KEY: 'rk_any' };

    const typo = await batch(['--modle', 'vendor-gen-4-0-250828', 'run', prompts], env, 'npm');
    expect(typo.code).toBe(2);
    expect(typo.err).toBe(
      'unknown option --modle; did you mean --model?\n' +
        'usage: npm run batch -- run <prompts.txt | lines.jsonl> [options]\n' +
        'see: npm run batch -- --help\n',
    );

    // every other kind of bad argument: one line saying what is wrong, the usage, exit 2
    const cases: Array<[string[], string]> = [
      [['run', prompts, '--model'], 'option --model needs a value'],
      [['run', prompts, '--model', '--quiet'], "option --model needs a value (to give it '--quiet', write --model=--quiet)"],
      [['run', prompts, '-model', 'vendor-gen-4-0-250828'], 'unknown option -model; did you mean --model?'],
      [['run', prompts, '--quiet=yes'], 'option --quiet takes no value'],
      [['run', prompts, '--n', 'two'], "--n takes a whole number, not 'two'"],
      [['run', join(dir, 'missing.txt')], `no such file: ${join(dir, 'missing.txt')} (paths are relative to the folder npm ran in)`],
      [['status', 'batch_1', 'batch_2'], "'status' takes one <batch_id>; unexpected 'batch_2'"],
      [['resume'], "'resume' needs <batch_id>"],
      [['rn', prompts], "unknown command 'rn'; did you mean 'run'?"],
      [[prompts], `unknown command '${prompts}'; did you mean 'run ${prompts}'?`],
      [
        ['run', join(dir, 'prompts.jsonl')],
        `${join(dir, 'prompts.jsonl')}: line 1 is not JSON (Unexpected token 'a', "a red kite" is not valid JSON); ` +
          'a .jsonl file holds OpenAI batch lines, {"custom_id", "method": "POST", "url", "body"} each; one prompt per line goes in a .txt file',
      ],
      [
        ['run', join(dir, 'empty.jsonl')],
        `${join(dir, 'empty.jsonl')} holds no request; a .jsonl file holds OpenAI batch lines, {"custom_id", "method": "POST", "url", "body"} each`,
      ],
    ];
    for (const [args, first] of cases) {
      const { code, err } = await batch(args, env);
      expect(code, err).toBe(2);
      const lines = err.trimEnd().split('\n');
      expect(lines[0], args.join(' ')).toBe(first);
      expect(lines.at(-1)).toBe('see: npm run batch -- --help');
      noStack(err);
    }
    expect(relay.seen).toEqual([]);
  } finally {
    relay.close();
  }
}, 120_000);

test('a model the relay does not list is refused before anything is uploaded, with the one meant and every model there is (exit 2)', async () => {
  const { key } = await stack.newKey();
  const dir = mkdtempSync(join(tmpdir(), 'relay-batch-model-'));
  writeFileSync(join(dir, 'prompts.txt'), 'a red kite\na blue kite\na green kite\n');
  const { code, err } = await batch(
    ['run', join(dir, 'prompts.txt'), '--model', 'vendor-gen-4-0', '--quiet', '--out', join(dir, 'out')],
    { RELAY_URL: stack.url, RELAY_API_KEY: key },
    'npm',
  );
  expect(code, err).toBe(2);
  const lines = err.trimEnd().split('\n');
  expect(lines[0]).toBe("the relay has no model 'vendor-gen-4-0'; did you mean 'vendor-gen-4-0-250828'?");
  expect(lines[1]).toMatch(/^its models: .*\bvendor-gen-4-0-250828\b/);
  expect(lines[1]).toContain('vendor-2.5-flash-preview-tts');
  expect(lines.slice(2)).toEqual(['usage: npm run batch -- run <prompts.txt | lines.jsonl> [options]', 'see: npm run batch -- --help']);
  noStack(err);

  // batch lines of one's own: every model they name is checked, an image body's as a Gemini path's
  const line = (id: string, url: string, body: object) => JSON.stringify({ custom_id: id, method: 'POST', url, body });
  const image = (id: string, model: string) => line(id, '/v1/images/generations', { model, prompt: `kite ${id}` });
  writeFileSync(
    join(dir, 'lines.jsonl'),
    [image('good', 'vendor-gen-4-0-250828'), ...[1, 2, 3, 4].map((i) => image(`typo-${i}`, 'vendor-gen-4-0-25082'))].join('\n'),
  );
  const jsonl = await batch(['run', join(dir, 'lines.jsonl'), '--quiet', '--out', join(dir, 'out')], {
    RELAY_URL: stack.url,
    RELAY_API_KEY: key,
  });
  expect(jsonl.code, jsonl.err).toBe(2);
  const told = jsonl.err.trimEnd().split('\n');
  expect(told[0]).toBe(
    "the relay has no model 'vendor-gen-4-0-25082' (lines 2, 3, 4 and 1 more of lines.jsonl); did you mean 'vendor-gen-4-0-250828'?",
  );
  expect(told[1]).toMatch(/^its models: .*\bvendor-gen-4-0-250828\b/);
  noStack(jsonl.err);
  const speech = { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { responseModalities: ['AUDIO'] } };
  writeFileSync(join(dir, 'speech.jsonl'), line('s', '/v1beta/models/vendor-2.5-flash-tts:generateContent', speech));
  const gemini = await batch(['run', join(dir, 'speech.jsonl'), '--quiet'], { RELAY_URL: stack.url, RELAY_API_KEY: key });
  expect(gemini.code, gemini.err).toBe(2);
  expect(gemini.err.split('\n')[0]).toMatch(/^the relay has no model 'vendor-2\.5-flash-tts' \(line 1 of speech\.jsonl\); did you mean '/);

  // nothing was uploaded, no batch made, no folder written
  const list = async (path: string) =>
    ((await (await fetch(`${stack.url}/v1/${path}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: unknown[] }).data;
  expect(await list('files')).toEqual([]);
  expect(await list('batches')).toEqual([]);
  expect(readdirSync(dir).sort()).toEqual(['lines.jsonl', 'prompts.txt', 'speech.jsonl']);
}, 60_000);

test('a batch that ends with failed lines tells each reason once, with how many lines and which, and exits 1', async () => {
  const { key } = await stack.newKey();
  const dir = mkdtempSync(join(tmpdir(), 'relay-batch-failed-'));
  const line = (id: string, body: object) =>
    JSON.stringify({
      custom_id: id,
      method: 'POST',
      url: '/v1/images/generations',
      body: { model: 'vendor-gen-4-0-250828', prompt: `kite ${id}`, ...body },
    });
  writeFileSync(
    join(dir, 'lines.jsonl'),
    [
      line('good', {}),
      ...['small-1', 'small-2', 'small-3', 'small-4'].map((id) => line(id, { size: '13x13' })),
      line('many', { n: 99 }),
    ].join('\n'),
  );
  const out = join(dir, 'out');
  const { code, err } = await batch(['run', join(dir, 'lines.jsonl'), '--quiet', '--out', out], {
    RELAY_URL: stack.url,
    RELAY_API_KEY: key,
  });
  expect(code, err).toBe(1);
  const lines = err.trimEnd().split('\n');
  const end = lines.findIndex((l) => / completed: 1 done, 5 failed of 6; /.test(l));
  expect(end, err).toBeGreaterThan(-1);
  expect(lines.slice(end + 1)).toEqual([
    expect.stringMatching(
      /^ {2}4 lines failed \(400 invalid_request\): size 13x13 has 169 pixels; .{10,} \(small-1, small-2, small-3 and 1 more\)$/,
    ),
    '  1 line failed (400 invalid_request): n must be within [1, 10] (many)',
  ]);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { errors: Record<string, unknown> };
  expect(Object.keys(manifest.errors).sort()).toEqual(['many', 'small-1', 'small-2', 'small-3', 'small-4']);
}, 120_000);

test('a batch whose input does not validate says so and why, with no resume line and no folder, and exits 1', async () => {
  const { key } = await stack.newKey();
  const dir = mkdtempSync(join(tmpdir(), 'relay-batch-invalid-'));
  const line = JSON.stringify({
    custom_id: 'same',
    method: 'POST',
    url: '/v1/images/generations',
    body: { model: 'vendor-gen-4-0-250828', prompt: 'kite' },
  });
  writeFileSync(join(dir, 'lines.jsonl'), Array.from({ length: 13 }, () => line).join('\n'));
  const { code, err } = await batch(['run', join(dir, 'lines.jsonl'), '--quiet', '--out', join(dir, 'out')], {
    RELAY_URL: stack.url,
    RELAY_API_KEY: key,
  });
  expect(code, err).toBe(1);
  const lines = err.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^batch batch_\w+ failed: its input did not validate \(13 lines\); nothing ran, nothing was charged$/);
  const id = /^batch (batch_\w+)/.exec(lines[0]!)![1];
  expect(lines.slice(1, 11)).toEqual(
    Array.from({ length: 10 }, (_, i) => `  line ${i + 2}: custom_id "same" is used by an earlier line; each line needs its own`),
  );
  expect(lines.slice(11)).toEqual([`  ... and 2 more: npm run batch -- status ${id} lists them`]);
  expect(err).not.toMatch(/resume/);
  noStack(err);
  expect(readdirSync(dir)).toEqual(['lines.jsonl']);
}, 60_000);
