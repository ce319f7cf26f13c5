import type { BlobStore, Catalog, UrlPolicy } from '@relay/core';
import {
  createDoors,
  type AnyDoor,
  type Dialect,
  type Doors,
  type Hold,
  type JobKind,
  type JobMeta,
  type Payload,
  type QueueName,
} from '@relay/jobs';

/** Where inline images of a line are checked and staged, as for a synchronous call. */
export interface InputSettings {
  store: BlobStore;
  maxBytes: number;
  urls: UrlPolicy;
}

/**
 * The endpoint a batch names, and what its lines go through: the door of the synchronous call
 * (the same schema, so a line that breaks a rule gets the same 400; the same hold; the same job),
 * answered with links, never blobs (output files carry no base64).
 */
export interface BatchEndpoint {
  /** As the batch names it; every line's url must be exactly this. */
  path: string;
  door: AnyDoor;
  queue: QueueName;
  kind: JobKind;
  jobName: string;
  dialect: Dialect;
  /** The longest string a field of a line's body may hold (the line pre-scan's bound). */
  maxStringBytes(settings: { inputImageMaxBytes: number }): number;
  /** The validated request and its hold; throws the synchronous call's 400. */
  check(body: unknown): { request: unknown; hold: Hold };
  /** The job's payload, inputs checked and staged (throws a 400 for a refused input image). */
  prepare(jobId: string, request: unknown, meta: JobMeta, inputs: InputSettings): Promise<Payload<QueueName>>;
  /** The body a finished line's output carries. */
  present(data: unknown, result: unknown, linkBase: string): Promise<unknown>;
}

/** The doors of a catalog, made once: batches look their endpoint up at every step. */
const doorsOf = new WeakMap<Catalog, Doors>();

/** The endpoint a batch names, or a 400 saying which ones exist. */
export function batchEndpoint(catalog: Catalog, path: string): BatchEndpoint {
  let doors = doorsOf.get(catalog);
  if (!doors) doorsOf.set(catalog, (doors = createDoors(catalog)));
  const { door, params } = doors.forBatch(path);
  return {
    path,
    door,
    queue: door.capability.id,
    kind: door.capability.kind,
    jobName: door.capability.jobName,
    dialect: door.dialect,
    maxStringBytes: door.http.maxStringBytes,
    check(body) {
      const request: unknown = door.parse({ path, body, params, query: {} });
      door.lineRule?.(request);
      return { request, hold: door.hold(request) };
    },
    async prepare(jobId, request, meta, inputs) {
      const inspected: unknown = await door.inspect(request, inputs);
      return door.prepare(inspected, jobId, { ...meta, door: door.name }, inputs.store);
    },
    present: (data, result, linkBase) => door.line(data as Payload<QueueName>, result, linkBase),
  };
}
