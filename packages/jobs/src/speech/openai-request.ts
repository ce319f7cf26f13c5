import { z } from 'zod';
import { ownValue, type Catalog, type SpeechModel } from '@relay/core';
import { MAX_SPEED, MIN_SPEED, speechFormatSchema } from '@relay/audio/formats';
import { MAX_PART_CHARS } from './request.js';
import { voiceNamesOf, voiceOf } from './openai-voices.js';

/** OpenAI's own speech model names: tools send them by default; they mean the catalog's OpenAI default (openAIDefaultSpeechModel). */
export const OPENAI_SPEECH_MODELS = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'gpt-4o-mini-tts-2025-03-20', 'gpt-4o-mini-tts-2025-12-15'];
/** OpenAI's bound on instructions. */
export const MAX_INSTRUCTIONS_CHARS = 4_096;

const label = (what: string) => z.string({ error: `${what} must be a string` }).max(100, `${what} must be at most 100 characters`);

/** The body of OpenAI's POST /v1/audio/speech, plus `speakers` (two voices in one clip: the relay's extension). */
export const openAISpeechFields = z.strictObject({
  model: z.string({ error: 'model is required and must be a string' }).max(200, 'model must be at most 200 characters'),
  input: z
    .string({ error: 'input is required and must be a string' })
    .max(MAX_PART_CHARS, `input may be at most ${MAX_PART_CHARS} characters`)
    .refine((text) => text.trim().length > 0, 'input must not be empty'),
  voice: z
    .union([label('voice'), z.strictObject({ id: z.string().max(200) })], { error: 'voice must be a voice name' })
    .optional()
    .describe("OpenAI's voice names (alloy, ash, ... cedar: a documented table) or the model's own (Kore, Puck, ...)"),
  instructions: z
    .string({ error: 'instructions must be a string' })
    .max(MAX_INSTRUCTIONS_CHARS, `instructions may be at most ${MAX_INSTRUCTIONS_CHARS} characters`)
    .optional()
    .describe(
      'How to speak: Gemini\'s speechMetadata.style on the 3.8 models, a direction before the text on earlier ones ("Speak cheerfully:\\n...")',
    ),
  response_format: speechFormatSchema
    .optional()
    .describe('Default mp3; pcm is raw 24 kHz 16-bit little-endian mono')
    .meta({ default: 'mp3' }),
  speed: z
    .number({ error: 'speed must be a number' })
    .min(MIN_SPEED, `speed must be within [${MIN_SPEED}, ${MAX_SPEED}]`)
    .max(MAX_SPEED, `speed must be within [${MIN_SPEED}, ${MAX_SPEED}]`)
    .optional()
    .describe('Tempo, not pitch: 2 takes about half the time'),
  stream_format: z.enum(['audio', 'sse'], { error: 'stream_format must be "audio" or "sse"' }).optional(),
  speakers: z
    .array(z.strictObject({ name: label('a speaker name').min(1, 'a speaker name must not be empty'), voice: label('a speaker voice') }), {
      error: 'speakers must be an array of {name, voice}',
    })
    // Gemini's multi-speaker config takes exactly two; one voice is `voice`
    .length(2, 'speakers takes exactly 2 speakers (Gemini multi-speaker); for one voice, send voice instead')
    .optional()
    .describe(
      'Relay extension: exactly 2 speakers; name each line of input "Name: text"; each speaker gets its voice (Gemini multi-speaker)',
    ),
});
export type OpenAISpeechRequest = z.output<typeof openAISpeechFields>;

/** The model OpenAI's speech names mean: the catalog's marked one (`openaiDefault`), else its first speech model. */
export const openAIDefaultSpeechModel = (catalog: Catalog) =>
  Object.entries(catalog.speechModels).find(([, model]) => model.openaiDefault)?.[0] ?? Object.keys(catalog.speechModels)[0];

/** The speech model a name means: the catalog's own ids, and OpenAI's names for its OpenAI default. */
export function speechModelNamed(catalog: Catalog, name: string): { id: string; model: SpeechModel } | undefined {
  const id = OPENAI_SPEECH_MODELS.includes(name) ? openAIDefaultSpeechModel(catalog) : name;
  const model = id === undefined ? undefined : ownValue(catalog.speechModels, id);
  return id !== undefined && model ? { id, model } : undefined;
}

type Ctx = z.core.$RefinementCtx<OpenAISpeechRequest>;
const refuse = (ctx: Ctx, path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });

/** The full schema for a catalog: every rule a model, voice or length can break, named by its field. */
export function openAISpeechSchema(catalog: Catalog) {
  return openAISpeechFields.superRefine((request, ctx) => {
    const found = speechModelNamed(catalog, request.model);
    if (!found) {
      const known = [...Object.keys(catalog.speechModels), ...OPENAI_SPEECH_MODELS];
      return refuse(ctx, ['model'], `unknown model "${request.model}"; speech models: ${known.join(', ')}`);
    }
    const { model } = found;
    const length = (request.instructions?.length ?? 0) + request.input.length;
    if (length > model.maxInputChars) {
      refuse(ctx, ['input'], `input and instructions are ${length} characters; the limit is ${model.maxInputChars}`);
    }
    const checkVoice = (voice: unknown, path: Array<string | number>) => {
      if (typeof voice !== 'string') return refuse(ctx, path, 'custom voices ({id}) do not exist here: name a voice');
      if (!voiceOf(model, voice)) refuse(ctx, path, `unknown voice "${voice}"; voices: ${voiceNamesOf(model).join(', ')}`);
    };
    if (request.speakers) {
      request.speakers.forEach((s, i) => checkVoice(s.voice, ['speakers', i, 'voice']));
      if (new Set(request.speakers.map((s) => s.name)).size !== request.speakers.length) {
        refuse(ctx, ['speakers'], 'speaker names must be different');
      }
    } else if (request.voice === undefined) {
      refuse(ctx, ['voice'], 'voice is required (or speakers, for two voices)');
    } else {
      checkVoice(request.voice, ['voice']);
    }
  });
}

/** OpenAI's `instructions` as a style: trimmed, without the colon a direction would end in; none when blank. */
export const styleOf = (request: Pick<OpenAISpeechRequest, 'instructions'>) =>
  request.instructions?.trim().replace(/[:.!]*$/, '') || undefined;
