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

test('requests through the middleware take the same turns as other work', async () => {
  const turns = createTurns(2);
  const order: string[] = [];
  turns.run(() => order.push('answer'));
  for (const name of ['a', 'b', 'c']) turns.middleware({} as never, {} as never, () => order.push(name));
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
