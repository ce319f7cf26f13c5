import { z } from 'zod';
import type { SpeechModel } from '@relay/core';

/**
 * The Gemini-native body of POST /v1beta/models/{model}:generateContent for speech, field
 * names as Google's SDKs send them. Unknown fields are refused at every level.
 */
/** Above every model's own cap (maxInputChars): it only bounds what one part can cost to read. */
export const MAX_PART_CHARS = 100_000;
/** Short labels: voices, speakers, roles. */
const label = (what: string) => z.string({ error: `${what} must be a string` }).max(100, `${what} must be at most 100 characters`);

/** Style direction apart from the words: long enough for any OpenAI `instructions` (4,096). */
export const MAX_STYLE_CHARS = 4_096;

/**
 * Gemini's SpeechMetadata on a text part (js-genai `types.SpeechMetadata`, the 3.8 models'
 * structured direction): who says the part (a speaker of multiSpeakerVoiceConfig) and how.
 */
const speechMetadata = z.strictObject(
  {
    speaker: label('speechMetadata.speaker').min(1, 'speechMetadata.speaker must not be empty').optional(),
    style: z
      .string({ error: 'speechMetadata.style must be a string' })
      .max(MAX_STYLE_CHARS, `speechMetadata.style may be at most ${MAX_STYLE_CHARS} characters`)
      .optional(),
  },
  { error: 'speechMetadata must be an object with speaker and style' },
);

const textPart = z.strictObject(
  {
    text: z.string({ error: 'text must be a string' }).max(MAX_PART_CHARS, `a text part may be at most ${MAX_PART_CHARS} characters`),
    speechMetadata: speechMetadata.optional(),
  },
  { error: 'a part must be an object with text' },
);

const content = z.strictObject(
  {
    role: z.enum(['user'], { error: 'role must be "user"' }).optional(),
    parts: z.array(textPart, { error: 'parts must be an array' }).max(1_000, 'at most 1000 parts per content').optional(),
  },
  { error: 'each entry of contents must be an object' },
);

const voiceConfig = z.strictObject(
  { prebuiltVoiceConfig: z.strictObject({ voiceName: label('voiceName') }) },
  { error: 'voiceConfig must be an object' },
);

const speechConfig = z.strictObject(
  {
    voiceConfig: voiceConfig.optional(),
    multiSpeakerVoiceConfig: z
      .strictObject({
        speakerVoiceConfigs: z
          .array(z.strictObject({ speaker: label('speaker').min(1, 'speaker must not be empty'), voiceConfig }), {
            error: 'speakerVoiceConfigs must be an array',
          })
          .max(10, 'multi-speaker speech takes exactly 2 speakers'),
      })
      .optional(),
    /** BCP-47, e.g. en-US; the upstream detects the language when it is absent. */
    languageCode: z
      .string()
      .max(35, 'languageCode must be a BCP-47 code such as en-US')
      .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'languageCode must be a BCP-47 code such as en-US')
      .optional(),
  },
  { error: 'speechConfig must be an object' },
);

export const speechRequestFields = z
  .strictObject({
    contents: z.array(content, { error: 'contents is required and must be an array' }).max(1_000, 'at most 1000 contents'),
    generationConfig: z.strictObject(
      {
        responseModalities: z
          .array(label('a response modality'), { error: 'responseModalities is required and must be ["AUDIO"]' })
          .max(4, 'responseModalities must be ["AUDIO"]'),
        speechConfig: speechConfig.optional(),
        /** Listed as required by the SPEC, but meaningless for speech: accepted, never sent upstream. */
        imageConfig: z.record(z.string(), z.unknown(), { error: 'imageConfig must be an object' }).optional(),
        temperature: z.number().min(0).max(2).optional(),
        topP: z.number().min(0).max(1).optional(),
        topK: z.number().int().min(1).optional(),
        seed: z.number().int().optional(),
      },
      { error: 'generationConfig is required and must be an object' },
    ),
    /** Repeats the model of the path; when present it must name the same model. */
    model: z.string().max(200, 'model must be at most 200 characters').optional(),
  })
  .meta({ id: 'SpeechRequest' });

export type SpeechRequest = z.output<typeof speechRequestFields>;
type Ctx = z.core.$RefinementCtx<SpeechRequest>;

const refuse = (ctx: Ctx, path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });

/** Every text part joined: what the upstream speaks. */
export const speechText = (request: Pick<SpeechRequest, 'contents'>) =>
  request.contents
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text)
    .join('\n');

/** What the upstream reads: the words and every style direction given apart (the input cap and the reservation measure it). */
export const readChars = (request: Pick<SpeechRequest, 'contents'>, style?: string) =>
  speechText(request).length +
  (style?.length ?? 0) +
  request.contents.flatMap((c) => c.parts ?? []).reduce((sum, p) => sum + (p.speechMetadata?.style?.length ?? 0), 0);

