import type { BlobStore, UrlPolicy } from '@relay/core';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Hold } from '../admission.js';
import type { ImageForm } from '../images/edit-request.js';
import type { Dialect } from '../answers/error-bodies.js';
import type { JobMeta } from '../meta.js';
import type { Payload } from '../queues.js';
import type { Capability, QueueName } from './capabilities.js';

/** What a client sent, as the route read it. */
export interface Sent {
  /** The request's path (a batch line's url). */
  path: string;
  body: unknown;
  /** Path parameters (a Gemini model, ...) and, for a batch line, those its url names. */
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, unknown>>;
  /** A multipart form (a door with `http.form`): its fields, and its files already in the store. */
  form?: ImageForm;
}

/** Where inline inputs are checked (size, format, URL policy) and staged. */
export interface InputSettings {
  store: BlobStore;
  maxBytes: number;
  urls: UrlPolicy;
}

/** What a finished job answers: a JSON body (cacheable), or bytes and events read from the store. */
export type Answer =
  | { kind: 'json'; body: unknown; headers?: Record<string, string> }
  | { kind: 'file'; key: string; contentType: string; headers?: Record<string, string> }
  | { kind: 'events'; events: AsyncIterable<string> | string[]; headers?: Record<string, string> };

export interface PresentContext<R> {
  /** Where the relay's own links point (PUBLIC_URL, or the request's host). */
  publicBase: string;
  store: BlobStore;
  /** The synchronous call being answered; absent when the job is looked up later (GET /v1/jobs/{id}). */
  call?: R;
  /** A streamed call: the indexes of the parts already sent as they were made (images of a set, pieces of a clip). */
  streamed?: ReadonlySet<number>;
}

/**
 * A door: one dialect's way into a capability (OpenAI's images API, Gemini's generateContent,
 * ...). It reads and checks what its clients send, says what to hold, builds the capability's
 * job, and answers in its dialect. The api mounts every door the same way, a batch accepts any
 * door's path, the traffic statistics and the OpenAPI document read their paths from here:
 * a new dialect is a new door, not edits across the apps.
 */
export interface Door<Q extends QueueName = QueueName, R = unknown, I = R> {
  /** Kept in the job (meta.door), so a later lookup answers in the door the job came in by. */
  name: string;
  capability: Capability<Q>;
  dialect: Dialect;
  http: {
    /** Express paths it answers POST on. */
    paths: readonly string[];
    /** How its clients send their key: OpenAI's Bearer, or Google's x-goog-api-key / ?key= (Bearer too). */
    credentials: Dialect;
    /** It also takes multipart/form-data, its image files streamed into the store as they come. */
    form?: boolean;
    /** The longest string a field of its JSON body may hold (the body pre-scan's bound). */
    maxStringBytes(settings: { inputImageMaxBytes: number }): number;
    /** Whether a request its path pattern matched is its (Gemini's model paths also lead to :countTokens). */
    claims?(params: Readonly<Record<string, string>>): boolean;
    /** Checks what the path names before the body is read (an unknown model is a 404 at once). */
    resolve?(path: string, params: Readonly<Record<string, string>>): void;
  };
  /** A batch endpoint too: the urls a batch may name (as listed to clients), and the path parameters a line's url names (undefined: not this door's). */
  batch?: { urls: readonly string[]; params(url: string): Record<string, string> | undefined };
  /** The validated request; throws the 400 (or 404) its dialect answers. */
  parse(sent: Sent): R;
  /** A rule only batch lines are held to (no inline blobs in output files, ...); throws its 400. */
  lineRule?(request: R): void;
  /** The most it can cost and what it weighs in the schedule. */
  hold(request: R): Hold;
  /** What Idempotency-Key compares: the request as asked, independent of key order. */
  fingerprint(request: R): unknown;
  /** Checks that need I/O (input images, URLs), before anything is held. */
  inspect(request: R, inputs: InputSettings): Promise<I>;
  /** The job's payload, inputs staged in the store (runs once money is held). */
  prepare(inspected: I, jobId: string, meta: JobMeta, store: BlobStore): Promise<Payload<Q>>;
  /** Calls that ask for their results as they are made: each part the worker announces, as the event the dialect sends. */
  stream?: {
    wanted(call: R): boolean;
    /** `part` is the notice's payload as the worker sent it (a stored file): the door validates it. */
    part(call: R, part: unknown, ctx: Omit<PresentContext<R>, 'call' | 'streamed'>): Promise<{ index: number; event: string }>;
  };
  /**
   * Calls answered while their job runs, from the parts its worker sends as they are made (a
   * clip's audio as the vendor speaks it). The answer begins with the first part, so a job that
   * fails before any is answered as any other; a job that sent none is answered whole by `present`.
   */
  live?: {
    wanted(call: R): boolean;
    /** The answer's content type and headers, sent with the first part. */
    head(call: R, jobId: string, publicBase: string): { contentType: string; headers?: Record<string, string> };
    /** One part as the worker sent it (bytes and what they are) as what the dialect sends: bytes, or an event. */
    piece(call: R, part: { type: string; bytes: Buffer }): string | Buffer;
  };
  /** The finished job's answer in this dialect (the result as Redis gave it back: the door validates it). */
  present(data: Payload<Q>, result: unknown, ctx: PresentContext<R>): Promise<Answer>;
  /** A finished batch line's response body: links to the stored files, never blobs. */
  line(data: Payload<Q>, result: unknown, linkBase: string): Promise<unknown>;
  /** Its part of the OpenAPI document, from the same schemas it parses with. */
  openapi(): ZodOpenApiPathsObject;
}

/** The batch endpoint of a door that answers one fixed path. */
export const batchAt = (path: string): NonNullable<Door['batch']> => ({ urls: [path], params: (url) => (url === path ? {} : undefined) });

/** A door of one capability, as its module lists them (each door's own request types stay inside it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DoorOf<Q extends QueueName> = Door<Q, any, any>;
/** A door of any capability, as lists and lookups hold them. */
export type AnyDoor = DoorOf<QueueName>;
