import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../config/env.js';

/**
 * A port another program holds: a setting to change, not a crash, so runMain prints this one
 * line (a ConfigError) instead of Node's "Unhandled 'error' event" stack.
 */
export class PortTakenError extends ConfigError {
  override name = 'PortTakenError';
  constructor(
    readonly variable: string,
    host: string,
    port: number,
    reason: string,
  ) {
    super(`cannot listen on ${host}:${port}: ${reason}; set ${variable} to a free port (or stop what holds it)`);
  }
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'address already in use (another relay, or another program, listens there)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'no such address on this machine',
};

/**
 * The queue of connections the kernel has completed but the process has not yet accepted (the
 * kernel caps it at net.core.somaxconn, 4096 on current Linux). Node's 511 overflows when
 * thousands of clients connect within one busy turn of the event loop: the kernel then drops
 * their handshakes, and a client that had already sent its request is reset a minute later,
 * when the server's SYN-ACK retries run out.
 */
export const LISTEN_BACKLOG = 4096;

/**
 * `server.listen(port, host)` that rejects when it cannot listen, naming `variable` (PORT,
 * METRICS_PORT, SIM_PORT...), instead of leaving the server's 'error' event unhandled.
 */
export async function listenOn(server: Server, port: number, host: string, variable: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const reason = error.code && Object.hasOwn(REASONS, error.code) ? REASONS[error.code] : undefined;
      reject(reason ? new PortTakenError(variable, host, port, reason) : error);
    };
    server.once('error', failed);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', failed);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}
