import { hostname } from 'node:os';
import { describe, expect, test } from 'vitest';
import { banner, type BannerFacts } from './banner.js';

const facts: BannerFacts = {
  simulated: true,
  apiUrl: 'http://127.0.0.1:8080',
  demoKey: 'sk-demo',
  adminToken: 'token',
  dataDir: '.data',
  redis: {
    url: 'redis://127.0.0.1:6379',
    origin: 'reused',
    prefix: 'relay',
    prefixSource: 'kept',
    survey: { accounts: 12, jobs: 3456 },
  },
  storeUrl: 'http://127.0.0.1:4568',
  embeddedStore: true,
  adminCommand: 'npm run admin --',
};
/** From the Redis line to the store's. */
const redisLines = (redis: BannerFacts['redis']) => {
  const lines = banner({ ...facts, redis }).split('\n');
  return lines.slice(
    lines.findIndex((line) => line.includes('Redis:')),
    lines.findIndex((line) => line.includes('file store:')),
  );
};

describe('the Redis lines of the banner', () => {
  test('a Redis it found running: said plainly, with what it held under the prefix and how to keep apart', () => {
    const text = redisLines(facts.redis).join('\n');
    expect(text).toContain('redis://127.0.0.1:6379 (already running: NOT started by npm start, may be shared)');
    expect(text).toContain('it held 12 accounts and 3456 jobs under the prefix "relay" before this start');
    expect(text).toContain('REDIS_PREFIX=<name> npm start, or RELAY_OWN_REDIS=1 npm start');
  });

  test('an empty one says so, one it could not read says that', () => {
    expect(redisLines({ ...facts.redis, survey: { accounts: 0, jobs: 0 } }).join('\n')).toContain(
      'it held nothing under the prefix "relay"',
    );
    expect(redisLines({ ...facts.redis, survey: { accounts: 1, jobs: 1 } }).join('\n')).toContain('1 account and 1 job');
    expect(redisLines({ ...facts.redis, survey: undefined }).join('\n')).toContain('could not be read');
  });

  test('one it started, or its own: the Redis and the prefix, no warning', () => {
    expect(redisLines({ ...facts.redis, origin: 'started', prefix: 'relay-1a2b3c4d', prefixSource: 'new' })).toEqual([
      '  Redis:        redis://127.0.0.1:6379 (started here, data in .data/redis)',
      `                keys under the prefix "relay-1a2b3c4d" (this data folder's own, kept in .data/redis-prefix)`,
    ]);
    const own = redisLines({ ...facts.redis, origin: 'own', url: 'redis://127.0.0.1:40123' });
    expect(own[0]).toBe('  Redis:        redis://127.0.0.1:40123 (its own: RELAY_OWN_REDIS=1, data in .data/redis)');
    expect(own.join('\n')).not.toContain('NOT started');
  });

  test("which prefix: REDIS_PREFIX, or the folder's own, and whose prefix made it move", () => {
    expect(redisLines({ ...facts.redis, prefix: 'mine', prefixSource: 'set' })[1]).toBe(
      '                keys under the prefix "mine" (REDIS_PREFIX)',
    );
    const holder = { host: hostname(), dataDir: '/src/other/.data', pid: 4242, url: 'http://127.0.0.1:8080' };
    const moved = redisLines({ ...facts.redis, prefix: 'relay-99aa', prefixSource: 'moved', movedFrom: { prefix: 'relay', holder } });
    expect(moved.slice(1, 3)).toEqual([
      `                keys under the prefix "relay-99aa" (this data folder's own, kept in .data/redis-prefix:`,
      '                "relay" is held by the relay of /src/other/.data (http://127.0.0.1:8080, pid 4242))',
    ]);
  });
});

test('the admin CLI line is typed as npm start was: with --prefix when started from outside the checkout', () => {
  expect(banner(facts)).toContain('  admin CLI:    npm run admin -- accounts list   (finds this relay by itself)');
  expect(banner({ ...facts, adminCommand: 'npm --prefix /src/relay run admin --' })).toContain(
    '  admin CLI:    npm --prefix /src/relay run admin -- accounts list',
  );
});

test("Try it: an export line with the relay's address and the demo key, then README's first request reading them", () => {
  const text = banner({ ...facts, apiUrl: 'http://127.0.0.1:8190' });
  const block = text
    .slice(text.indexOf('  Try it:'), text.lastIndexOf('='.repeat(80)))
    .trimEnd()
    .split('\n');
  expect(block.slice(0, 3)).toEqual([
    '  Try it: in another terminal (every snippet in the docs reads these two variables)',
    'export RELAY_URL=http://127.0.0.1:8190 RELAY_API_KEY=sk-demo',
    'curl -s $RELAY_URL/v1/images/generations \\',
  ]);
  expect(block[3]).toBe('  -H "Authorization: Bearer $RELAY_API_KEY" \\');
  expect(text).not.toContain(':8080');
});
