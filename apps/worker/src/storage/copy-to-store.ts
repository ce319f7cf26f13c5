import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AppError,
  imageDimensions,
  policyLookup,
  putObject,
  RefusedAddress,
  refusedLink,
  type BlobStore,
  type Dimensions,
  type UrlPolicy,
} from '@relay/core';
import { IMAGE_FILES, notAnImage, SNIFF_BYTES, sniffImage, type ImageFormat } from './sniff-image.js';
import { RefusedBytes, type FileKind } from './file-kind.js';

/** How long to keep trying to store a paid result before the attempt fails (`tuning.worker.storeRetryMs`). */
export interface StoreRetry {
  deadlineMs: number;
  /** Told of every failed try that will be tried again (metrics, logs). */
  onRetry?: (error: unknown) => void;
}

export interface CopyLimits {
  maxBytes: number;
  timeoutMs: number;
  retry: StoreRetry;
  /** Which hosts an upstream's result link may point at, and every hop it redirects to. */
  urls: UrlPolicy;
  /** A copied file up to this many bytes is also kept in memory (StoredBytes' `kept`): its answer carries its bytes. */
  keepUpTo?: number;
}

/** A result over `tuning.worker.resultMaxBytes`: retrying cannot help. */
export class FileTooLarge extends Error {
  override name = 'FileTooLarge';
}

/** The link answered 4xx (expired, refused), redirected too often or the URL policy refuses a hop: trying again cannot help. */
export class LinkRefused extends Error {
  override name = 'LinkRefused';
}

export { NotAnImage } from './sniff-image.js';

/** How many redirects a result link may take before it is refused. */
export const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Where a file goes once its bytes said what it is: its key and the Content-Type it is stored with. */
export type FileTarget<F extends string> = (format: F) => { key: string; contentType: string };
export type ImageTarget = FileTarget<ImageFormat>;

/** What was stored: its size and what its bytes are. */
export interface StoredBytes<F extends string> {
  bytes: number;
  format: F;
  contentType: string;
  /** Read from an image's own header: what a vendor that names no size made (none for other files). */
  dimensions: Dimensions | undefined;
  /** The bytes stored, when they were in memory anyway or kept as asked (CopyLimits' `keepUpTo`). */
  kept?: Buffer;
}
export type StoredImage = StoredBytes<ImageFormat>;

/** How far into a download its header is looked for (a JPEG's frame header may follow large metadata). */
const DIMENSIONS_WITHIN = 256 * 1024;

/** The chunks of a file passed through, while it is no bigger than `upTo` (then none). */
interface Keeping {
  upTo: number;
  chunks: Buffer[];
  size: number;
}

/**
 * Passes bytes through and reads the image's dimensions from the first of them: only the bytes
 * before the header is found (at most DIMENSIONS_WITHIN) are held, by reference; and all of them,
 * by reference too, while they fit `keeping`.
 */
function dimensionsTap(found: { dimensions?: Dimensions }, keeping?: Keeping) {
  let seen: Buffer[] = [];
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (keeping && keeping.size <= keeping.upTo) {
        keeping.size += chunk.length;
        if (keeping.size <= keeping.upTo) keeping.chunks.push(chunk);
        else keeping.chunks = [];
      }
      if (seen.length > 0 || size === 0) {
        seen.push(chunk);
        size += chunk.length;
        found.dimensions = imageDimensions(seen.length === 1 ? chunk : Buffer.concat(seen));
        if (found.dimensions || size >= DIMENSIONS_WITHIN) seen = [];
      }
      done(null, chunk);
    },
  });
}

/** Failures no retry can mend: the result itself is at fault, not the store. */
const isFinal = (error: unknown) => error instanceof FileTooLarge || error instanceof LinkRefused || error instanceof RefusedBytes;

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
      if (isFinal(error) || Date.now() + pause > deadline) throw error;
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

