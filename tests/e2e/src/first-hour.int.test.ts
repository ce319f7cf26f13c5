import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderImage } from '@relay/simulator';
import { repoRoot, SOURCE_NODE_ARGS, waitFor } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

/**
 * Issue 34, "The first hour": what a new user sent in their first hour, sent the same way, and
 * the answer that tells them what to change.
 */
let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const MODEL = 'vendor-gen-4-0-250828';
const TTS = 'vendor-2.5-flash-preview-tts';
const openai = () => ({ authorization: `Bearer ${key}` });

interface OpenAIError {
  error: { message: string; type: string; param: string | null; code: string };
}
interface GoogleError {
  error: { code: number; message: string; status: string; details?: Array<{ fieldViolations?: Array<{ field: string }> }> };
}

/**
 * A form as curl -F writes it (its boundary, its part headers, the file's bytes as they are),
 * for a caller that also passed -H 'Content-Type: application/json', which replaces curl's own
 * multipart/form-data header: the body is the form, the header says JSON.
 */
function curlForm(fields: Record<string, string>, files: Record<string, Buffer>) {
  const boundary = '------------------------d74496d66958873e';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const [name, bytes] of Object.entries(files)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`),
    );
    parts.push(bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

/** A PNG whose compressed bytes hold more `[` and `{` than `]` and `}`: what any photo's bytes may hold. */
const png = () =>
  Buffer.concat([renderImage({ width: 256, height: 256, format: 'png', watermark: false, hue: 3 }), Buffer.from('{['.repeat(40))]);

describe('a multipart form sent with Content-Type: application/json', () => {
  const send = (path: string, headers: Record<string, string>) =>
    fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: curlForm({ model: MODEL, prompt: 'add snow' }, { image: png() }),
    });

  test('/v1/images/edits: a 400 saying the body is a form sent as JSON, and to send it as multipart/form-data', async () => {
    const res = await send('/v1/images/edits', openai());
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as OpenAIError;
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json', param: null });
    expect(error.message).toMatch(/^the request body is not JSON: it starts with "--------------------------d74496d66958873e"/);
    expect(error.message).toMatch(/looks like multipart\/form-data sent with Content-Type: application\/json/);
    expect(error.message).toMatch(/send the form with Content-Type: multipart\/form-data/);
    expect(error.message).not.toMatch(/nests deeper/);
  });

  test('/v1/images/generations: the same, and that this endpoint takes JSON only', async () => {
    const res = await send('/v1/images/generations', openai());
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as OpenAIError;
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    expect(error.message).toMatch(/looks like multipart\/form-data sent with Content-Type: application\/json/);
    expect(error.message).toMatch(/this endpoint takes a JSON object only, not a form/);
    expect(error.message).toMatch(/data:image\/<format>;base64,<data>.*\/v1\/images\/edits as multipart\/form-data/);
  });

  test("Gemini's generateContent: the same, in Google's error shape", async () => {
    const res = await send(`/v1beta/models/${TTS}:generateContent`, { 'x-goog-api-key': key });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as GoogleError;
    expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(error.message).toMatch(/^the request body is not JSON: .*looks like multipart\/form-data.*takes a JSON object only/);
  });

  test('curl -F on /v1/images/generations (a form, its own Content-Type): a 415 saying it takes JSON and where image files go', async () => {
    const form = new FormData();
    form.append('model', MODEL);
    form.append('prompt', 'add snow');
    form.append('image', new Blob([new Uint8Array(png())], { type: 'image/png' }), 'x.png');
    const res = await fetch(`${stack.url}/v1/images/generations`, { method: 'POST', headers: openai(), body: form });
    expect(res.status).toBe(415);
    const { error } = (await res.json()) as OpenAIError;
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_media_type', param: null });
    expect(error.message).toBe(
      'Content-Type must be application/json, not multipart/form-data: this endpoint takes a JSON object only, not a form: ' +
        'send the fields as JSON, input images in it as URLs or data:image/<format>;base64,<data> strings ' +
        '(image files go to POST /v1/images/edits as multipart/form-data)',
    );
  });

  test('an image file sent raw as JSON is not JSON either', async () => {
    const res = await fetch(`${stack.url}/v1/images/edits`, {
      method: 'POST',
      headers: { ...openai(), 'content-type': 'application/json' },
      body: png(),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as OpenAIError).error.message).toBe(
      'the request body is not JSON: it starts with ".PNG"; send a JSON object with Content-Type: application/json, or a multipart/form-data form',
    );
  });

  test('real JSON nested too deep is still refused as deep', async () => {
    const deep = `{"model":"${MODEL}","prompt":"x","images":${'['.repeat(40)}${']'.repeat(40)}}`;
    const res = await postJson(`${stack.url}/v1/images/edits`, deep, key);
    expect(res.status).toBe(400);
    expect(((await res.json()) as OpenAIError).error.message).toBe('the JSON body nests deeper than 32 levels');
  });
});

describe('a string over the size any field takes names its field, its size in MB and the limit', () => {
  // a 19.8 MB photo (20.7 million bytes) as a data URL: 26.4 MB of base64
  const bigImage = () => `data:image/png;base64,${Buffer.alloc(20_736_528, 7).toString('base64')}`;
  const LIMIT = /input images may be at most 10 MB \(10485760 bytes\), 13\.3 MB as a data URL/;

  test('image on /v1/images/generations: 400 naming image', async () => {
    const res = await postJson(`${stack.url}/v1/images/generations`, { model: MODEL, prompt: 'x', image: bigImage() }, key);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as OpenAIError;
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'image' });
    expect(error.message).toMatch(/^image: a data URL of 26\.4 MB \(27648726 bytes\), an image of about 19\.8 MB; /);
    expect(error.message).toMatch(LIMIT);
  });

  test('the second entry of image: 400 naming image[1]', async () => {
    const res = await postJson(
      `${stack.url}/v1/images/generations`,
      { model: MODEL, prompt: 'x', image: ['https://example.com/a.png', bigImage()] },
      key,
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as OpenAIError;
    expect(error).toMatchObject({ param: 'image[1]', message: expect.stringMatching(/^image\[1\]: a data URL of 26\.4 MB/) });
    expect(error.message).toMatch(LIMIT);
  });

  test('images[].image_url on /v1/images/edits: 400 naming images[0].image_url', async () => {
    const res = await postJson(`${stack.url}/v1/images/edits`, { model: MODEL, prompt: 'x', images: [{ image_url: bigImage() }] }, key);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as OpenAIError;
    expect(error).toMatchObject({
      param: 'images[0].image_url',
      message: expect.stringMatching(/^images\[0\]\.image_url: a data URL of 26\.4 MB/),
    });
  });

  test('a prompt of 14.3 MB: 400 naming prompt', async () => {
    const res = await postJson(`${stack.url}/v1/images/generations`, { model: MODEL, prompt: 'p'.repeat(15_000_000) }, key);
    expect(res.status).toBe(400);
    expect(((await res.json()) as OpenAIError).error).toMatchObject({
      param: 'prompt',
      message: 'prompt: a string of 14.3 MB (15000000 bytes); no field of this endpoint takes more than 13.3 MB (13981080 bytes)',
    });
  });

  test('speech text on /v1/audio/speech: 400 naming input', async () => {
    const res = await postJson(`${stack.url}/v1/audio/speech`, { model: 'tts-1', voice: 'alloy', input: 'a'.repeat(700_000) }, key);
    expect(res.status).toBe(400);
    expect(((await res.json()) as OpenAIError).error).toMatchObject({
      param: 'input',
      message: 'input: a string of 684 KB (700000 bytes); no field of this endpoint takes more than 586 KB (600000 bytes)',
    });
  });

  test("speech text on Gemini's generateContent: 400 naming the part, in Google's shape", async () => {
    const body = {
      contents: [{ parts: [{ text: 'hi' }, { text: 'a'.repeat(700_000) }] }],
      generationConfig: { responseModalities: ['AUDIO'] },
    };
    const res = await postJson(`${stack.url}/v1beta/models/${TTS}:generateContent`, body, undefined, { 'x-goog-api-key': key });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as GoogleError;
    expect(error.message).toMatch(/^contents\[0\]\.parts\[1\]\.text: a string of 684 KB \(700000 bytes\); .* 586 KB/);
    expect(error.details?.[0]?.fieldViolations?.[0]?.field).toBe('contents[0].parts[1].text');
  });

  test('an image file over the limit in a multipart edit: 413 naming image[0] and the limit in MB', async () => {
    const form = new FormData();
    form.append('model', MODEL);
    form.append('prompt', 'add snow');
    form.append(
      'image',
      new Blob([new Uint8Array(Buffer.concat([png(), Buffer.alloc(11 * 1024 * 1024)]))], { type: 'image/png' }),
      'x.png',
    );
    const res = await fetch(`${stack.url}/v1/images/edits`, { method: 'POST', headers: openai(), body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as OpenAIError).error).toMatchObject({
      param: 'image[0]',
      message: 'image[0]: the file is larger than 10 MB (10485760 bytes), the most an input image may be',
    });
  });

  test('the connection that carried the refused upload carries the next request', async () => {
    const form = curlForm({ model: MODEL, prompt: 'add snow' }, { image: Buffer.concat([png(), Buffer.alloc(11 * 1024 * 1024)]) });
    const { port, hostname } = new URL(stack.url);
    const socket = connect(Number(port), hostname);
    let answers = '';
    socket.on('data', (chunk: Buffer) => (answers += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.write(
      `POST /v1/images/edits HTTP/1.1\r\nHost: relay\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: multipart/form-data; boundary=------------------------d74496d66958873e\r\nContent-Length: ${form.length}\r\n\r\n`,
    );
    socket.write(form);
    try {
      await waitFor(async () => answers.includes('"code":"payload_too_large"'), 10_000, 'the 413');
      socket.write('GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n');
      await waitFor(async () => /HTTP\/1\.1 200 OK/.test(answers), 4_000, 'the next answer on the same connection');
    } finally {
      socket.destroy();
    }
  });
});

describe('account names are unique', () => {
  const create = (name: string) => stack.admin('POST', '/accounts', { name });

  test('a second "acme", however spaced and cased, is a 409 naming the account that has the name', async () => {
    const first = await create('acme');
    expect(first.status).toBe(201);
    const { id } = (await first.json()) as { id: string };
    expect(first.headers.get('location')).toBe(`/admin/accounts/${id}`);
    for (const again of ['acme', ' ACME ', 'Acme']) {
      const res = await create(again);
      expect(res.status).toBe(409);
      expect(res.headers.get('location')).toBe(`/admin/accounts/${id}`);
      expect(((await res.json()) as OpenAIError).error).toMatchObject({
        type: 'conflict_error',
        code: 'conflict',
        param: 'name',
        message: `an account named "acme" already exists: ${id}; names are compared ignoring case and surrounding spaces, so choose another name or use that account`,
      });
    }
    expect((await create('acme two')).status).toBe(201);
    const listed = (await (await stack.admin('GET', '/accounts?q=acme')).json()) as { accounts: Array<{ name: string }> };
    expect(listed.accounts.map((a) => a.name).sort()).toEqual(['acme', 'acme two']);
  });

  test('of ten creates with one name at once, exactly one makes an account', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 ? 'Race Co' : 'race co ')));
    const made = answers.filter((res) => res.status === 201);
    expect(made).toHaveLength(1);
    expect(answers.filter((res) => res.status === 409)).toHaveLength(9);
    const { id } = (await made[0]!.json()) as { id: string };
    for (const res of answers.filter((r) => r.status === 409)) expect(((await res.json()) as OpenAIError).error.message).toContain(id);
    const listed = (await (await stack.admin('GET', '/accounts?q=race')).json()) as { accounts: Array<{ id: string }> };
    expect(listed.accounts.map((a) => a.id)).toEqual([id]);
  });

  test('the admin CLI says so in one line and exits 1', async () => {
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'apps/api/src/admin/cli.ts', ...args], {
          cwd: repoRoot,
          env: { ...process.env, ADMIN_URL: stack.url, ADMIN_TOKEN: stack.adminToken },
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    const made = await run('accounts', 'create', 'Cli', 'Co', '--json');
    expect(made.code).toBe(0);
    const { id } = JSON.parse(made.out) as { id: string };
    const again = await run('accounts', 'create', 'cli', 'co');
    expect(again.code).toBe(1);
    expect(again.err.trim()).toBe(
      `POST /accounts -> 409: an account named "Cli Co" already exists: ${id}; names are compared ignoring case and surrounding spaces, so choose another name or use that account`,
    );
  });

  test('accounts made before names were unique hold their names once an api starts', async () => {
    const redis = new Redis(stack.redis.url);
    const prefix = stack.env.REDIS_PREFIX!;
    const id = 'acct_00000000000000fe';
    await redis.hset(`${prefix}:account:${id}`, { id, name: 'Legacy Dup', createdAt: 1, balance: 0, reserved: 0, spent: 0 });
    // an older relay had built the listing indexes, but not the name index
    await redis.set(`${prefix}:accounts:backfilled`, '1');
    await redis.del(`${prefix}:accounts:names:backfilled`);
    try {
      const api = await stack.spawn('api');
      const res = await fetch(`${api.ready.url}/admin/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'legacy dup' }),
      });
      expect(res.status).toBe(409);
      expect(((await res.json()) as OpenAIError).error.message).toContain(id);
      expect(await redis.exists(`${prefix}:accounts:names:backfilled`)).toBe(1);
    } finally {
      redis.disconnect();
    }
  });
});
