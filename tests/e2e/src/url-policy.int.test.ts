import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

/** The relay never fetches, nor forwards to an upstream, a URL that points inside its own network. */
let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const edit = (image: string) =>
  postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-edit-3-0-i2i-250628', prompt: 'add snow', image }, key);

describe('client image URLs are held to the policy before anything is reserved', () => {
  test.each([
    ['loopback by address', () => 'http://127.0.0.1:1/cat.png', /private, loopback or link-local/],
    ['loopback by name', () => `http://localhost:${new URL(stack.sim.url).port}/cat.png`, /private, loopback or link-local/],
    ['loopback written in hex', () => 'http://0x7f000001/cat.png', /private, loopback or link-local/],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', /private, loopback or link-local/],
    ['a private network', () => 'http://10.1.2.3/cat.png', /private, loopback or link-local/],
    ['IPv6 loopback', () => 'http://[::1]:8080/cat.png', /private, loopback or link-local/],
    ['IPv4 mapped into IPv6', () => 'http://[::ffff:127.0.0.1]/cat.png', /private, loopback or link-local/],
    ['a name that does not resolve', () => 'https://images.relay-test.invalid/cat.png', /does not resolve/],
  ])('%s: 400 naming the image', async (_label, url, message) => {
    const res = await edit(url());
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'image', message: expect.stringMatching(message) } });
  });

  test('an allowlisted host (the simulator) is fetched: the edit follows the input image', async () => {
    const made = await fetch(`${stack.sim.url}/api/v3/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
      body: JSON.stringify({ model: 'seedream-4-0-250828', prompt: 'input', size: '1280x720', response_format: 'url' }),
    });
    const link = ((await made.json()) as { data: Array<{ url: string }> }).data[0]!.url;
    const res = await edit(link);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Array<{ size: string }> }).data[0]!.size).toBe('1280x720');
  });
});

test("an upstream's result link that points inside is not downloaded: 502 at once, nothing charged", async () => {
  const port = await freePort();
  // the simulator hands out links on `localhost`, which is not the allowlisted 127.0.0.1:port
  const inside = await startStack({ simulator: { SIM_PORT: String(port), SIM_PUBLIC_URL: `http://localhost:${port}` } });
  try {
    const account = await inside.newKey({ balance: 1_000_000 });
    const res = await postJson(`${inside.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: 'x' }, account.key);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringMatching(/private address the relay does not fetch/) } });
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect((await inside.simStats()).requests.images).toBe(1);
    expect(await inside.account(account.accountId)).toMatchObject({ balance: 1_000_000, reserved: 0 });
  } finally {
    await inside.close();
  }
});
