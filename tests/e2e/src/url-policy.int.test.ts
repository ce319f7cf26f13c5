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

/**
 * One address per block of IANA's special-purpose registries that the relay refuses, beside the
 * nearest public address (or, for IPv6 forms that carry an IPv4, the same form carrying a public
 * one). The full table, every block, is the unit test of isPublicAddress.
 */
const BLOCKS: Array<[block: string, inside: string, outside: string]> = [
  ['0.0.0.0/8 this network', '0.1.2.3', '1.0.0.0'],
  ['10.0.0.0/8 private', '10.255.255.255', '11.0.0.0'],
  ['100.64.0.0/10 shared (CGN)', '100.64.0.1', '100.128.0.0'],
  ['127.0.0.0/8 loopback', '127.0.0.2', '128.0.0.0'],
  ['169.254.0.0/16 link-local', '169.254.169.254', '169.255.0.0'],
  ['172.16.0.0/12 private', '172.31.255.255', '172.32.0.0'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.170', '192.0.1.0'],
  ['192.0.2.0/24 TEST-NET-1', '192.0.2.1', '192.0.3.0'],
  ['192.88.99.0/24 6to4 relay anycast', '192.88.99.1', '192.88.100.0'],
  ['192.168.0.0/16 private', '192.168.1.1', '192.169.0.0'],
  ['198.18.0.0/15 benchmarking', '198.19.255.255', '198.20.0.0'],
  ['198.51.100.0/24 TEST-NET-2', '198.51.100.7', '198.51.101.0'],
  ['203.0.113.0/24 TEST-NET-3', '203.0.113.9', '203.0.114.0'],
  ['224.0.0.0/4 multicast', '239.255.255.250', '223.255.255.255'],
  ['240.0.0.0/4 reserved', '240.0.0.1', '223.255.255.255'],
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:a9fe:a9fe', '::ffff:808:808'],
  ['64:ff9b::/96 NAT64', '64:ff9b::a00:1', '64:ff9b::808:808'],
  ['64:ff9b:1::/48 NAT64 local-use', '64:ff9b:1::808:808', '64:ff9b::808:808'],
  ['2002::/16 6to4', '2002:7f00:1::1', '2002:808:808::1'],
  ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
  ['::/96 IPv4-compatible', '::7f00:1', '2000::1'],
  ['::/128 unspecified', '::', '2000::1'],
  ['::1/128 loopback', '::1', '2000::1'],
  ['2001::/23 IETF protocol assignments', '2001:1::1', '2001:200::1'],
  ['2001:db8::/32 documentation', '2001:db8::1', '2001:db9::1'],
  ['3fff::/20 documentation', '3fff::1', '3fff:1000::1'],
  ['fc00::/7 unique-local', 'fd00::1', '2000::1'],
  ['fe80::/10 link-local', 'fe80::1', '2000::1'],
  ['fec0::/10 site-local', 'fec0::1', '2000::1'],
  ['ff00::/8 multicast', 'ff02::1', '2000::1'],
];

const hostOf = (address: string) => (address.includes(':') ? `[${address}]` : address);

describe('client image URLs are held to the policy before anything is reserved', () => {
  test.each([
    ['loopback by address', () => 'http://127.0.0.1:1/cat.png', /private, loopback, link-local or reserved/],
    ['loopback by name', () => `http://localhost:${new URL(stack.sim.url).port}/cat.png`, /private, loopback, link-local or reserved/],
    ['loopback written in hex', () => 'http://0x7f000001/cat.png', /private, loopback, link-local or reserved/],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', /private, loopback, link-local or reserved/],
    ['a private network', () => 'http://10.1.2.3/cat.png', /private, loopback, link-local or reserved/],
    ['IPv6 loopback', () => 'http://[::1]:8080/cat.png', /private, loopback, link-local or reserved/],
    ['IPv4 mapped into IPv6', () => 'http://[::ffff:127.0.0.1]/cat.png', /private, loopback, link-local or reserved/],
    ['a name that does not resolve', () => 'https://images.relay-test.invalid/cat.png', /does not resolve/],
  ])('%s: 400 naming the image', async (_label, url, message) => {
    const res = await edit(url());
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'image', message: expect.stringMatching(message) } });
  });

  test.each(BLOCKS)('%s: %s refused as an image URL', async (_block, inside) => {
    const res = await edit(`http://${hostOf(inside)}/cat.png`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { param: 'image', message: expect.stringMatching(/private, loopback, link-local or reserved/) },
    });
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

describe('webhook endpoints are held to the same policy when registered', () => {
  // registering sends nothing: the account has no job, so no public address below is contacted
  test.each(BLOCKS)('%s: %s refused, %s accepted', async (_block, inside, outside) => {
    const { accountId } = await stack.newKey();
    const refused = await stack.admin('POST', `/accounts/${accountId}/webhooks`, { url: `http://${hostOf(inside)}/hook` });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { param: 'url' } });
    const accepted = await stack.admin('POST', `/accounts/${accountId}/webhooks`, { url: `http://${hostOf(outside)}/hook` });
    expect(accepted.status).toBe(201);
    const { id } = (await accepted.json()) as { id: string };
    expect((await stack.admin('DELETE', `/webhooks/${id}`)).status).toBe(200);
  });
});
