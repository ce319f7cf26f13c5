import { z } from 'zod';

/**
 * A field of OpenAI's images API these models have no equivalent for. Absent or null (OpenAI's
 * "the default") it asks for nothing; any value is a 400 that names it and says why, never
 * dropped: a client that asks for something must learn it is not done.
 */
const refused = (field: string, why: string) =>
  z
    .null({ error: `${field} is not supported: ${why}; omit it` })
    .optional()
    .describe(`Not supported (${why}): only null or absent`);

export const refusedOpenAIFields = {
  moderation: z
    .literal('auto', { error: 'moderation takes only "auto": the vendor moderates every request itself, at its one level' })
    .nullable()
    .optional()
    .describe('"auto" only: the vendor moderates every request at its own level'),
  input_fidelity: refused('input_fidelity', 'these models have no input fidelity setting'),
  complexity: refused('complexity', 'these models have no complexity setting'),
  frame_count: refused('frame_count', 'these models make still images'),
  frame_duration_ms: refused('frame_duration_ms', 'these models make still images'),
  svg: refused('svg', 'these models make no SVG'),
};

/** Vendor fields the relay does not offer yet, refused by name rather than as unknown. */
export const refusedVendorFields = {
  optimize_prompt: refused('optimize_prompt', "it is the vendor's older switch: use optimize_prompt_options"),
};

/** OpenAI's edits take a `markup` image to draw from; the vendor has none. */
export const refusedEditFields = {
  markup: refused('markup', 'the vendor takes no markup image: describe the change in the prompt'),
};
