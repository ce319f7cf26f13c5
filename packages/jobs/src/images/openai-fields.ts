import { z } from 'zod';

/** OpenAI's own bounds (images API reference): n in [1, 10]; safety_identifier <= 64 chars. */
export const MAX_GENERATIONS = 10;
export const MAX_SAFETY_IDENTIFIER_CHARS = 64;
/** OpenAI states no bound for `user`; the relay keeps it with every usage entry, so it has one. */
export const MAX_USER_CHARS = 256;
/** A request never yields more images than one upstream call may: n x max_images included. */
export const MAX_IMAGES_PER_REQUEST = 15;

/** The values OpenAI's images API takes; anything else is refused, as OpenAI refuses it. */
export const OPENAI_QUALITIES = ['auto', 'standard', 'hd', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export const OPENAI_STYLES = ['vivid', 'natural'] as const;

/**
 * Fields of OpenAI's images API that its clients send on their own (the openai SDK, the AI
 * SDK, LangChain's DallEAPIWrapper). `n` asks for n independent generations; `quality` and
 * `style` have no equivalent for these models (accepted with OpenAI's values, without
 * effect); `user` and `safety_identifier` name the caller's end user, kept with the usage
 * entry. OpenAI lets n, quality and style be null, meaning "the default".
 */
export const openAIImageFields = {
  n: z
    .number({ error: 'n must be an integer' })
    .int('n must be an integer')
    .min(1, `n must be within [1, ${MAX_GENERATIONS}]`)
    .max(MAX_GENERATIONS, `n must be within [1, ${MAX_GENERATIONS}]`)
    .nullable()
    .optional()
    .describe('Independent generations of this request, all in one answer; reserved and charged per image'),
  quality: z
    .enum(OPENAI_QUALITIES, { error: `quality must be one of ${OPENAI_QUALITIES.join(', ')}` })
    .nullable()
    .optional()
    .describe("OpenAI's values are accepted; these models have no equivalent, so it has no effect"),
  style: z
    .enum(OPENAI_STYLES, { error: `style must be one of ${OPENAI_STYLES.join(', ')}` })
    .nullable()
    .optional()
    .describe("OpenAI's values are accepted; these models have no equivalent, so it has no effect"),
  user: z
    .string({ error: 'user must be a string' })
    .max(MAX_USER_CHARS, `user must be at most ${MAX_USER_CHARS} characters`)
    .optional()
    .describe("Your end user's id: kept with the usage entries, filterable in the admin usage API"),
  safety_identifier: z
    .string({ error: 'safety_identifier must be a string' })
    .max(MAX_SAFETY_IDENTIFIER_CHARS, `safety_identifier must be at most ${MAX_SAFETY_IDENTIFIER_CHARS} characters`)
    .optional()
    .describe("OpenAI's successor of user; when non-empty it is the end user recorded"),
};

type OpenAIFields = { n?: number | null; user?: string; safety_identifier?: string };

/** How many independent generations the request asks for. */
export const generationsOf = (request: Pick<OpenAIFields, 'n'>) => request.n ?? 1;

/** The end user the usage entries name: a non-empty safety_identifier wins, as at OpenAI. */
export const endUserOf = (request: Pick<OpenAIFields, 'user' | 'safety_identifier'>) =>
  request.safety_identifier || request.user || undefined;

/**
 * n sets of up to `perGeneration` images each (sequential generation) must stay within what
 * one upstream call may make: the answer (held in memory for b64_json) and the reservation
 * stay bounded. Returns the sentence to refuse with, or undefined.
 */
export function generationsProblem(request: Pick<OpenAIFields, 'n'>, perGeneration: number): string | undefined {
  const n = generationsOf(request);
  if (n * perGeneration <= MAX_IMAGES_PER_REQUEST) return undefined;
  return (
    `n x max_images must not exceed ${MAX_IMAGES_PER_REQUEST} (n=${n}, max_images=${perGeneration}); ` +
    `with n=${n} set sequential_image_generation_options.max_images to at most ${Math.floor(MAX_IMAGES_PER_REQUEST / n)}`
  );
}
