import type { z } from 'zod';
import { AppError } from './app-error.js';

/** A JSON path as clients write it: `image[1]`, `sequential_image_generation_options.max_images`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}

type Issue = z.core.$ZodIssue;

/**
 * A union's own issue says only "none of the forms matched"; when one form had the right type
 * and broke a rule of its own (an array that is too long), that rule is the useful answer.
 */
function specific(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  const matched = issue.errors.filter(
    (branch) => branch.length > 0 && !(branch[0]!.code === 'invalid_type' && branch[0].path.length === 0),
  );
  if (matched.length !== 1) return issue;
  const inner = matched[0]![0]!;
  return specific({ ...inner, path: [...issue.path, ...inner.path] });
}

/** The first problem, as a 400 naming the field (an unknown field names itself). */
export function toValidationError(error: z.ZodError): AppError {
  const issue = specific(error.issues[0]!);
  let param = formatPath(issue.path);
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    param = formatPath([...issue.path, issue.keys[0]!]);
    message = `unknown field "${param}"${issue.keys.length > 1 ? ` (and ${issue.keys.length - 1} more)` : ''}; check the spelling`;
  } else if (param && !message.startsWith(param.split(/[.[]/)[0]!) && !message.startsWith(param.split('.').pop()!)) {
    message = `${param}: ${message}`;
  }
  return new AppError('invalid_request', message, { param: param || undefined });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(result.error);
  return result.data;
}
