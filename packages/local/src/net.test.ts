import { createServer } from 'node:net';
import { expect, test } from 'vitest';
import { ephemeralPortsFrom, freePort } from './net.js';

test('a free port is drawn below the range outgoing connections take their local ports from, and can be listened on', async () => {
  const low = ephemeralPortsFrom();
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeLessThan(low);
    expect(port).toBeGreaterThanOrEqual(1_024);
  }
  // drawn at random: twenty draws are not one port
  expect(new Set(ports).size).toBeGreaterThan(1);
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
