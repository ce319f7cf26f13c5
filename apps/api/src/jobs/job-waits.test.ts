import { expect, test } from 'vitest';
import type { Notice } from '@relay/life';
import { createTurns } from '../http/pace.js';
import { ClientDeparture, createJobWaits } from './job-waits.js';
import type { Inbox } from './inbox.js';

/** The waits behind an inbox the test speaks through. */
function waitsOf() {
  let hear: (notice: Notice) => void = () => {};
  const inbox = { listen: (listener: (notice: Notice) => void) => (hear = listener) } as unknown as Inbox;
  const stop = new AbortController();
  const waits = createJobWaits(inbox, stop.signal, createTurns(16));
  return { waits, notice: (notice: Notice) => hear(notice), stop: () => stop.abort() };
}

test("a job's end wakes every wait for it, with its result; none is left behind", async () => {
  const { waits, notice } = waitsOf();
  const first = waits.register('img_1', 60_000);
  const replay = waits.register('img_1', 60_000);
  const other = waits.register('img_2', 60_000);
  expect(waits.size).toBe(3);
  notice({ type: 'completed', jobId: 'img_1', data: '{"images":1}' });
  const ends = await Promise.all([first.ended, replay.ended]);
  expect(ends).toEqual(Array(2).fill({ end: 'event', completed: { returnvalue: { images: 1 } } }));
  expect(waits.size).toBe(1);
  other.cancel();
  expect(await other.ended).toEqual({ end: 'event' });
  expect(waits.size).toBe(0);
});

test('a client that leaves ends its own wait only; the budget ends a wait; stopping ends them all', async () => {
  const { waits, stop } = waitsOf();
  const client = new ClientDeparture();
  const leaving = waits.register('img_1', 60_000, client);
  const staying = waits.register('img_1', 60_000, new ClientDeparture());
  client.leave();
  expect(await leaving.ended).toEqual({ end: 'left' });
  expect(waits.size).toBe(1);
  expect(await waits.register('img_2', 0).ended).toEqual({ end: 'timeout' });
  stop();
  expect(await staying.ended).toEqual({ end: 'stopping' });
  expect(waits.size).toBe(0);
  // registered once the client has left, or once the api stopped waiting: ended at once
  expect(await waits.register('img_3', 60_000).ended).toEqual({ end: 'stopping' });
  expect(waits.size).toBe(0);
});

test('a wait registered for a client already gone ends at once', async () => {
  const { waits } = waitsOf();
  const gone = new ClientDeparture();
  gone.leave();
  expect(await waits.register('img_1', 60_000, gone).ended).toEqual({ end: 'left' });
  expect(waits.size).toBe(0);
});

test('a departure tells each of its listeners once, and not the ones taken off or added after it', () => {
  const client = new ClientDeparture();
  const told: string[] = [];
  const off = () => told.push('off');
  client.addEventListener('abort', () => told.push('function'));
  client.addEventListener('abort', { handleEvent: () => told.push('object') });
  client.addEventListener('abort', off);
  client.removeEventListener('abort', off);
  client.leave();
  client.leave();
  client.addEventListener('abort', () => told.push('late'));
  expect(client.aborted).toBe(true);
  expect(told).toEqual(['function', 'object']);
});
