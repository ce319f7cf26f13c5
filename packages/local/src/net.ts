import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';

/** The lowest port the kernel draws outgoing connections' local ends from (Linux's own file; the IANA range elsewhere). */
export function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

/** How many ports below the ephemeral range a port is drawn from. */
const SPAN = 12_000;

/** Whether a server can listen on `port` of 127.0.0.1 right now. */
function listens(port: number): Promise<number | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A TCP port that was free a moment ago on 127.0.0.1, drawn at random from below the kernel's
 * ephemeral range. A port from inside that range (what listening on port 0 gives) can be taken
 * by any outgoing connection's local end while its server is down: a Redis or store that a test
 * stops and starts again on its port then finds it in use, or another test's server there.
 * Below the range only a listener can take it, and drawn at random two test workers seldom meet.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralPortsFrom();
  const from = Math.max(1_024, low - SPAN);
  for (let attempt = 0; attempt < 100 && from < low; attempt++) {
    const port = await listens(randomInt(from, low));
    if (port !== undefined) return port;
  }
  // no room below the range (or all of it taken): the kernel's choice
  const port = await listens(0);
  if (port === undefined) throw new Error('no TCP port is free on 127.0.0.1');
  return port;
}

/** Whether something accepts TCP connections on `host:port`. */
export function portAnswers(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}
