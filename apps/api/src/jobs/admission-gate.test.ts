import { expect, test } from 'vitest';
import { AppError } from '@relay/core';
import { createAdmissionGate } from './admission-gate.js';

/** A piece of work that runs until its test lets it finish. */
function held() {
  let finish!: () => void;
  let started!: () => void;
  const began = new Promise<void>((resolve) => (started = resolve));
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { began, finish, work: () => (started(), done) };
}

/** A gate of one slot, held by an admission that runs until its test lets it finish. */
function fullGate() {
  const gate = createAdmissionGate(1);
  const first = held();
  const running = gate.admit(new AbortController().signal, first.work);
  return { gate, first, running };
}

const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

test('at most `limit` admissions run at once; the others start in arrival order as slots free up', async () => {
  const gate = createAdmissionGate(2);
  const signal = new AbortController().signal;
  const works = [held(), held(), held(), held()];
  const order: number[] = [];
  const runs = works.map((w, i) => gate.admit(signal, () => (order.push(i), w.work())));
  await settled();
  expect(order).toEqual([0, 1]);
  expect(gate.load()).toEqual({ inside: 2, waiting: 2 });
  works[1]!.finish();
  await works[2]!.began;
  expect(order).toEqual([0, 1, 2]);
  works[0]!.finish();
  await works[3]!.began;
  expect(order).toEqual([0, 1, 2, 3]);
  works[2]!.finish();
  works[3]!.finish();
  await Promise.all(runs);
  expect(gate.load()).toEqual({ inside: 0, waiting: 0 });
});

test('a slot is freed when the admission fails', async () => {
  const gate = createAdmissionGate(1);
  const signal = new AbortController().signal;
  await expect(gate.admit(signal, () => Promise.reject(new Error('redis away')))).rejects.toThrow('redis away');
  await expect(gate.admit(signal, () => Promise.resolve('next'))).resolves.toBe('next');
  expect(gate.load()).toEqual({ inside: 0, waiting: 0 });
});

test('a caller who leaves while waiting is never admitted, and its place goes to the next', async () => {
  const { gate, first, running } = fullGate();
  const leaving = new AbortController();
  let ranForLeaver = false;
  const leaver = gate.admit(leaving.signal, () => ((ranForLeaver = true), Promise.resolve()));
  const after = held();
  const next = gate.admit(new AbortController().signal, after.work);
  await first.began;
  leaving.abort();
  const error = await leaver.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('cancelled');
  first.finish();
  await after.began;
  after.finish();
  await Promise.all([running, next]);
  expect(ranForLeaver).toBe(false);
  expect(gate.load()).toEqual({ inside: 0, waiting: 0 });
});

test('a caller already gone when it reaches a full gate is refused at once', async () => {
  const { gate, first, running } = fullGate();
  const gone = new AbortController();
  gone.abort();
  await expect(gate.admit(gone.signal, () => Promise.resolve())).rejects.toMatchObject({ code: 'cancelled' });
  first.finish();
  await running;
});

test('work done outside gives the slot to a waiting admission, then waits its turn to go on', async () => {
  const gate = createAdmissionGate(1);
  const signal = new AbortController().signal;
  const upload = held();
  const order: string[] = [];
  const preparing = gate.admit(signal, async () => {
    order.push('a: reserve');
    await gate.outside(upload.work);
    order.push('a: add');
  });
  await upload.began;
  const other = held();
  const b = gate.admit(signal, () => (order.push('b: reserve'), other.work()));
  await other.began;
  // a's upload is over, but b holds the only slot: a goes on once b is done
  upload.finish();
  await settled();
  expect(order).toEqual(['a: reserve', 'b: reserve']);
  other.finish();
  await Promise.all([preparing, b]);
  expect(order).toEqual(['a: reserve', 'b: reserve', 'a: add']);
  expect(gate.load()).toEqual({ inside: 0, waiting: 0 });
});

test('an admission back from outside goes on before the requests still waiting to begin', async () => {
  const gate = createAdmissionGate(1);
  const signal = new AbortController().signal;
  const upload = held();
  const order: string[] = [];
  const preparing = gate.admit(signal, async () => {
    order.push('a: reserve');
    await gate.outside(upload.work);
    order.push('a: add');
  });
  await upload.began;
  // b takes the slot a gave up; c and d wait for one
  const other = held();
  const b = gate.admit(signal, () => (order.push('b: reserve'), other.work()));
  const later = ['c', 'd'].map((name) => gate.admit(signal, async () => void order.push(`${name}: reserve`)));
  await other.began;
  upload.finish();
  await settled();
  expect(gate.load()).toEqual({ inside: 1, waiting: 3 });
  other.finish();
  await Promise.all([preparing, b, ...later]);
  expect(order).toEqual(['a: reserve', 'b: reserve', 'a: add', 'c: reserve', 'd: reserve']);
  expect(gate.load()).toEqual({ inside: 0, waiting: 0 });
});