/** One GET, held to the URL policy: its scheme and literal address now, the addresses its name resolves to at connect. */
function getOnce(url: URL, urls: UrlPolicy, signal: AbortSignal, hop: number): Promise<IncomingMessage> {
  const after = hop === 0 ? '' : `after ${hop} redirect${hop === 1 ? '' : 's'}, `;
  const refused = refusedLink(url, urls);
  if (refused) return Promise.reject(new LinkRefused(after + refused));
  const get = url.protocol === 'https:' ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const req = get(url, { signal, lookup: policyLookup(urls, url) }, resolve);
    req.on('error', (error) => reject(error instanceof RefusedAddress ? new LinkRefused(after + error.message) : error));
  });
}

/**
 * GET as a Node stream (node:http is lighter than fetch's web streams on this hot path), held
 * to the URL policy: an upstream's link must not make the worker fetch from inside its network.
 * Redirects are followed by hand, up to MAX_REDIRECTS, each hop checked by the policy before it
 * is fetched; one more, or one without a usable Location, refuses the link.
 */
async function download(link: string, urls: UrlPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  if (!URL.canParse(link)) throw new LinkRefused('the link is not a URL');
  let url = new URL(link);
  for (let hop = 0; ; hop++) {
    const res = await getOnce(url, urls, signal, hop);
    const status = res.statusCode ?? 0;
    if (!REDIRECTS.has(status)) return res;
    res.resume();
    const location = res.headers.location;
    if (!location || !URL.canParse(location, url)) throw new LinkRefused(`the link answered HTTP ${status} without a usable Location`);
    if (hop === MAX_REDIRECTS) throw new LinkRefused(`the link redirected more than ${MAX_REDIRECTS} times`);
    url = new URL(location, url);
  }
}

/**
 * Reads a stream's first `size` bytes and hands back a stream of all of it, those bytes
 * included: the head is all that is held, the rest flows on (with backpressure) once piped.
 */
function peek(source: Readable, size: number): Promise<{ head: Buffer; ended: boolean; body: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let have = 0;
    const off = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
    };
    const done = (ended: boolean) => {
      off();
      // the first chunk nearly always holds the head: taken as it is (up to 64 KiB), not copied
      const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      const body = new PassThrough();
      body.write(head);
      if (ended) body.end();
      else {
        source.on('error', (error) => body.destroy(error));
        source.pipe(body);
      }
      resolve({ head, ended, body });
    };
    function onData(chunk: Buffer) {
      chunks.push(chunk);
      have += chunk.length;
      if (have < size) return;
      source.pause();
      done(false);
    }
    function onEnd() {
      done(true);
    }
    function onError(error: Error) {
      off();
      reject(error);
    }
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onError);
  });
}

async function copyOnce<F extends string>(
  link: string,
  store: BlobStore,
  kind: FileKind<F>,
  target: FileTarget<F>,
  limits: CopyLimits,
): Promise<StoredBytes<F>> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const res = await download(link, limits.urls, signal);
  // the download's own failure (the cap, a dropped link) is the reason, whatever the store says after it
  let failure: Error | undefined;
  try {
    const status = res.statusCode ?? 0;
    if (status !== 200) {
      throw new (status >= 300 && status < 500 ? LinkRefused : Error)(`download answered HTTP ${status}`);
    }
    const length = Number(res.headers['content-length'] ?? Number.NaN);
    if (length > limits.maxBytes) throw new FileTooLarge(`file is ${length} bytes, more than ${limits.maxBytes}`);
    const counted = { bytes: 0 };
    const found: { dimensions?: Dimensions } = {};
    const keeping: Keeping | undefined = limits.keepUpTo ? { upTo: limits.keepUpTo, chunks: [], size: 0 } : undefined;
    const cap = res.pipe(byteCap(limits.maxBytes, counted));
    const capped = cap.pipe(dimensionsTap(found, keeping));
    cap.on('error', (error) => {
      failure ??= error;
      capped.destroy(error);
    });
    capped.on('error', (error) => (failure ??= error));
    res.on('error', (error) => cap.destroy(error));
    const { head, ended, body } = await peek(capped, SNIFF_BYTES);
    const format = kind.sniff(head);
    if (!format) throw kind.refused(head, res.headers['content-type'], ended);
    const { key, contentType } = target(format);
    await putObject(store, key, body, {
      contentType,
      ...(Number.isFinite(length) ? { contentLength: length } : {}),
      signal,
    });
    const kept = keeping && keeping.size <= keeping.upTo ? Buffer.concat(keeping.chunks) : undefined;
    return { bytes: counted.bytes, format, contentType, dimensions: found.dimensions, ...(kept ? { kept } : {}) };
  } catch (error) {
    res.destroy();
    throw failure ?? error;
  }
}

