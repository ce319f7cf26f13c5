import { z } from 'zod';
import type { SpeechJobResult } from '../speech/job.js';

/**
 * The Interactions API's answer as far as speech fills it, field names as @google/genai 3.1
 * reads them (its Interaction, ModelOutputStep, AudioContent, Usage and ModalityTokens types).
 */
const modalityTokens = z.object({ modality: z.string().describe('text, audio, ...'), tokens: z.number().int() });

export const interactionsUsageSchema = z.object({
  total_input_tokens: z.number().int(),
  total_output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  input_tokens_by_modality: z.array(modalityTokens).optional(),
  output_tokens_by_modality: z.array(modalityTokens).optional(),
});
export type InteractionsUsage = z.input<typeof interactionsUsageSchema>;

export const audioContentSchema = z.object({
  type: z.literal('audio'),
  mime_type: z.string(),
  data: z.string().optional().describe('base64 (delivery inline, the default)'),
  uri: z.string().optional().describe("the relay's link to the stored file (delivery uri)"),
  sample_rate: z.number().int().optional(),
  channels: z.number().int().optional(),
});
export type AudioContent = z.input<typeof audioContentSchema>;

export const interactionSchema = z
  .object({
    id: z.string().describe('the relay job id (GET /v1/jobs/{id})'),
    model: z.string(),
    status: z.literal('completed'),
    created: z.string().describe('ISO 8601'),
    updated: z.string().describe('ISO 8601'),
    steps: z.array(z.object({ type: z.literal('model_output'), content: z.array(audioContentSchema) })),
    usage: interactionsUsageSchema,
  })
  .meta({ id: 'Interaction' });
export type Interaction = z.input<typeof interactionSchema>;

const byModality = (details: Array<{ modality: string; tokenCount: number }> | undefined) =>
  details?.map((d) => ({ modality: d.modality.toLowerCase(), tokens: d.tokenCount }));

/** Gemini's usageMetadata in the Interactions API's words (its modalities are lowercase there). */
export function interactionsUsage(usage: SpeechJobResult['usageMetadata']): InteractionsUsage {
  const input = byModality(usage.promptTokensDetails);
  const output = byModality(usage.candidatesTokensDetails);
  return {
    total_input_tokens: usage.promptTokenCount,
    total_output_tokens: usage.candidatesTokenCount,
    total_tokens: usage.totalTokenCount,
    ...(input ? { input_tokens_by_modality: input } : {}),
    ...(output ? { output_tokens_by_modality: output } : {}),
  };
}

/** One of the Interactions stream's events (its InteractionSSEEvent): the event name is its event_type. */
export const interactionsEvent = (body: { event_type: string } & Record<string, unknown>) =>
  `event: ${body.event_type}\ndata: ${JSON.stringify(body)}\n\n`;
