import { z } from 'zod';
import { CAPABILITIES, ownValue, type Catalog, type SpeechModel } from '@relay/core';
import type { GeminiModel } from '@relay/jobs';
import type { OpenAIModel } from '@relay/jobs';

/** `vendor-gen-3-0-t2i-250415` carries its release date: 2025-04-15, as Unix seconds. */
export function releasedAt(id: string): number {
  const match = /-(\d{2})(\d{2})(\d{2})$/.exec(id);
  if (!match) return 0;
  const [, yy, mm, dd] = match.map(Number) as [number, number, number, number];
  const time = Date.UTC(2000 + yy, mm - 1, dd);
  return mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31 ? time / 1000 : 0;
}

/** The path of one model, in either dialect. */
export const modelPath = z.object({ model: z.string().describe('A model id of the catalog') });

/** A model as OpenAI lists one; a speech model also names its voices, so a client can offer them. */
const openAIModel = (id: string, speech?: SpeechModel): OpenAIModel => ({
  id,
  object: 'model',
  created: releasedAt(id),
  owned_by: 'relay',
  ...(speech ? { voices: speech.voices } : {}),
});

/** Every capability's models, by public id, in the capability table's order. */
const modelIds = (catalog: Catalog): string[] =>
  Object.values(CAPABILITIES).flatMap((capability) => Object.keys(catalog[capability.models]));

/**
 * What a key may use, as OpenAI lists models: every capability's (the image models of POST
 * /v1/images/generations, the speech models of POST /v1beta/models/{id}:generateContent, ...).
 */
export function openAIModels(catalog: Catalog): OpenAIModel[] {
  return modelIds(catalog).map((id) => openAIModel(id, ownValue(catalog.speechModels, id)));
}

export function openAIModelOf(catalog: Catalog, id: string): OpenAIModel | undefined {
  return modelIds(catalog).includes(id) ? openAIModel(id, ownValue(catalog.speechModels, id)) : undefined;
}

/** The methods Google's paths serve for a speech model. */
export const GEMINI_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];

/** A speech model as Gemini's Model resource describes it. */
export function geminiModel(id: string, model: SpeechModel): GeminiModel {
  return {
    name: `models/${id}`,
    baseModelId: id,
    version: '001',
    displayName: id,
    description: `Text to speech through the relay, with ${model.voices.length} prebuilt voices: ${model.voices.join(', ')}`,
    inputTokenLimit: model.inputTokenLimit,
    outputTokenLimit: model.maxOutputTokens,
    supportedGenerationMethods: GEMINI_METHODS,
  };
}

export const geminiModels = (catalog: Catalog) => Object.entries(catalog.speechModels).map(([id, model]) => geminiModel(id, model));
