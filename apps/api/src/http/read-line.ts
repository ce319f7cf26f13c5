import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { fifo } from './pace.js';

/**
 * New connections read their first request a few at a time. Node parses the requests of every
 * connection readable in one turn of its loop together, before any of the relay's code runs: a
 * burst's callers connect first and send a moment later, so thousands of requests were parsed in
 * one turn (56-74 ms). Here a connection stays paused (the server's `pauseOnConnect`) until one
 * of `slots` is free; it holds the slot until its first request is parsed, it closes, or
 * `slotMs` pass (a client that connects and sends nothing holds nobody back for long). Later
 * requests on a kept-alive connection are not held.
 */
export function createReadLine(slots: number, slotMs: number) {
  const line = fifo<Socket>();
  /** The connections reading their first request, oldest first (a Map keeps insertion order), with when each began. */
  const reading = new Map<Socket, number>();
  let expiry: NodeJS.Timeout | undefined;

  const release = (socket: Socket) => {
    if (reading.delete(socket)) next();
  };
  const expire = () => {
    const now = Date.now();
    for (const [socket, since] of reading) {
      if (now - since < slotMs) break;
      reading.delete(socket);
    }
  };
  const next = () => {
    if (reading.size >= slots) expire();
    while (reading.size < slots) {
      const socket = line.take();
      if (!socket) break;
      if (socket.destroyed) continue;
      reading.set(socket, Date.now());
      socket.resume();
    }
    // every slot held and some still in line: look again when the oldest slot runs out
    if (line.length > 0 && expiry === undefined) {
      const [oldest] = reading.values();
      expiry = setTimeout(
        () => {
          expiry = undefined;
          next();
        },
        Math.max(1, (oldest ?? Date.now()) + slotMs - Date.now()),
      );
      expiry.unref();
    }
  };

  return {
    /** A new connection, paused: it reads at its turn. */
    add(socket: Socket) {
      socket.once('close', () => release(socket));
      line.push(socket);
      next();
    },
    /** Its first request is parsed: the slot goes to the next connection. */
    parsed(socket: Socket) {
      release(socket);
    },
    get waiting() {
      return line.length;
    },
  };
}

export type ReadLine = ReturnType<typeof createReadLine>;

/** Puts `server`'s new connections in a read line: each is paused as it is accepted and resumed at its turn. */
export function readInLine(server: Server, slots: number, slotMs: number): ReadLine {
  // net.Server's own option, which http.createServer does not pass on: an accepted connection is
  // not read from until it is resumed (read-line.test.ts fails if Node stops honouring it)
  (server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
  const line = createReadLine(slots, slotMs);
  server.on('connection', (socket: Socket) => line.add(socket));
  server.prependListener('request', (req) => line.parsed(req.socket));
  return line;
}
