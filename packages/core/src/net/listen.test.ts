import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { expect, test } from 'vitest';
import { ConfigError } from '../config/env.js';
import { LISTEN_BACKLOG, listenOn, PortTakenError } from './listen.js';

test('a port taken is a one-line configuration error naming the variable to change; a free one listens', async () => {
  const holder = createServer();
  const { port } = await listenOn(holder, 0, '127.0.0.1', 'PORT');
  expect(port).toBeGreaterThan(0);
  try {
    const error = await listenOn(createServer(), port, '127.0.0.1', 'METRICS_PORT').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortTakenError);
    expect(error).toBeInstanceOf(ConfigError); // runMain prints it without a stack
    expect((error as Error).message).toBe(
      `cannot listen on 127.0.0.1:${port}: address already in use (another relay, or another program, listens there); ` +
        'set METRICS_PORT to a free port (or stop what holds it)',
    );
  } finally {
    holder.close();
  }
});

test('an error listening that is not about the address is passed on as it is', async () => {
  const error = await listenOn(createServer(), 0, 'not a host name', 'PORT').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(PortTakenError);
});

test('a server listens with a queue for thousands of connections, not the 511 Node asks for', async () => {
  const server = createServer();
  const { port } = await listenOn(server, 0, '127.0.0.1', 'PORT');
  try {
    // for a listening socket, ss gives the queue's size as its Send-Q
    const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim();
    const queue = Number(line.split(/\s+/)[2]);
    const ceiling = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(queue).toBe(Math.min(LISTEN_BACKLOG, ceiling));
    expect(queue).toBeGreaterThan(511);
  } finally {
    server.close();
  }
});
