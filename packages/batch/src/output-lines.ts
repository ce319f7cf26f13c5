import type { AppError } from '@relay/core';
import { errorBody, type Dialect } from '@relay/jobs';
import { outputLineId } from './keys.js';
import type { OutputLine } from './schema.js';

/** A finished line as Redis keeps it until it is written out: 'o' (output file) or 'e' (error file) + the JSON line. */
export type RecordKind = 'o' | 'e';

export const succeeded = (jobId: string, customId: string, body: unknown): OutputLine => ({
  id: outputLineId(jobId),
  custom_id: customId,
  response: { status_code: 200, request_id: jobId, body },
  error: null,
});

/** A line that ran (or was refused) and failed: the status and body the synchronous call answers with. */
export const failed = (jobId: string, customId: string, error: AppError, dialect: Dialect): OutputLine => ({
  id: outputLineId(jobId),
  custom_id: customId,
  response: { status_code: error.status, request_id: jobId, body: errorBody(dialect, error) },
  error: null,
});

/** Why a line never ran, as OpenAI says it of a batch that was cancelled or expired. */
export const ENDINGS = {
  cancelled: { code: 'batch_cancelled', message: 'This request was not executed: the batch was cancelled.' },
  expired: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
} as const;
export type Ending = keyof typeof ENDINGS;

export const notRun = (jobId: string, customId: string, ending: Ending): OutputLine => ({
  id: outputLineId(jobId),
  custom_id: customId,
  response: null,
  error: { ...ENDINGS[ending] },
});

export const recordOf = (kind: RecordKind, line: OutputLine) => `${kind}${JSON.stringify(line)}`;