function checkVoices(config: NonNullable<SpeechRequest['generationConfig']['speechConfig']>, model: SpeechModel, ctx: Ctx) {
  const base = ['generationConfig', 'speechConfig'];
  const checkVoice = (name: string, path: Array<string | number>) => {
    if (!model.voices.includes(name)) {
      refuse(ctx, [...path, 'prebuiltVoiceConfig', 'voiceName'], `unknown voice "${name}"; prebuilt voices: ${model.voices.join(', ')}`);
    }
  };
  if (config.voiceConfig && config.multiSpeakerVoiceConfig) {
    refuse(ctx, [...base, 'multiSpeakerVoiceConfig'], 'voiceConfig and multiSpeakerVoiceConfig are mutually exclusive; send one');
  }
  if (config.voiceConfig) checkVoice(config.voiceConfig.prebuiltVoiceConfig.voiceName, [...base, 'voiceConfig']);
  const speakers = config.multiSpeakerVoiceConfig?.speakerVoiceConfigs;
  if (speakers) {
    const path = [...base, 'multiSpeakerVoiceConfig', 'speakerVoiceConfigs'];
    // Gemini's MultiSpeakerVoiceConfig: "Exactly two speaker voice configurations must be provided"
    if (speakers.length !== 2)
      refuse(ctx, path, `multi-speaker speech takes exactly 2 speakers, got ${speakers.length}; one voice is voiceConfig`);
    if (new Set(speakers.map((s) => s.speaker)).size !== speakers.length) refuse(ctx, path, 'speaker names must be different');
    speakers.forEach((s, i) => checkVoice(s.voiceConfig.prebuiltVoiceConfig.voiceName, [...path, i, 'voiceConfig']));
  }
}

/**
 * Made once per model and kept: a zod schema made per request cost more than its parse (zod
 * builds and compiles each new object schema on its first parse). The checks read the model's
 * fields when they run, so a model changed in place is checked as it is then.
 */
const schemas = new WeakMap<SpeechModel, Map<string, SpeechRequestSchema>>();
type SpeechRequestSchema = ReturnType<typeof buildSpeechRequestSchema>;

/** The full schema for one speech model of the catalog (the model named by the path). */
export function speechRequestSchema(modelId: string, model: SpeechModel) {
  let byId = schemas.get(model);
  if (!byId) schemas.set(model, (byId = new Map<string, SpeechRequestSchema>()));
  let schema = byId.get(modelId);
  if (!schema) byId.set(modelId, (schema = buildSpeechRequestSchema(modelId, model)));
  return schema;
}

function buildSpeechRequestSchema(modelId: string, model: SpeechModel) {
  return speechRequestFields.superRefine((request, ctx) => {
    if (request.model !== undefined && request.model.replace(/^models\//, '') !== modelId) {
      refuse(ctx, ['model'], `the body names model "${request.model}" but the path names "${modelId}"`);
    }
    if (request.contents.length === 0) refuse(ctx, ['contents'], 'contents must not be empty');
    const text = speechText(request);
    if (text.trim().length === 0) refuse(ctx, ['contents'], 'contents must hold at least one non-empty text part');
    const read = readChars(request);
    if (read > model.maxInputChars) {
      refuse(ctx, ['contents'], `the text (with its styles) is ${read} characters; the limit is ${model.maxInputChars}`);
    }
    const config = request.generationConfig;
    const modalities = config.responseModalities;
    if (modalities.length !== 1 || modalities[0] !== 'AUDIO') {
      refuse(ctx, ['generationConfig', 'responseModalities'], 'responseModalities must be ["AUDIO"] for a speech model');
    }
    if (!config.speechConfig && !config.imageConfig) {
      refuse(ctx, ['generationConfig', 'speechConfig'], 'generationConfig needs speechConfig (a voice) for speech');
    }
    if (config.speechConfig) checkVoices(config.speechConfig, model, ctx);
    const speakers = new Set(config.speechConfig?.multiSpeakerVoiceConfig?.speakerVoiceConfigs.map((s) => s.speaker) ?? []);
    request.contents.forEach((c, i) =>
      c.parts?.forEach((p, j) => {
        const speaker = p.speechMetadata?.speaker;
        if (speaker !== undefined && !speakers.has(speaker)) {
          const named = speakers.size ? `one of ${[...speakers].join(', ')}` : 'a speaker of multiSpeakerVoiceConfig (none is configured)';
          refuse(ctx, ['contents', i, 'parts', j, 'speechMetadata', 'speaker'], `speaker "${speaker}" must be ${named}`);
        }
      }),
    );
  });
}
