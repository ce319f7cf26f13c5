import { describe, expect, test } from 'vitest';
import { isPublicAddress } from './public-address.js';

/**
 * One row per block of IANA's IPv4 and IPv6 special-purpose registries (and multicast, and the
 * unallocated IPv6 space): an address inside it, refused, and the nearest public address
 * outside it, allowed. For blocks that carry an IPv4 (IPv4-mapped, NAT64, 6to4, Teredo) the
 * allowed case is the same form carrying a public IPv4.
 */
const IPV4: Array<[block: string, inside: string, outside: string]> = [
  ['0.0.0.0/8 this network', '0.255.255.255', '1.0.0.0'],
  ['10.0.0.0/8 private', '10.255.255.255', '11.0.0.0'],
  ['100.64.0.0/10 shared (CGN)', '100.127.255.255', '100.128.0.0'],
  ['127.0.0.0/8 loopback', '127.0.0.1', '128.0.0.0'],
  ['169.254.0.0/16 link-local (cloud metadata)', '169.254.169.254', '169.255.0.0'],
  ['172.16.0.0/12 private', '172.31.255.255', '172.32.0.0'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.170', '192.0.1.0'],
  ['192.0.2.0/24 TEST-NET-1', '192.0.2.1', '192.0.3.0'],
  ['192.31.196.0/24 AS112-v4', '192.31.196.1', '192.31.197.0'],
  ['192.52.193.0/24 AMT', '192.52.193.1', '192.52.194.0'],
  ['192.88.99.0/24 6to4 relay anycast', '192.88.99.1', '192.88.100.0'],
  ['192.168.0.0/16 private', '192.168.1.1', '192.169.0.0'],
  ['192.175.48.0/24 AS112 direct delegation', '192.175.48.1', '192.175.49.0'],
  ['198.18.0.0/15 benchmarking', '198.19.255.255', '198.20.0.0'],
  ['198.51.100.0/24 TEST-NET-2', '198.51.100.7', '198.51.101.0'],
  ['203.0.113.0/24 TEST-NET-3', '203.0.113.9', '203.0.114.0'],
  ['224.0.0.0/4 multicast', '239.255.255.250', '223.255.255.255'],
  ['240.0.0.0/4 reserved', '240.0.0.1', '223.255.255.255'],
  ['255.255.255.255/32 limited broadcast', '255.255.255.255', '223.255.255.255'],
];

const IPV6_EMBEDDING_IPV4: Array<[block: string, inside: string, outside: string]> = [
  ['::ffff:0:0/96 IPv4-mapped', '::ffff:169.254.169.254', '::ffff:8.8.8.8'],
  ['64:ff9b::/96 NAT64 well-known prefix', '64:ff9b::a00:1', '64:ff9b::808:808'],
  ['2002::/16 6to4', '2002:7f00:1::1', '2002:808:808::1'],
  // Teredo 2001:0:<server>:<flags>:<port>:<client inverted>: client 127.0.0.1, then 8.8.8.8
  ['2001::/32 Teredo (client inside)', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
  ['2001::/32 Teredo (server inside)', '2001:0:a00:1:8000:63bf:f7f7:f7f7', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
];

const IPV6: Array<[block: string, inside: string, outside: string]> = [
  ['2001::/23 IETF protocol assignments', '2001:1::1', '2001:200::1'],
  ['2001:2::/48 benchmarking (in 2001::/23)', '2001:2::1', '2001:200::1'],
  ['2001:3::/32 AMT (in 2001::/23)', '2001:3::1', '2001:200::1'],
  ['2001:4:112::/48 AS112-v6 (in 2001::/23)', '2001:4:112::1', '2001:200::1'],
  ['2001:20::/28 ORCHIDv2 (in 2001::/23)', '2001:20::1', '2001:200::1'],
  ['2001:db8::/32 documentation', '2001:db8::1', '2001:db9::1'],
  ['2620:4f:8000::/48 AS112 direct delegation', '2620:4f:8000::1', '2620:4f:8001::1'],
  ['3fff::/20 documentation', '3fff::1', '3fff:1000::1'],
  // below 2000::/3 nothing is global unicast: the nearest public address is 2000::/3's first
  ['::/128 unspecified', '::', '2000::1'],
  ['::1/128 loopback', '::1', '2000::1'],
  ['::/96 IPv4-compatible (deprecated)', '::7f00:1', '2000::1'],
  ['::/96 IPv4-compatible, written dotted', '::8.8.8.8', '2000::1'],
  ['::ffff:0:0:0/96 IPv4-translated', '::ffff:0:808:808', '2000::1'],
  ['64:ff9b:1::/48 NAT64 local-use', '64:ff9b:1::808:808', '2000::1'],
  ['100::/64 discard-only', '100::1', '2000::1'],
  ['100:0:0:1::/64 dummy prefix', '100:0:0:1::1', '2000::1'],
  ['4000::/2 not allocated', '4000::1', '3fff:1000::1'],
  ['5f00::/16 segment routing', '5f00::1', '3fff:1000::1'],
  ['fc00::/7 unique-local', 'fd00::1', '3fff:1000::1'],
  ['fe80::/10 link-local', 'fe80::1', '3fff:1000::1'],
  ['fe80::/10 link-local with a zone', 'fe80::1%eth0', '3fff:1000::1'],
  ['fec0::/10 site-local (deprecated)', 'fec0::1', '3fff:1000::1'],
  ['ff00::/8 multicast', 'ff02::1', '3fff:1000::1'],
];

describe('public addresses, block by block', () => {
  test.each([...IPV4, ...IPV6_EMBEDDING_IPV4, ...IPV6])('%s: %s refused, %s allowed', (_block, inside, outside) => {
    expect(isPublicAddress(inside)).toBe(false);
    expect(isPublicAddress(outside)).toBe(true);
  });

  test.each(['not-an-ip', '', '127.1', '0x7f000001', '1.2.3.4.5', '[::1]'])('%j is not an address, so not public', (text) => {
    expect(isPublicAddress(text)).toBe(false);
  });
});
