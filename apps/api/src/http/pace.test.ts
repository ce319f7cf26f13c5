import { expect, test } from 'vitest';
import { createTurns } from './pace.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('queued work runs in order, at most perTurn pieces per turn of the event loop', async () => {
  const turns = createTurns(4);
  const ran: number[] = [];
  for (let i = 0; i < 10; i++) turns.run(() => ran.push(i));
  expect(ran).toEqual([]); // nothing runs in the caller's turn
  await nextTurn();
  expect(ran).toEqual([0, 1, 2, 3]);
  await nextTurn();
  expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  await nextTurn();
  expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('requests through the middleware take the turns the work going on leaves', async () => {
  const turns = createTurns(2);
  const order: string[] = [];
  turns.run(() => order.push('answer'));
  for (const name of ['a', 'b', 'c']) turns.middleware()({} as never, {}, () => order.push(name));
  await nextTurn();
  expect(order).toEqual(['answer', 'a']);
  await nextTurn();
  expect(order).toEqual(['answer', 'a', 'b', 'c']);
});

test('next() resumes its caller at a paced turn, in order with other work', async () => {
  const turns = createTurns(1);
  const order: string[] = [];
  turns.run(() => order.push('first'));
  const resumed = turns.next().then(() => order.push('resumed'));
  turns.run(() => order.push('third'));
  await nextTurn();
  expect(order).toEqual(['first']);
  await resumed;
  expect(order).toEqual(['first', 'resumed']);
  await nextTurn();
  expect(order).toEqual(['first', 'resumed', 'third']);
});

test('work going on takes its turn before requests still to begin, whenever it was queued', async () => {
  const turns = createTurns(2);
  const order: string[] = [];
  for (const name of ['a', 'b', 'c', 'd']) turns.middleware()({} as never, {}, () => order.push(name));
  await nextTurn();
  expect(order).toEqual(['a', 'b']);
  // an admission's next step and an answer, queued after c and d
  let resumedAfter: string[] = [];
  const resumed = turns.next().then(() => (resumedAfter = [...order]));
  turns.run(() => order.push('answer'));
  await nextTurn();
  await resumed;
  expect(resumedAfter).toEqual(['a', 'b', 'answer']);
  expect(order).toEqual(['a', 'b', 'answer']);
  await nextTurn();
  expect(order).toEqual(['a', 'b', 'answer', 'c', 'd']);
});

test('a long line is taken in order to its end', async () => {
  const turns = createTurns(500);
  const ran: number[] = [];
  for (let i = 0; i < 3_000; i++) turns.middleware()({} as never, {}, () => ran.push(i));
  while (ran.length < 3_000) await nextTurn();
  expect(ran).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
});

test('a request the middleware is told to let through goes on at once, ahead of the line', async () => {
  const turns = createTurns(1);
  const order: string[] = [];
  const paced = turns.middleware((req) => req.url === '/healthz');
  for (const path of ['/v1/a', '/v1/b', '/healthz', '/v1/c']) paced({ url: path } as never, {}, () => order.push(path));
  expect(order).toEqual(['/healthz']);
  await nextTurn();
  await nextTurn();
  await nextTurn();
  expect(order).toEqual(['/healthz', '/v1/a', '/v1/b', '/v1/c']);
});
