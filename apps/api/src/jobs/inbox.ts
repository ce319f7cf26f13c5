import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createFreshFiles, freshChannel, parseFresh, subscribeWhenReady, type Logger } from '@relay/core';
import { followJob, inboxKey, type Notice, type NoticeType } from '@relay/life';

/** The inbox lives while its process does: refreshed well within this, gone soon after a crash. */
const TTL_MS = 60_000;
const REFRESH_MS = 15_000;
/** Notices read per round trip when catching up: a backlog comes in bounded pieces. */
const READ_COUNT = 500;
/** A catch-up read that failed is tried again after this long. */
const CATCH_UP_AGAIN_MS = 1_000;
/** Heard notices are trimmed away once this many piled up (or at the next refresh): not one round trip per notice. */
const TRIM_EVERY = 1_000;

/** A notice with its place in the stream (its id), as published or read back. */
type Heard = Notice & { id: string };

/** Stream ids compared as Redis orders them ("ms-seq"). */
function after(id: string, than: string): boolean {
  const [ms = 0, seq = 0] = id.split('-').map(Number);
  const [thanMs = 0, thanSeq = 0] = than.split('-').map(Number);
  return ms > thanMs || (ms === thanMs && seq > thanSeq);
}

/** A published notice: "id\ntype\njobId\ndata" (@relay/life's notify.lua, @relay/billing's begin.lua); the data may hold newlines. */
function parsePublished(message: string): Heard | undefined {
  const first = message.indexOf('\n');
  const second = message.indexOf('\n', first + 1);
  const third = message.indexOf('\n', second + 1);
  if (first < 0 || second < 0 || third < 0) return undefined;
  return {
    id: message.slice(0, first),
    type: message.slice(first + 1, second) as NoticeType,
    jobId: message.slice(second + 1, third),
    data: message.slice(third + 1),
  };
}

/**
 * This api process's inbox: the notices of the jobs it waits for, and only those (@relay/life's
 * notices). Each notice is written to the inbox (a Redis stream) and published on its channel:
 * the process hears it on a subscribed connection of its own, with no read per notice (a blocking
 * read would cost a round trip for every wake). Whenever the subscription is made (at the start,
 * after a reconnect) the stream is read from the last notice heard, so none sent while it was
 * down is missed; notices published meanwhile wait for that read and none is handed on twice.
 * What was heard is trimmed away. A Redis restart loses the inbox: it is made again at the next
 * refresh, and waits that missed a notice end at their budget and read the job's state.
 */