/**
 * Streams an upstream's result link into the store (never whole into memory), with a size cap
 * and a deadline per try, retried while the store is away: a copy failure must not throw away a
 * paid result. The first bytes say what the file is (`kind`) and so its key and type; a body that
 * is none of the kind's formats is refused (RefusedBytes), as a link refused or too large is, at once.
 */
export function copyLinkToStore<F extends string>(
  link: string,
  store: BlobStore,
  kind: FileKind<F>,
  target: FileTarget<F>,
  limits: CopyLimits,
): Promise<StoredBytes<F>> {
  return untilStored(() => copyOnce(link, store, kind, target, limits), limits.retry);
}

/** An image link copied into the store: a body that is no JPEG, PNG or WebP is refused (NotAnImage). */
export function copyUrlToStore(link: string, store: BlobStore, target: ImageTarget, limits: CopyLimits): Promise<StoredImage> {
  return copyLinkToStore(link, store, IMAGE_FILES, target, limits);
}

async function downloadOnce(link: string, limits: CopyLimits): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const res = await download(link, limits.urls, signal);
  try {
    const status = res.statusCode ?? 0;
    if (status !== 200) throw new (status >= 300 && status < 500 ? LinkRefused : Error)(`download answered HTTP ${status}`);
    const length = Number(res.headers['content-length'] ?? Number.NaN);
    if (length > limits.maxBytes) throw new FileTooLarge(`file is ${length} bytes, more than ${limits.maxBytes}`);
    const chunks: Buffer[] = [];
    const counted = { bytes: 0 };
    for await (const chunk of res.pipe(byteCap(limits.maxBytes, counted))) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const head = bytes.subarray(0, SNIFF_BYTES);
    if (!sniffImage(head)) throw notAnImage(head, res.headers['content-type'], true);
    return bytes;
  } catch (error) {
    res.destroy();
    throw error;
  }
}

/**
 * An upstream's image link read whole into memory (at most `tuning.worker.resultMaxBytes`), held to the same
 * URL policy, cap and retries as a copy: for an image the worker converts before storing it.
 */
export function downloadImage(link: string, limits: CopyLimits): Promise<Buffer> {
  return untilStored(() => downloadOnce(link, limits), limits.retry);
}

/** An image the upstream sent inline (base64), sniffed as a link's is, then stored. */
export function putImageToStore(store: BlobStore, target: ImageTarget, bytes: Buffer, retry: StoreRetry): Promise<StoredImage> {
  const format = sniffImage(bytes.subarray(0, SNIFF_BYTES));
  if (!format) return Promise.reject(notAnImage(bytes.subarray(0, SNIFF_BYTES), undefined, true));
  const { key, contentType } = target(format);
  return untilStored(async () => {
    await putObject(store, key, bytes, { contentType, contentLength: bytes.length });
    return { bytes: bytes.length, format, contentType, dimensions: imageDimensions(bytes), kept: bytes };
  }, retry);
}

export function putBufferToStore(store: BlobStore, key: string, bytes: Buffer, contentType: string, retry: StoreRetry) {
  return untilStored(async () => {
    await putObject(store, key, bytes, { contentType, contentLength: bytes.length });
    return bytes.length;
  }, retry);
}

/**
 * A copy failure as the client will see it: too large, a refused link or bytes of the wrong kind
 * (no image at all) are final (502, the upstream's fault), anything else a store outage worth a retry.
 */
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
  if (cause instanceof RefusedBytes) {
    return new AppError('upstream_failed', `the upstream's ${what} is ${cause.message}`, { retryable: false, cause });
  }
  return new AppError('unavailable', `${what} could not be copied into the store: ${(cause as Error).message}`, {
    cause,
    retryAfterMs: 5_000,
  });
}
