import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort, repoRoot, SOURCE_NODE_ARGS } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let key: string;
let keyId: string;
beforeAll(async () => {
  stack = await startStack({ tuning: { api: { bodyLimitBytes: 1024 * 1024 } } });
  ({ key, keyId } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const endpoint = () => `${stack.url}/v1/images/generations`;
const valid = { model: 'vendor-gen-4-0-250828', prompt: 'a cat' };

async function expectOpenAIError(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as { error: { message: string; type: string; code: string; param: unknown } };
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

describe('401 for keys that are missing, wrong or revoked', () => {
  test('missing', async () => {
    const error = await expectOpenAIError(await postJson(endpoint(), valid), 401);
    expect(error.type).toBe('authentication_error');
  });
  test('wrong', async () => {
    await expectOpenAIError(await postJson(endpoint(), valid, 'rk_not-a-real-key'), 401);
  });
  test('not a Bearer credential', async () => {
    await expectOpenAIError(await postJson(endpoint(), valid, undefined, { authorization: `Basic ${key}` }), 401);
  });
  test('revoked', async () => {
    const { key: doomed, keyId: doomedId } = await stack.newKey();
    expect((await postJson(endpoint(), valid, doomed)).status).toBe(200);
    expect((await stack.admin('DELETE', `/keys/${doomedId}`)).status).toBe(200);
    await expectOpenAIError(await postJson(endpoint(), valid, doomed), 401);
  });
  test('auth comes before the body is even read', async () => {
    await expectOpenAIError(await postJson(endpoint(), '{broken', 'rk_wrong'), 401);
  });
});

describe('junk bodies get clear 4xx answers, never a 500', () => {
  const send = (body: string | Buffer, headers: Record<string, string>) =>
    fetch(endpoint(), { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body });

  test.each<[string, string | Buffer, Record<string, string>, number]>([
    ['not JSON', '{"model": "x",', { 'content-type': 'application/json' }, 400],
    ['JSON null', 'null', { 'content-type': 'application/json' }, 400],
    ['a JSON array', '[]', { 'content-type': 'application/json' }, 400],
    ['a JSON string', '"hello"', { 'content-type': 'application/json' }, 400],
    ['an empty body', '', { 'content-type': 'application/json' }, 400],
    ['text/plain', JSON.stringify(valid), { 'content-type': 'text/plain' }, 415],
    ['form encoded', 'model=x&prompt=y', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
    ['no content type', JSON.stringify(valid), {}, 415],
    // RFC 8259 8.1: JSON between systems is UTF-8
    ['a UTF-16 charset', JSON.stringify(valid), { 'content-type': 'application/json; charset=utf-16' }, 415],
    ['an unknown charset', JSON.stringify(valid), { 'content-type': 'application/json; charset=klingon' }, 415],
    ['an unknown content encoding', JSON.stringify(valid), { 'content-type': 'application/json', 'content-encoding': 'br2' }, 415],
    ['gzip that is not gzip', 'not gzip at all', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 400],
    [
      'a body over the limit',
      JSON.stringify({ ...valid, prompt: 'x'.repeat(2 * 1024 * 1024) }),
      { 'content-type': 'application/json' },
      413,
    ],
    ['types all wrong', JSON.stringify({ model: { $gt: '' }, prompt: ['a'] }), { 'content-type': 'application/json' }, 400],
    [
      'deep nesting',
      `{"model":"x","prompt":"y","sequential_image_generation_options":${'{"a":'.repeat(500)}1${'}'.repeat(500)}}`,
      { 'content-type': 'application/json' },
      400,
    ],
  ])('%s', async (_label, body, headers, status) => {
    await expectOpenAIError(await send(body, headers), status);
  });

  test('a gzipped valid body is accepted', async () => {
    const res = await send(gzipSync(JSON.stringify(valid)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
  });

  test('every broken rule names its param', async () => {
    const error = await expectOpenAIError(await postJson(endpoint(), { ...valid, size: '9000x9000' }, key), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'size', code: 'invalid_request' });
    const typo = await expectOpenAIError(await postJson(endpoint(), { ...valid, watermrk: false }, key), 400);
    expect(typo.param).toBe('watermrk');
    expect(typo.message).toMatch(/unknown field/);
  });

  test('unknown routes and methods answer 404 in the same dialect, naming the nearest route and /docs', async () => {
    await expectOpenAIError(await fetch(`${stack.url}/v1/images/variations`, { method: 'POST' }), 404);
    expect((await expectOpenAIError(await fetch(endpoint()), 404)).message).toBe(
      'no such route: GET /v1/images/generations; did you mean POST /v1/images/generations? Every route is listed at /docs',
    );
    const typo = await expectOpenAIError(await postJson(`${stack.url}/v1/images/generate`, valid, key), 404);
    expect(typo.message).toBe(
      'no such route: POST /v1/images/generate; did you mean POST /v1/images/generations? Every route is listed at /docs',
    );
    // an id in the path is no typo: the route around it is found
    expect((await expectOpenAIError(await fetch(`${stack.url}/v1/batches/batch_abc/reslts`), 404)).message).toMatch(
      /did you mean GET \/v1\/batches\/\{batchId\}\/results\?/,
    );
    expect((await expectOpenAIError(await fetch(`${stack.url}/nothing-like-it-at-all`), 404)).message).toBe(
      'no such route: GET /nothing-like-it-at-all; every route is listed at /docs',
    );
    // under Google's paths, Google's error shape
    const google = await fetch(`${stack.url}/v1beta/modells`, { headers: { 'x-goog-api-key': key } });
    expect(google.status).toBe(404);
    expect(((await google.json()) as { error: { status: string; message: string } }).error).toMatchObject({
      status: 'NOT_FOUND',
      message: expect.stringMatching(/did you mean GET \/v1beta\/models\?/),
    });
  });

  test('a wrong size or model names the nearest valid one', async () => {
    const small = await expectOpenAIError(await postJson(endpoint(), { ...valid, size: '1024x1024' }, key), 400);
    expect(small).toMatchObject({
      param: 'size',
      message: expect.stringMatching(/: try 2048x2048 \(the recommended 2K size for 1:1\) or the keyword 2K$/),
    });
    const lower = await expectOpenAIError(await postJson(endpoint(), { ...valid, size: '2k' }, key), 400);
    expect(lower.message).toBe('size "2k": the keywords are 2K and 3K, in capitals; did you mean "2K"?');
    const model = await expectOpenAIError(await postJson(endpoint(), { ...valid, model: 'vendor-gen-5-0' }, key), 400);
    expect(model).toMatchObject({ param: 'model', message: expect.stringMatching(/did you mean "vendor-gen-5-0-260128"\?/) });
  });

  // the path decides, not the way the key came: a Google key on an OpenAI path gets OpenAI's 404
  test.each<[string, string, string, 'openai' | 'google']>([
    ['GET', '/v1/jobs/x/y', 'google', 'openai'],
    ['POST', '/v1/jobs/img_x', 'google', 'openai'],
    ['GET', '/v1/nothing-here', 'google', 'openai'],
    ['GET', '/v1beta/nothing-here', 'bearer', 'google'],
    ['GET', '/v1alpha/models/x/y', 'bearer', 'google'],
    // the v1 model paths both APIs serve: there the credential tells the caller's API
    ['DELETE', '/v1/models/x', 'google', 'google'],
    ['DELETE', '/v1/models/x', 'bearer', 'openai'],
  ])('%s %s with a %s key: 404 in the %s dialect', async (method, path, sent, dialect) => {
    const headers: Record<string, string> = sent === 'google' ? { 'x-goog-api-key': key } : { authorization: `Bearer ${key}` };
    const res = await fetch(`${stack.url}${path}`, { method, headers });
    if (dialect === 'openai') expect(await expectOpenAIError(res, 404)).toMatchObject({ type: 'not_found_error' });
    else {
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    }
  });

  test('an inline image in the base64url alphabet: 400 naming the image, saying base64url is not base64', async () => {
    // a PNG whose base64 holds '+' and '/', so its base64url holds '-' and '_'
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from([0xfb, 0xff, 0xbf, 0xfb, 0xff, 0xbf])]);
    expect(png.toString('base64')).toMatch(/[+/]/);
    const image = `data:image/png;base64,${png.toString('base64url')}`;
    const error = await expectOpenAIError(
      await postJson(endpoint(), { model: 'vendor-edit-3-0-i2i-250628', prompt: 'add snow', image }, key),
      400,
    );
    expect(error).toMatchObject({ param: 'image', message: expect.stringMatching(/^image: .*base64url.*not base64/) });
  });
});

describe('admin API and CLI', () => {
  test('without the admin token: 401', async () => {
    const res = await fetch(`${stack.url}/admin/accounts`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    await expectOpenAIError(res, 401);
  });

  test('accounts, keys shown once and stored hashed, revocation', async () => {
    const created = await stack.admin('POST', '/accounts', { name: 'acme' });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { id: string; name: string };
    const keyRes = await stack.admin('POST', `/accounts/${account.id}/keys`, { name: 'ci' });
    const newKey = (await keyRes.json()) as { id: string; key: string };
    expect(newKey.key).toMatch(/^rk_[\w-]{43}$/);
    const shown = (await (await stack.admin('GET', `/accounts/${account.id}`)).json()) as { keys: Array<Record<string, unknown>> };
    expect(shown.keys).toEqual([expect.objectContaining({ id: newKey.id, name: 'ci', revokedAt: null })]);
    expect(JSON.stringify(shown)).not.toContain(newKey.key);
    expect((await stack.admin('DELETE', `/keys/${newKey.id}`)).status).toBe(200);
    expect((await stack.admin('GET', '/accounts/acct_nope')).status).toBe(404);
    expect((await stack.admin('POST', '/accounts', { name: '' })).status).toBe(400);
    expect(keyId).toMatch(/^key_/);
  });

  test('the CLI drives the same API', async () => {
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'apps/api/src/admin/cli.ts', ...args], {
          cwd: repoRoot,
          env: { ...process.env, ADMIN_URL: stack.url, ADMIN_TOKEN: stack.adminToken },
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.on('exit', (code) => resolve({ code, out }));
      });
    const account = await run('accounts', 'create', 'cli', 'team', '--json');
    expect(account.code).toBe(0);
    const { id, name } = JSON.parse(account.out) as { id: string; name: string };
    expect(name).toBe('cli team');
    const created = await run('keys', 'create', id, 'laptop', '--rate-limit', '30', '--json');
    const { key: secret, rateLimitPerMinute } = JSON.parse(created.out) as { key: string; rateLimitPerMinute: number };
    expect(rateLimitPerMinute).toBe(30);
    const broke = await postJson(endpoint(), valid, secret);
    expect(broke.status).toBe(402);
    expect(((await broke.json()) as { error: { type: string } }).error.type).toBe('insufficient_balance');
    // amounts in units: 0.03 is the one image's 30,000 micro-units
    expect((await run('credits', 'add', id, '0.03', 'first', 'top-up')).code).toBe(0);
    expect((await postJson(endpoint(), { ...valid, user: 'cli-user' }, secret)).status).toBe(200);
    const usage = JSON.parse((await run('usage', id, '--model', 'vendor-gen-4-0-250828', '--user', 'cli-user', '--json')).out) as {
      entries: Array<{ type: string }>;
    };
    expect(usage.entries.map((e) => e.type)).toEqual(['settle', 'reserve']);
    expect(JSON.parse((await run('usage', id, '--user', 'someone-else', '--json')).out)).toEqual({ entries: [], nextCursor: null });
    const shown = JSON.parse((await run('accounts', 'show', id, '--json')).out) as { balance: number; spent: number };
    expect(shown).toMatchObject({ balance: 0, spent: 30_000 });
    expect((await run('nonsense')).code).toBe(2);
  });

  test('the CLI takes negative amounts as they are, finds the relay npm start runs, and fails in one line', async () => {
    const run = (env: Record<string, string>, ...args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'apps/api/src/admin/cli.ts', ...args], {
          cwd: repoRoot,
          env: { PATH: process.env.PATH ?? '', ...env },
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    // no ADMIN_URL: the data dir of a running npm start says where it answers and with which token
    const dataDir = mkdtempSync(join(tmpdir(), 'relay-cli-'));
    writeFileSync(join(dataDir, 'relay.json'), JSON.stringify({ url: stack.url, adminToken: stack.adminToken, pid: process.pid }));
    const found = { RELAY_DATA_DIR: dataDir };
    const { id } = JSON.parse((await run(found, 'accounts', 'create', 'negative', '--json')).out) as { id: string };
    expect((await run(found, 'credits', 'add', id, '50000', 'in', '--micro')).code).toBe(0);
    const corrected = await run(found, 'credits', 'add', id, '-0.02', 'correction', '--json');
    expect(corrected.err).toBe('');
    expect(JSON.parse(corrected.out)).toMatchObject({ balance: 30_000 });

    // nothing running: one line that says what to do, no stack trace
    const nowhere = await run(
      { RELAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'relay-cli-')), PORT: String(await freePort()), ADMIN_TOKEN: 'x' },
      'accounts',
      'list',
    );
    expect(nowhere.code).toBe(1);
    expect(nowhere.err.trim().split('\n')).toHaveLength(1);
    expect(nowhere.err).toMatch(/^no relay answers at http:\/\/127\.0\.0\.1:\d+ .*npm start.*ADMIN_URL/);
    const refused = await run({ ADMIN_URL: stack.url, ADMIN_TOKEN: 'wrong' }, 'accounts', 'list');
    expect(refused.code).toBe(1);
    expect(refused.err.trim()).toBe(`the relay at ${stack.url} refused the admin token: set ADMIN_TOKEN to the one it runs with`);
    const tokenless = await run({ ADMIN_URL: stack.url, RELAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'relay-cli-')) }, 'accounts', 'list');
    expect(tokenless.code).toBe(2);
    expect(tokenless.err).toMatch(/^no admin token/);
  });
});
