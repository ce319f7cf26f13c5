import { Readable } from 'node:stream';
import { z } from 'zod';
import { luaCommand, type ScriptHost, type Step } from '../lua-command.js';
import freshPutLua from '../lua/fresh-put.lua';
import type { BlobStore } from './s3.js';

/**
 * Files just stored, handed to the api process that waits to answer with their bytes (a clip
 * answered inline, an image asked as b64_json). The worker has the bytes in hand when it stores
 * them; the api would read them straight back from the store (a signed GET, the store serving it:
 * about a third of a clip's whole cost). So the worker also leaves them in Redis, in the same round
 * trip as the job's charge (before its end is told), and the api takes them from there (GETDEL) when
 * it presents the answer, the store's copy being the lasting one. A copy nobody takes (its caller
 * left) lapses after FRESH_TTL_MS; one larger than FRESH_MAX_BYTES is not made (the store serves it).
 * The key shares the prefix's hash tag (Redis Cluster).
 */
export const freshKey = (prefix: string, key: string) => `${prefix}:fresh:${key}`;
/** Clips of about 20 s of 24 kHz PCM, and most images: bigger ones are read back from the store. */
export const FRESH_MAX_BYTES = 1024 * 1024;
/** An api process takes its copy within milliseconds of the job's end; one that never does, gone soon. */
export const FRESH_TTL_MS = 30_000;

const freshPut = luaCommand({ name: 'fresh-put', lua: freshPutLua, keys: ['fresh'], args: ['value', 'ttlMs'], reply: z.literal(1) });

export interface FreshFile {
  /** The file's key in the store. */
  key: string;
  bytes: Buffer;
  contentType: string;
}

/** The step that leaves `file` for the api (to send with the job's last steps), or undefined when it is too big to. */
export function freshStep(prefix: string, file: FreshFile): Step<1> | undefined {
  if (file.bytes.length > FRESH_MAX_BYTES || file.contentType.includes('\n')) return undefined;
  const value = Buffer.concat([Buffer.from(`${file.contentType}\n`), file.bytes]);
  return freshPut.step({ fresh: freshKey(prefix, file.key) }, { value, ttlMs: FRESH_TTL_MS });
}

/** Takes a file's fresh copy: found once, then gone. */
export type TakeFresh = (key: string) => Promise<{ bytes: Buffer; contentType: string } | undefined>;

/** `store`, whose reads of a whole file (getObject, getObjectBuffer) take its fresh copy first when there is one. */
export function withFreshFiles(store: BlobStore, redis: ScriptHost, prefix: string): BlobStore {
  const take: TakeFresh = async (key) => {
    const value = await redis.getdelBuffer(freshKey(prefix, key));
    const newline = value?.indexOf(0x0a) ?? -1;
    if (!value || newline < 0) return undefined;
    return { contentType: value.subarray(0, newline).toString(), bytes: value.subarray(newline + 1) };
  };
  return { ...store, takeFresh: take };
}

/** A fresh copy as getObject gives a stored file. */
export const freshObject = ({ bytes, contentType }: { bytes: Buffer; contentType: string }) => ({
  body: Readable.from([bytes]),
  contentType,
  contentLength: bytes.length,
});
