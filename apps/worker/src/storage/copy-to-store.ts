import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, policyLookup, putObject, RefusedAddress, refusedLink, type BlobStore, type UrlPolicy } from '@relay/core';

/** How long to keep trying to store a paid result before the attempt fails (STORE_RETRY_MS). */
export interface StoreRetry {
  deadlineMs: number;
  /** Told of every failed try that will be tried again (metrics, logs). */
  onRetry?: (error: unknown) => void;
}

export interface CopyLimits {
  maxBytes: number;
  timeoutMs: number;
  retry: StoreRetry;
  /** Which hosts an upstream's result link may point at. */
  urls: UrlPolicy;
}

/** A result over RESULT_MAX_BYTES: retrying cannot help. */
export class FileTooLarge extends Error {
  override name = 'FileTooLarge';
}

/** The link answered 4xx (expired, refused) or the URL policy refuses it: trying again cannot help. */
export class LinkRefused extends Error {
  override name = 'LinkRefused';
}

/**
 * Retries a store write (with backoff, up to 2 s apart) until it succeeds or `deadlineMs` has
 * passed. The result it writes is already paid for: a store outage shorter than the deadline
 * must cost no second upstream call, and the audio or image stays in this worker's memory,
 * never in Redis, meanwhile.
 */
export async function untilStored<T>(write: () => Promise<T>, { deadlineMs, onRetry }: StoreRetry): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const pause = Math.min(250 * 2 ** attempt, 2_000);
      if (error instanceof FileTooLarge || error instanceof LinkRefused || Date.now() + pause > deadline) throw error;
      onRetry?.(error);
      await sleep(pause);
    }
  }
}

/** Passes bytes through and fails the stream once more than `max` went by. */
function byteCap(max: number, counted: { bytes: number }) {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      counted.bytes += chunk.length;
      if (counted.bytes > max) return done(new FileTooLarge(`file exceeds ${max} bytes`));
      done(null, chunk);
    },
  });
}

/**
 * GET as a Node stream (node:http is lighter than fetch's web streams on this hot path), held
 * to the URL policy: an upstream's link must not make the worker fetch from inside its network.
 */
function download(link: string, urls: UrlPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  const url = new URL(link);
  const refused = refusedLink(url, urls);
  if (refused) return Promise.reject(new LinkRefused(refused));
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const req = get(url, { signal, lookup: policyLookup(urls, url) }, resolve);
    req.on('error', (error) => reject(error instanceof RefusedAddress ? new LinkRefused(error.message) : error));
  });
}

async function copyOnce(url: string, store: BlobStore, key: string, contentType: string, limits: CopyLimits) {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const res = await download(url, limits.urls, signal);
  if (res.statusCode !== 200) {
    res.resume();
    const status = res.statusCode ?? 0;
    throw new (status >= 400 && status < 500 ? LinkRefused : Error)(`download answered HTTP ${status}`);
  }
  const length = Number(res.headers['content-length'] ?? Number.NaN);
  if (length > limits.maxBytes) {
    res.destroy();
    throw new FileTooLarge(`file is ${length} bytes, more than ${limits.maxBytes}`);
  }
  const counted = { bytes: 0 };
  const body = res.pipe(byteCap(limits.maxBytes, counted));
  res.on('error', (error) => body.destroy(error));
  await putObject(store, key, body, {
    contentType: res.headers['content-type'] ?? contentType,
    ...(Number.isFinite(length) ? { contentLength: length } : {}),
    signal,
  });
  return counted.bytes;
}

/**
 * Streams an upstream link into the store (never whole into memory), with a size cap and a
 * deadline per try, retried while the store is away: a copy failure must not throw away a
 * paid generation.
 */
export function copyUrlToStore(url: string, store: BlobStore, key: string, contentType: string, limits: CopyLimits) {
  return untilStored(() => copyOnce(url, store, key, contentType, limits), limits.retry);
}

export function putBufferToStore(store: BlobStore, key: string, bytes: Buffer, contentType: string, retry: StoreRetry) {
  return untilStored(async () => {
    await putObject(store, key, bytes, { contentType, contentLength: bytes.length });
    return bytes.length;
  }, retry);
}

/** A copy failure as the client will see it: too large or a refused link is final, anything else worth a retry. */
export function storeError(what: string, cause: unknown): AppError {
  if (cause instanceof FileTooLarge) {
    return new AppError('upstream_failed', `${what} is larger than this relay accepts: ${cause.message}`, { retryable: false, cause });
  }
  if (cause instanceof LinkRefused) {
    return new AppError('upstream_failed', `${what} could not be fetched from the upstream's link: ${cause.message}`, {
      retryable: false,
      cause,
    });
  }
  return new AppError('unavailable', `${what} could not be copied into the store: ${(cause as Error).message}`, {
    cause,
    retryAfterMs: 5_000,
  });
}
