import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { createLogger } from '@relay/core';
import { notifyWaiters, type Notice } from '@relay/life';
import { startRedis, uniqueName } from '@relay/testkit';
import { createInbox } from './inbox.js';

/** The api's inbox on a real Redis: notices heard as published, and none lost or heard twice across a reconnect. */
const handle = await startRedis();
const writer = new Redis(handle.url);
const sender = new Redis(handle.url);
afterAll(async () => {
  writer.disconnect();
  sender.disconnect();
  await handle.close();
});

const notice = (n: number): Notice => ({ type: n % 2 ? 'partial' : 'completed', jobId: `job-${n}`, data: `{"n":${n}}\nline two` });

test('every notice is heard once and in order: as published, and read back from the stream for those sent while the subscription was down', async () => {
  const prefix = uniqueName('inbox');
  const subscriber = new Redis(handle.url);
  const inbox = createInbox(subscriber, writer, prefix, createLogger('api', 'silent'));
  const heard: Notice[] = [];
  let wanted = 0;
  let reached = () => {};
  inbox.listen((n) => {
    heard.push(n);
    if (heard.length >= wanted) reached();
  });
  const hear = (count: number) =>
    new Promise<void>((resolve) => {
      wanted = count;
      reached = resolve;
      if (heard.length >= count) resolve();
    });
  await inbox.start();
  await notifyWaiters(sender, prefix, notice(0), inbox.key);
  await hear(1);

  // the subscription drops; notices sent while it is down are read back once it stands again
  const closed = new Promise((resolve) => subscriber.once('end', resolve));
  subscriber.disconnect();
  await closed; // nothing more is read from that connection
  for (let n = 1; n <= 5; n++) await notifyWaiters(sender, prefix, notice(n), inbox.key);
  expect(heard).toHaveLength(1);
  await subscriber.connect();
  for (let n = 6; n <= 9; n++) await notifyWaiters(sender, prefix, notice(n), inbox.key);
  await hear(10);
  expect(heard).toEqual(Array.from({ length: 10 }, (_, n) => notice(n)));
  expect(inbox.received).toMatchObject({ completed: 5, partial: 5 });
  await inbox.stop();
});
