import { Readable } from 'node:stream';
import { z } from 'zod';
import { luaCommand, type Step } from '../lua-command.js';
import freshPublishLua from '../lua/fresh-publish.lua';

/**
 * Files just stored, handed to the api process that waits to answer with their bytes (a clip
 * answered inline). The worker has the bytes in hand when it stores them; the api would read them
 * straight back from the store (a signed GET, and the store serving it: about a third of a clip's
 * whole cost). So the worker also publishes them to the waiting process, on its inbox's fresh
 * channel, in the same round trip as the job's charge and so before its end is told (Redis hands
 * a subscriber its messages in the order they were published); the api keeps them in memory until
 * the answer takes them (or FRESH_TTL_MS passes), and reads the store when it heard none: a file
 * over FRESH_MAX_BYTES, a subscription down at that moment, a waiter in another process. Nothing
 * is kept in Redis, and no round trip is added on either side.
 */
export const freshChannel = (inbox: string) => `${inbox}:fresh`;
/** Clips of about 20 s of 24 kHz PCM: bigger ones are read back from the store. */
export const FRESH_MAX_BYTES = 1024 * 1024;
/** The api's answer takes its file within milliseconds of hearing it; one never taken (its caller left) is dropped after this. */
export const FRESH_TTL_MS = 30_000;
/** What one api process keeps of files not yet taken, at most: past it, a file heard is dropped (the store answers). */
export const FRESH_HELD_MAX_BYTES = 64 * 1024 * 1024;

const freshPublish = luaCommand({
  name: 'fresh-publish',
  lua: freshPublishLua,
  keys: ['inbox'],
  args: ['channel', 'message'],
  reply: z.number(),
});

export interface FreshFile {
  /** The file's key in the store. */
  key: string;
  bytes: Buffer;
  contentType: string;
}

/** The step that publishes `file` to the process of `inbox` (to send with the job's last steps), or undefined when it is too big to. */
export function freshStep(inbox: string, file: FreshFile): Step<number> | undefined {
  if (file.bytes.length > FRESH_MAX_BYTES || /\n/.test(file.key + file.contentType)) return undefined;
  const message = Buffer.concat([Buffer.from(`${file.key}\n${file.contentType}\n`), file.bytes]);
  return freshPublish.step({ inbox }, { channel: freshChannel(inbox), message });
}

/** A published file: its key, its type and its bytes ("key\ntype\nbytes"), or undefined when it is not one. */
export function parseFresh(message: Buffer): FreshFile | undefined {
  const first = message.indexOf(0x0a);
  const second = first < 0 ? -1 : message.indexOf(0x0a, first + 1);
  if (second < 0) return undefined;
  return {
    key: message.subarray(0, first).toString(),
    contentType: message.subarray(first + 1, second).toString(),
    bytes: message.subarray(second + 1),
  };
}

/** Takes a file's fresh copy: found once, then gone. */
export type TakeFresh = (key: string) => FreshFile | undefined;

/** The files an api process heard, until its answers take them: bounded in bytes and in age. */
export function createFreshFiles(now: () => number = Date.now) {
  const held = new Map<string, { file: FreshFile; at: number }>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = held.get(key);
    if (!entry) return;
    held.delete(key);
    bytes -= entry.file.bytes.length;
  };
  return {
    /** A file heard: kept for its answer, unless the held bytes are at their bound. */
    keep(file: FreshFile) {
      // oldest first (a Map keeps insertion order): those past their age go
      for (const [key, entry] of held) {
        if (now() - entry.at < FRESH_TTL_MS) break;
        drop(key);
      }
      drop(file.key);
      if (bytes + file.bytes.length > FRESH_HELD_MAX_BYTES) return;
      held.set(file.key, { file, at: now() });
      bytes += file.bytes.length;
    },
    take: ((key) => {
      const entry = held.get(key);
      drop(key);
      return entry && now() - entry.at < FRESH_TTL_MS ? entry.file : undefined;
    }) satisfies TakeFresh,
    /** Bytes held now. */
    heldBytes: () => bytes,
  };
}

/** `store` (a BlobStore), whose reads of a whole file (getObject, getObjectBuffer) take its fresh copy first when there is one. */
export const withFreshFiles = <S extends object>(store: S, take: TakeFresh): S & { takeFresh: TakeFresh } => ({
  ...store,
  takeFresh: take,
});

/** A fresh copy as getObject gives a stored file. */
export const freshObject = ({ bytes, contentType }: FreshFile) => ({
  body: Readable.from([bytes]),
  contentType,
  contentLength: bytes.length,
});
