import { ownValue, type SpeechModel } from '@relay/core';

/**
 * OpenAI's built-in voices, which tools send by default (OpenWebUI, n8n, the AI SDK), mapped to
 * the Gemini voice of the nearest character (Google's one-word descriptions of its voices).
 * A model of the catalog may name its own table (`openaiVoices`); any voice of the model itself
 * is taken as it is.
 */
export const OPENAI_VOICES: Readonly<Record<string, string>> = {
  alloy: 'Zephyr', // neutral, bright
  ash: 'Charon', // warm male: informative
  ballad: 'Algieba', // soft: smooth
  coral: 'Aoede', // warm female: breezy
  echo: 'Puck', // male: upbeat
  fable: 'Fenrir', // expressive: excitable
  nova: 'Kore', // female: firm
  onyx: 'Orus', // deep male: firm
  sage: 'Sulafat', // calm: warm
  shimmer: 'Leda', // light female: youthful
  verse: 'Iapetus', // versatile: clear
  marin: 'Despina', // natural: smooth
  cedar: 'Gacrux', // natural: mature
};

/** The model's voice a name sent to /v1/audio/speech means, or undefined when it means none. */
export function voiceOf(model: SpeechModel, name: string): string | undefined {
  if (model.voices.includes(name)) return name;
  const mapped = ownValue(model.openaiVoices ?? OPENAI_VOICES, name.toLowerCase());
  return mapped !== undefined && model.voices.includes(mapped) ? mapped : undefined;
}

/** Every name a model answers to in OpenAI's dialect, for error messages and the documentation. */
export const voiceNamesOf = (model: SpeechModel) => [
  ...Object.keys(model.openaiVoices ?? OPENAI_VOICES).filter((name) => voiceOf(model, name)),
  ...model.voices,
];