export function createInbox(subscriber: Redis, writer: Redis, prefix: string, log: Logger) {
  const key = inboxKey(prefix, `${process.pid}-${randomBytes(6).toString('hex')}`);
  /** The files its workers just stored for this process's answers, published beside the notices (@relay/core's fresh.ts). */
  const fresh = { channel: freshChannel(key), files: createFreshFiles() };
  const listeners = new Set<(notice: Notice) => void>();
  /** Notices this process received, by type (a metric: it must only ever hear of its own jobs). */
  const received: Record<NoticeType, number> = { completed: 0, failed: 0, removed: 0, partial: 0, started: 0 };
  let stopped = false;
  let untrimmed = 0;
  // from the start: nothing in it is old news (it is this process's own, trimmed as it is heard)
  let last = '0';
  /**
   * Published notices held from the moment a subscription is asked for until the stream was read
   * to catch up (then handed on in order, those read skipped): the subscription's reply and the
   * first notices can arrive in one read, before the catch-up has begun. One hold per subscription
   * asked for; the last catch-up to end hands them on.
   */
  let holds = 0;
  let held: Heard[] = [];
  const hold = () => void (holds += 1);
  const release = () => {
    holds -= 1;
    if (holds > 0) return;
    const published = held;
    held = [];
    for (const notice of published) handOn(notice);
  };

  const ensure = async () => {
    // a stream exists only with an entry in it: the first one says whose inbox this is
    if ((await writer.pexpire(key, TTL_MS)) === 0) {
      await writer.multi().xadd(key, '*', 't', 'hello', 'j', '', 'd', '').pexpire(key, TTL_MS).exec();
    }
  };

  /** What was heard is done with: the inbox keeps only what is unheard (notices are also capped by length when sent). */
  const trim = async () => {
    if (untrimmed === 0 || last === '0') return;
    untrimmed = 0;
    const [ms, seq] = last.split('-');
    await writer.xtrim(key, 'MINID', `${ms}-${Number(seq) + 1}`).catch((err: Error) => log.warn({ err: err.message }, 'inbox trim failed'));
  };

  const handOn = (notice: Heard) => {
    if (!after(notice.id, last)) return; // heard already (published and read back while catching up)
    last = notice.id;
    untrimmed += 1;
    if (untrimmed >= TRIM_EVERY) void trim();
    if (notice.type === ('hello' as NoticeType)) return;
    if (Object.hasOwn(received, notice.type)) received[notice.type] += 1;
    for (const listener of listeners) listener({ type: notice.type, jobId: notice.jobId, data: notice.data });
  };

  // as Buffers: a file's bytes are not text (ioredis makes strings only for 'message' listeners)
  subscriber.on('messageBuffer', (channelBytes: Buffer, message: Buffer) => {
    const channel = channelBytes.toString();
    if (channel === fresh.channel) {
      const file = parseFresh(message);
      if (file) fresh.files.keep(file);
      return;
    }
    if (channel !== key) return;
    const notice = parsePublished(message.toString());
    if (!notice) return log.warn({ channel }, 'an inbox notice of no known shape: skipped');
    if (holds > 0) held.push(notice);
    else handOn(notice);
  });

  /**
   * Reads what the stream holds after the last notice heard: run once the subscription stands,
   * it ends its hold. A read that fails is tried again a second later, the hold kept: a notice
   * published meanwhile must not be handed on before those still unread in the stream.
   */
  const catchUp = async () => {
    try {
      for (;;) {
        const entries = await writer.xrange(key, `(${last}`, '+', 'COUNT', READ_COUNT);
        for (const [id, fields] of entries) {
          const [, type = '', , jobId = '', , data = ''] = fields;
          handOn({ id, type: type as NoticeType, jobId, data });
        }
        if (entries.length < READ_COUNT) break;
      }
    } catch (error) {
      if (stopped) return;
      log.warn({ err: (error as Error).message }, 'inbox catch-up failed; reading again in a second');
      setTimeout(() => void catchUpInTurn(), CATCH_UP_AGAIN_MS).unref();
      return;
    }
    release();
  };

  /** One catch-up at a time: a second one (a reconnect during the first) reads from where the first left off. */
  let catching: Promise<void> = Promise.resolve();
  const catchUpInTurn = () => (catching = catching.then(catchUp, catchUp));

  /** After a reconnect ioredis subscribes again by itself; once that stands, what was sent meanwhile is read. */
  const resubscribed = () => {
    if (stopped) return;
    hold();
    void subscriber
      .subscribe(key, fresh.channel)
      .then(catchUpInTurn, (err: Error) => {
        release();
        throw err;
      })
      .catch((err: Error) => log.warn({ err: err.message }, 'inbox catch-up after a reconnect failed; it is tried at the next one'));
  };

  let refresh: NodeJS.Timeout | undefined;
  return {
    key,
    received: received as Readonly<Record<NoticeType, number>>,
    async start() {
      await ensure();
      hold();
      await subscribeWhenReady(subscriber, key, fresh.channel).catch((error: unknown) => {
        release();
        throw error;
      });
      await catchUpInTurn();
      subscriber.on('ready', resubscribed);
      refresh = setInterval(
        () => void Promise.all([ensure(), trim()]).catch((err: Error) => log.warn({ err: err.message }, 'inbox refresh failed')),
        REFRESH_MS,
      );
      refresh.unref();
    },
    /** Takes a file a worker just stored for an answer of this process, when it was heard (else the store is read). */
    takeFresh: fresh.files.take,
    /** Hands every notice to `listener`. */
    listen(listener: (notice: Notice) => void) {
      listeners.add(listener);
    },
    /** For a job this process did not add: its end is sent here too. */
    async watch(jobId: string) {
      await followJob(writer, prefix, jobId, key);
    },
    async stop() {
      stopped = true;
      clearInterval(refresh);
      subscriber.disconnect();
      await writer.del(key).catch(() => undefined);
    },
  };
}

export type Inbox = ReturnType<typeof createInbox>;
