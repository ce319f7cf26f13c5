import type { z } from 'zod';

/**
 * For the rule tables of the request tests: null when `body` is accepted, else the dotted
 * path of the first problem (an unknown field names itself).
 */
export function verdict(schema: z.ZodType, body: unknown): string | null {
  const result = schema.safeParse(body);
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  const path = issue.path.join('.');
  return issue.code === 'unrecognized_keys' ? [path, issue.keys[0]].filter(Boolean).join('.') : path;
}
