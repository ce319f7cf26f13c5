import { expect, test } from 'vitest';
import { redisConnectionOptions } from './redis.js';
import { parseSentinelUrl } from './redis-sentinel.js';

test('the sentinels, the master name, the servers credentials and db are read from the URL', () => {
  expect(parseSentinelUrl('redis+sentinel://user:p%40ss@10.0.0.5:26379,[::1]:26380,sentinel-c/relay/2')).toEqual({
    protocol: 'redis:',
    sentinels: [
      { host: '10.0.0.5', port: 26379 },
      { host: '::1', port: 26380 },
      { host: 'sentinel-c', port: 26379 },
    ],
    name: 'relay',
    username: 'user',
    password: 'p%40ss',
    pathname: '/2',
  });
  expect(parseSentinelUrl('redis://127.0.0.1:6379')).toBeUndefined();
});

test('a malformed sentinel URL is refused with the form, its credentials hidden', () => {
  expect(() => parseSentinelUrl('redis+sentinel://user:secret@h1:26379,h2:26379')).toThrow(
    /^REDIS_URL redis\+sentinel:\/\/\*\*\*@h1:26379,h2:26379 is no sentinel URL: redis\+sentinel:\/\/host:port/,
  );
  expect(() => parseSentinelUrl('redis+sentinel://h1:port/relay')).toThrow(/no sentinel URL/);
});

test("ioredis is given the sentinels, the servers' credentials, TLS to both by the scheme, and the sentinels' credentials from their variables", () => {
  const options = redisConnectionOptions('rediss+sentinel://:pw@h1:1,h2:2/relay/1', 'patient', {
    REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
  });
  expect(options).toMatchObject({
    sentinels: [
      { host: 'h1', port: 1 },
      { host: 'h2', port: 2 },
    ],
    name: 'relay',
    role: 'master',
    password: 'pw',
    db: 1,
    tls: {},
    enableTLSForSentinelMode: true,
    sentinelPassword: 'sentinel-pw',
    sentinelTLS: {},
    maxRetriesPerRequest: null,
  });
  expect(options).not.toHaveProperty('host');
});
