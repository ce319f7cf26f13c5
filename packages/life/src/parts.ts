import type { ScriptHost } from '@relay/core';
import type { MetaJob } from '@relay/jobs';
import { z } from 'zod';
import { notifyWaiters } from './notices.js';

/**
 * A job's parts as they are made (a clip's audio while it is still being spoken), on their way to
 * the api process that waits for the job: kept in a stream of the job's own, bounded in length
 * and short-lived, and announced by a small notice to the waiter's inbox (the bytes never ride
 * in the inbox, which every job of that process shares). The waiter reads the stream from where
 * it left off, so a lost or late notice loses nothing; the job's end notice comes after its last
 * part, and the waiter reads what is left then. The key shares the prefix's hash tag (Cluster).
 */
export const partsKey = (prefix: string, jobId: string) => `${prefix}:job:${jobId}:parts`;
/** More parts than a clip's longest stream (about one a second of audio, at most 330 s), fewer than unbounded. */
export const PARTS_MAX_LENGTH = 2_048;
/** A waiter reads a part within milliseconds; the stream outlives a slow one, then goes. */
export const PARTS_TTL_MS = 10 * 60_000;
/** Once the job ended its waiter reads the rest at once: the stream need not stay. */
const ENDED_TTL_MS = 60_000;
const READ_COUNT = 256;

/** What the waiter's notice says: which job, and which part came (the bytes are in the stream). */
export const partNoticeSchema = z.object({ job: z.string(), seq: z.number().int().min(0) });

export interface StreamedPart {
  /** The stream entry's id: where the next read starts. */
  id: string;
  /** The attempt that made it: a job run again after a crash sends its parts again from 0 under a new take. */
  take: string;
  seq: number;
  /** What the bytes are (a content type, or the vendor's PCM mime type). */
  type: string;
  bytes: Buffer;
}

export interface PartsWriter {
  send(type: string, bytes: Buffer): Promise<void>;
  /** The job's parts are all sent: the stream expires soon. */
  close(): Promise<void>;
}

/** The parts of one run of a job (one take), for its waiter; a job nobody waits for sends nothing. */
export function partsWriter(redis: ScriptHost, prefix: string, job: MetaJob, take: string): PartsWriter | undefined {
  const inbox = job.data.meta.inbox;
  if (!inbox) return undefined;
  const key = partsKey(prefix, job.id!);
  let seq = 0;
  return {
    async send(type, bytes) {
      const notice = { type: 'partial' as const, jobId: job.id!, data: JSON.stringify({ job: job.id!, seq }) };
      // one connection runs commands in the order sent: the part is in the stream before its notice
      const added = redis
        .multi()
        .xadd(key, 'MAXLEN', '~', PARTS_MAX_LENGTH, '*', 't', take, 's', String(seq), 'm', type, 'b', bytes)
        .pexpire(key, PARTS_TTL_MS)
        .exec();
      seq += 1;
      await Promise.all([added, notifyWaiters(redis, prefix, notice, inbox)]);
    },
    async close() {
      await redis.pexpire(key, ENDED_TTL_MS);
    },
  };
}

const fieldsOf = (fields: Buffer[]) => {
  const named = new Map<string, Buffer>();
  for (let i = 0; i + 1 < fields.length; i += 2) named.set(fields[i]!.toString(), fields[i + 1]!);
  return named;
};

/** The parts after entry `after` (from the first when absent), in order, a bounded read at a time. */
export async function readParts(redis: ScriptHost, prefix: string, jobId: string, after?: string): Promise<StreamedPart[]> {
  const entries = await redis.xrangeBuffer(partsKey(prefix, jobId), after ? `(${after}` : '-', '+', 'COUNT', READ_COUNT);
  return entries.map(([id, fields]) => {
    const named = fieldsOf(fields);
    return {
      id: id.toString(),
      take: named.get('t')?.toString() ?? '',
      seq: Number(named.get('s')?.toString() ?? -1),
      type: named.get('m')?.toString() ?? '',
      bytes: named.get('b') ?? Buffer.alloc(0),
    };
  });
}
