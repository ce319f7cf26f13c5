import type { Fault } from '../faults.js';

/** An `answer-shape` fault: which fields an answer leaves out, and how it writes `size`. */
export type AnswerShape = Extract<Fault, { type: 'answer-shape' }>;

type Fields = Record<string, unknown>;

/**
 * One answer, or one stream event, as the fault has it: the omitted fields gone at its level and
 * in each `data` item, `usage` trimmed (`output_tokens` leaves only generated_images, and any
 * tool_usage), `size` written with the chosen separator. Without a fault, the object as it is.
 */
export function reshape<T extends Fields>(answer: T, shape: AnswerShape | undefined): T {
  if (!shape) return answer;
  const omit = new Set<string>(shape.omit);
  const out: Fields = {};
  for (const [key, value] of Object.entries(answer)) {
    if (omit.has(key)) continue;
    if (key === 'size' && typeof value === 'string') out.size = value.replace('x', shape.sizeSeparator);
    else if (key === 'data' && Array.isArray(value)) out.data = value.map((item: Fields) => reshape(item, shape));
    else if (key === 'usage' && typeof value === 'object' && value !== null) out.usage = trimUsage(value as Fields, omit);
    else out[key] = value;
  }
  return out as T;
}

function trimUsage(usage: Fields, omit: Set<string>): Fields {
  const out = { ...usage };
  if (omit.has('output_tokens')) {
    delete out.output_tokens;
    delete out.total_tokens;
  }
  if (omit.has('total_tokens')) delete out.total_tokens;
  return out;
}
