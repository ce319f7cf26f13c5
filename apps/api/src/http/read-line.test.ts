import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { readInLine } from './read-line.js';

const REQUEST = (path: string) => `GET ${path} HTTP/1.1\r\nHost: relay\r\n\r\n`;

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real server with its new connections in a read line; it answers each request with its path. */
async function serve(slots: number, slotMs: number) {
  const seen: string[] = [];
  const requests: Array<(path: string) => void> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.url ?? '');
    for (const wake of requests.splice(0)) wake(req.url ?? '');
    res.end(req.url);
  });
  servers.push(server);
  const line = readInLine(server, slots, slotMs);
  let accepted = 0;
  const acceptedWaits: Array<[number, () => void]> = [];
  server.on('connection', () => {
    accepted += 1;
    for (const [n, wake] of acceptedWaits) if (accepted >= n) wake();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    line,
    seen,
    open: async () => {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      return socket;
    },
    /** Resolves once the server has accepted `n` connections in all. */
    accepted: (n: number) => new Promise<void>((resolve) => (accepted >= n ? resolve() : acceptedWaits.push([n, resolve]))),
    /** Resolves with the path of the next request the server parses. */
    nextRequest: () => new Promise<string>((resolve) => requests.push(resolve)),
  };
}

const answered = async (socket: Socket) => {
  const [chunk] = (await once(socket, 'data')) as [Buffer];
  return chunk.toString('latin1');
};

test('a connection waits in line while every slot is held, and reads its request once one is freed', async () => {
  const relay = await serve(2, 60_000);
  // E's first request is read and answered: its later ones are not held
  const e = await relay.open();
  const first = answered(e);
  e.write(REQUEST('/e1'));
  expect(await first).toContain('/e1');
  const idleA = await relay.open();
  await relay.open(); // idle B
  const c = await relay.open();
  await relay.accepted(4);
  // A and B connected and sent nothing: they hold both slots, and C waits in line
  expect(relay.line.waiting).toBe(1);
  c.write(REQUEST('/c'));
  // sent after C's on loopback, E's request is read while C's stays unread
  const second = answered(e);
  e.write(REQUEST('/e2'));
  expect(await second).toContain('/e2');
  expect(relay.seen).toEqual(['/e1', '/e2']);
  const parsed = relay.nextRequest();
  idleA.destroy();
  expect(await parsed).toBe('/c');
  expect(await answered(c)).toContain('200 OK');
  expect(relay.line.waiting).toBe(0);
});

test('a slot held by a connection that sends nothing is given up after slotMs', async () => {
  const relay = await serve(1, 50);
  const idle = await relay.open();
  const c = await relay.open();
  await relay.accepted(2);
  expect(relay.line.waiting).toBe(1);
  const parsed = relay.nextRequest();
  c.write(REQUEST('/late'));
  expect(await parsed).toBe('/late');
  expect(idle.destroyed).toBe(false);
});

test('the first request parsed frees the slot; later requests on a kept-alive connection are not held', async () => {
  const relay = await serve(1, 60_000);
  const a = await relay.open();
  await relay.accepted(1);
  const first = answered(a);
  a.write(REQUEST('/first'));
  expect(await first).toContain('/first');
  // B takes the only slot and sends nothing; A's next request is read all the same
  await relay.open();
  await relay.accepted(2);
  expect(relay.line.waiting).toBe(0);
  const second = answered(a);
  a.write(REQUEST('/second'));
  expect(await second).toContain('/second');
  expect(relay.seen).toEqual(['/first', '/second']);
});

test('a connection that closes while in line does not keep the next one waiting', async () => {
  const relay = await serve(1, 60_000);
  const holder = await relay.open();
  const gone = await relay.open();
  const c = await relay.open();
  await relay.accepted(3);
  expect(relay.line.waiting).toBe(2);
  gone.destroy();
  c.write(REQUEST('/c'));
  const parsed = relay.nextRequest();
  holder.destroy();
  expect(await parsed).toBe('/c');
  expect(relay.line.waiting).toBe(0);
});
