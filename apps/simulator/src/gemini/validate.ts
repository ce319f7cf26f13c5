import { GEMINI_VOICES } from '@relay/core';
import type { TtsModel } from './models.js';

export interface GeminiRejection {
  field: string;
  description: string;
  message?: string;
  /** The message alone, no BadRequest details (as the recorded refusal has it). */
  bare?: boolean;
}

/** Fields Gemini knows at each level of a generateContent body (those a TTS call can meet). */
const KNOWN: Record<string, string[]> = {
  '': ['contents', 'generationConfig', 'systemInstruction', 'safetySettings', 'tools', 'toolConfig', 'cachedContent', 'model'],
  generation_config: [
    'responseModalities',
    'speechConfig',
    'imageConfig',
    'temperature',
    'topP',
    'topK',
    'seed',
    'candidateCount',
    'maxOutputTokens',
    'stopSequences',
    'responseMimeType',
    'presencePenalty',
    'frequencyPenalty',
    'thinkingConfig',
  ],
  'generation_config.speech_config': ['voiceConfig', 'multiSpeakerVoiceConfig', 'languageCode'],
  'generation_config.speech_config.voice_config': ['prebuiltVoiceConfig'],
  'generation_config.speech_config.voice_config.prebuilt_voice_config': ['voiceName'],
};

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function unknownField(value: unknown, path: string): GeminiRejection | undefined {
  const known = KNOWN[path];
  if (!known || typeof value !== 'object' || value === null) return undefined;
  for (const [name, child] of Object.entries(value)) {
    if (!known.includes(name)) {
      const description = `Invalid JSON payload received. Unknown name "${name}"${path ? ` at '${path}'` : ''}: Cannot find field.`;
      return { field: path || name, description, message: description };
    }
    const found = unknownField(child, path ? `${path}.${snake(name)}` : snake(name));
    if (found) return found;
  }
  return undefined;
}

type Body = {
  contents?: Array<{ parts?: Array<{ text?: unknown; speechMetadata?: { style?: unknown } }> }>;
  generationConfig?: {
    responseModalities?: unknown;
    thinkingConfig?: unknown;
    speechConfig?: {
      voiceConfig?: { prebuiltVoiceConfig?: { voiceName?: unknown } };
      multiSpeakerVoiceConfig?: { speakerVoiceConfigs?: Array<{ voiceConfig?: { prebuiltVoiceConfig?: { voiceName?: unknown } } }> };
    };
  };
};

/** Checks a TTS request as the upstream does; returns the text to speak (and whether it named a voice) or why not. */
export function validateTts(
  raw: unknown,
  model: string,
  spec: Pick<TtsModel, 'thinking'>,
): { text: string; styles: string[]; voiced: boolean } | GeminiRejection {
  const unknown = unknownField(raw, '');
  if (unknown) return unknown;
  const body = raw as Body;
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return { field: 'contents', description: 'contents is not specified' };
  }
  const text = body.contents
    .flatMap((c) => c.parts ?? [])
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .join('\n');
  if (!text.trim()) return { field: 'contents', description: 'TTS requires text input.' };
  const modalities = body.generationConfig?.responseModalities;
  if (!Array.isArray(modalities) || modalities.length !== 1 || modalities[0] !== 'AUDIO') {
    // the recorded wording (danielmiessler/Fabric#1607); an absent list is taken as TEXT
    const asked = Array.isArray(modalities) && modalities.length > 0 ? modalities.map(String).join(', ') : 'TEXT';
    const message = `The requested combination of response modalities (${asked}) is not supported by the model. models/${model} accepts the following combination of response modalities:\n* AUDIO`;
    return { field: 'generation_config.response_modalities', description: message, message };
  }
  // home-assistant/core#153408: a thinkingConfig, even an empty one, is refused by name
  if (body.generationConfig?.thinkingConfig !== undefined && !spec.thinking) {
    return {
      field: 'generation_config.thinking_config',
      description: '',
      message: `Thinking is not enabled for models/${model}`,
      bare: true,
    };
  }
  const speech = body.generationConfig?.speechConfig;
  if (speech?.voiceConfig && speech.multiSpeakerVoiceConfig) {
    return { field: 'generation_config.speech_config', description: 'voice_config and multi_speaker_voice_config are mutually exclusive.' };
  }
  const speakers = speech?.multiSpeakerVoiceConfig?.speakerVoiceConfigs ?? [];
  // MultiSpeakerVoiceConfig: "Exactly two speaker voice configurations must be provided" (the exact 400 wording is not known)
  if (speech?.multiSpeakerVoiceConfig && speakers.length !== 2) {
    return {
      field: 'generation_config.speech_config.multi_speaker_voice_config.speaker_voice_configs',
      description: 'Exactly two speaker voice configurations must be provided.',
    };
  }
  const voices = [speech?.voiceConfig, ...speakers.map((s) => s.voiceConfig)].map((v) => v?.prebuiltVoiceConfig?.voiceName);
  for (const voice of voices) {
    if (voice !== undefined && !GEMINI_VOICES.includes(voice as string)) {
      return {
        field: 'generation_config.speech_config.voice_config.prebuilt_voice_config.voice_name',
        description: `Voice name ${JSON.stringify(voice)} is not supported.`,
      };
    }
  }
  // speechMetadata (3.8): the style is read, not spoken
  const styles = body.contents
    .flatMap((c) => c.parts ?? [])
    .flatMap((p) => (typeof p.speechMetadata?.style === 'string' ? [p.speechMetadata.style] : []));
  return { text, styles, voiced: voices.some((voice) => voice !== undefined) };
}
