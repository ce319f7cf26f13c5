import { createServer } from 'node:http';
import { expect, test } from 'vitest';
import { ConfigError } from '../config/env.js';
import { listenOn, PortTakenError } from './listen.js';

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
