import { randomFillSync } from 'node:crypto';
import { CAPABILITIES, type JobKind } from './doors/capabilities.js';

/**
 * Ids of jobs and stored files. A file id names its job and slot, so the S3 key follows
 * from the id alone: a retry writes the same keys (overwrite, never duplicate), and serving
 * a file needs no lookup. Ids carry 128 random bits: a file link is a capability, like the
 * upstream's own signed links.
 */

/**
 * The Content-Type a stored file is served with, by its extension: every capability's files, as
 * its declaration (@relay/core) says what it stores.
 */
export const CONTENT_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(CAPABILITIES).flatMap((capability) => Object.entries(capability.files)),
);

/** Job ids of every capability (its kind, the prefix), whatever comes next. */
const JOB_ID_PATTERN = `(?:${Object.values(CAPABILITIES)
  .map((c) => c.kind)
  .join('|')})_[0-9a-f]{32}`;
/** A file id, inside other text too (links in output lines): job id, slot and extension captured. */
export const FILE_ID_PATTERN = `(${JOB_ID_PATTERN})-(\\d{1,2})\\.(${Object.keys(CONTENT_TYPES).join('|')})`;
const FILE_ID = new RegExp(`^${FILE_ID_PATTERN}$`);

/**
 * Random bytes for ids, drawn 4 KiB at a time (256 ids): one call into the CSPRNG per id cost
 * about 3 µs, a read of the pool well under a tenth of that (crypto.randomUUID keeps such a pool too).
 */
const ID_BYTES = 16;
const pool = Buffer.alloc(256 * ID_BYTES);
let drawn = pool.length;

export const newJobId = (kind: JobKind) => {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const id = `${kind}_${pool.toString('hex', drawn, drawn + ID_BYTES)}`;
  drawn += ID_BYTES;
  return id;
};
const JOB_ID = new RegExp(`^${JOB_ID_PATTERN}$`);
/** Whether a client-given id can name a job at all (junk never reaches Redis). */
export const isJobId = (value: string) => JOB_ID.test(value);

export const fileIdOf = (jobId: string, index: number, extension: string) => `${jobId}-${index}.${extension}`;

export const storageKeyOf = (jobId: string, index: number, extension: string) => `files/${jobId}/${index}.${extension}`;

export const inputKeyOf = (jobId: string, index: number, extension: string) => `inputs/${jobId}/${index}.${extension}`;

export function parseFileId(fileId: string) {
  const match = FILE_ID.exec(fileId);
  if (!match) return undefined;
  const [, jobId = '', index = '0', extension = ''] = match;
  return { jobId, index: Number(index), extension, key: storageKeyOf(jobId, Number(index), extension) };
}
