import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ADMIN_COMMANDS } from '@relay/api';
import { runCli } from '@relay/testkit';

/**
 * The admin CLI checks a command's required arguments before it sends anything (issue 34: `keys
 * create` with none went out as `POST /accounts//keys` and came back a 404). The relay here is a
 * stand-in that records every request and answers an empty list.
 */
const seen: string[] = [];
const relay = createServer((req, res) => {
  seen.push(`${req.method} ${req.url}`);
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
});
let url: string;
beforeAll(async () => {
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
});
afterAll(() => relay.close());

/** `how` runs the CLI as typed in the checkout (`npm run admin -- ...`) or as node runs its source (the same hints, faster). */
const admin = (args: string[], how: 'npm' | 'node' = 'node') =>
  runCli(
    { script: 'admin', source: 'apps/api/src/admin/cli.ts' },
    args,
    { ADMIN_URL: url, ADMIN_TOKEN: 'token', RELAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'relay-cli-')) },
    how,
  );

test('npm run admin -- keys create: what is missing and the usage of keys create, exit 2, no request', async () => {
  const { code, err } = await admin(['keys', 'create'], 'npm');
  expect(code).toBe(2);
  expect(err).toBe(
    "'keys create' needs <accountId> and <name>\n" +
      'usage: npm run admin -- keys create <accountId> <name> [--rate-limit <requests per minute>]\n' +
      'see: npm run admin -- --help\n',
  );
  const half = await admin(['keys', 'create', 'acct_1']);
  expect(half.code).toBe(2);
  expect(half.err.split('\n')[0]).toBe("'keys create' needs <name>");
  // an id given empty (an unset shell variable) would be the same empty path segment
  const empty = await admin(['keys', 'list', '']);
  expect(empty.code).toBe(2);
  expect(empty.err.split('\n')[0]).toBe("'keys list' needs <accountId>");
  expect(seen).toEqual([]);
}, 60_000);

test('every admin command that takes an id or a value refuses to run without it, before any request', async () => {
  const takesNone = new Set(['accounts list', 'schedule', 'channels list']);
  const needy = ADMIN_COMMANDS.filter((c) => !takesNone.has(c));
  // a few at a time: each is a process of its own, and the machine is shared
  for (let i = 0; i < needy.length; i += 4) {
    await Promise.all(
      needy.slice(i, i + 4).map(async (command) => {
        const { code, err } = await admin(command.split(' '));
        expect(code, `${command}: ${err}`).toBe(2);
        const [first, usage, see] = err.trimEnd().split('\n');
        expect(first).toMatch(new RegExp(`^'${command}' needs <[^>]+>`));
        expect(usage).toMatch(new RegExp(`^usage: npm run admin -- ${command} <`));
        expect(see).toBe('see: npm run admin -- --help');
        expect(err).not.toMatch(/^\s+at |->/m);
      }),
    );
  }
  expect(seen).toEqual([]);

  // given its argument, a command goes out with it in the path
  const { code, err } = await admin(['keys', 'list', 'acct_1']);
  expect(code, err).toBe(0);
  expect(seen).toEqual(['GET /admin/accounts/acct_1/keys']);
}, 180_000);
