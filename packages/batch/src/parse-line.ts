import { AppError, checkJsonShape, formatPath, type JsonShapeLimits } from '@relay/core';
import type { Hold } from '@relay/jobs';
import type { BatchEndpoint } from './endpoints.js';
import type { FileLine } from './line-reader.js';
import { isBlank } from './line-reader.js';
import { inputLineSchema, type BatchError } from './schema.js';

/**
 * One line of an input file, judged as OpenAI judges it: a broken line (not JSON, no custom_id,
 * another url) fails the whole batch at validation; a well-formed line whose body breaks a rule
 * of its endpoint is `refused` with the very error the synchronous call gives, and never runs.
 */
export type ParsedLine =
  | { kind: 'blank' }
  | { kind: 'broken'; error: BatchError }
  | { kind: 'refused'; customId: string; error: AppError }
  | { kind: 'ok'; customId: string; request: unknown; hold: Hold };

const broken = (line: FileLine, code: string, message: string, param: string | null = null): ParsedLine => ({
  kind: 'broken',
  error: { code, message: `line ${line.no}: ${message}`, param, line: line.no },
});

export function parseLine(line: FileLine, endpoint: BatchEndpoint, shape: JsonShapeLimits): ParsedLine {
  if (line.bytes === null) return broken(line, 'line_too_long', 'the line is longer than any request of this endpoint may be');
  if (isBlank(line.bytes)) return { kind: 'blank' };
  const refused = checkJsonShape(line.bytes, shape);
  if (refused) return broken(line, 'invalid_json_line', refused.replace('the JSON body', 'the line'));
  let value: unknown;
  try {
    value = JSON.parse(line.bytes.toString('utf8'));
  } catch (error) {
    return broken(line, 'invalid_json_line', `not valid JSON (${(error as Error).message})`);
  }
  const parsed = inputLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.code === 'unrecognized_keys' ? issue.keys[0]! : formatPath(issue.path);
    const message =
      issue.code === 'unrecognized_keys' ? `unknown field "${param}"; a line holds custom_id, method, url and body` : issue.message;
    return broken(line, param === 'custom_id' ? 'missing_custom_id' : 'invalid_request_line', message, param || null);
  }
  const { custom_id: customId, url, body } = parsed.data;
  if (url !== endpoint.path)
    return broken(line, 'mismatched_url', `url "${url.slice(0, 200)}" is not the batch's endpoint ${endpoint.path}`, 'url');
  try {
    return { kind: 'ok', customId, ...endpoint.check(body) };
  } catch (error) {
    if (error instanceof AppError) return { kind: 'refused', customId, error };
    throw error;
  }
}
