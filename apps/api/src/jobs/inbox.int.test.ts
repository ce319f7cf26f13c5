import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { createLogger } from '@relay/core';
import { notifyWaiters, waiterSetKey, type Notice } from '@relay/life';
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

test('a catch-up read that fails is tried again, the notices published meanwhile held until it has read the rest', async () => {
  const prefix = uniqueName('inbox');
  const subscriber = new Redis(handle.url);
  const flaky = new Redis(handle.url);
  const inbox = createInbox(subscriber, flaky, prefix, createLogger('api', 'silent'));
  const heard: string[] = [];
  let reached = () => {};
  inbox.listen((n) => {
    heard.push(n.jobId);
    reached();
  });
  const hear = (count: number) =>
    new Promise<void>((resolve) => {
      reached = () => heard.length >= count && resolve();
      reached();
    });
  await inbox.start();
  const closed = new Promise((resolve) => subscriber.once('end', resolve));
  subscriber.disconnect();
  await closed;
  for (let n = 1; n <= 3; n++) await notifyWaiters(sender, prefix, notice(n), inbox.key);
  // the read after the reconnect fails once; a notice published after the subscription stands waits for the read again
  const xrange = flaky.xrange.bind(flaky);
  let failedOnce = false;
  flaky.xrange = ((...args: Parameters<typeof xrange>) => {
    if (failedOnce) return xrange(...args);
    failedOnce = true;
    void notifyWaiters(sender, prefix, notice(4), inbox.key);
    return Promise.reject(new Error('read failed'));
  }) as typeof flaky.xrange;
  await subscriber.connect();
  await hear(4);
  expect(heard).toEqual(['job-1', 'job-2', 'job-3', 'job-4']);
  await inbox.stop();
  flaky.disconnect();
});

test('a notice to an inbox that no longer exists (its process died, its stream expired) makes nothing; the live ones of the waiter set still get it', async () => {
  const prefix = uniqueName('inbox');
  const gone = `${prefix}:inbox:gone`;
  const live = `${prefix}:inbox:live`;
  await writer.xadd(live, '*', 'init', '1');
  await writer.sadd(waiterSetKey(prefix, 'job-7'), gone, live);
  const published: string[] = [];
  const listener = new Redis(handle.url);
  await listener.subscribe(gone, live);
  listener.on('message', (channel: string) => published.push(channel));
  await notifyWaiters(sender, prefix, notice(7), gone);
  expect(await writer.exists(gone)).toBe(0);
  const [[, fields]] = (await writer.xrevrange(live, '+', '-', 'COUNT', 1)) as [[string, string[]]];
  expect(fields).toEqual(['t', 'partial', 'j', 'job-7', 'd', notice(7).data]);
  await listener.ping(); // answered after whatever was published before it
  expect(published).toEqual([live]);
  listener.disconnect();
});
