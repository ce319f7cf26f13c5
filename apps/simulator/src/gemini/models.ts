/**
 * The Gemini TTS models the simulator serves, and how they differ where the relay can tell.
 * `voiceRequired`: the 2.5 previews pick a voice themselves when speechConfig is absent; 3.1 Flash
 * TTS Preview answers 400 INVALID_ARGUMENT "Request contains an invalid argument." with no details
 * (genkit-ai/genkit#5489). The 3.8 models (GA, the recommended replacements of 3.1: ai.google.dev
 * models/gemini-3.8-flash-lite-tts) are taken to refuse it the same way; every sample Google
 * gives for them names a voice. All four take the 30 prebuilt voices, 8,192 input tokens and
 * 16,384 output tokens, and answer raw 24 kHz PCM here.
 * `mimeType`: how the model labels that PCM. The 2.5 previews write `audio/L16;codec=pcm;rate=24000`,
 * 3.1 Flash TTS `audio/l16; rate=24000; channels=1` (observed live: fixtures/vendor/gemini/
 * tts-3.1-mimetype…); nothing is recorded for 3.8, which keeps the 2.5 label here.
 * `thinking`: whether a `thinkingConfig` is taken; the 2.5 Flash preview refuses one with 400
 * "Thinking is not enabled for models/…" (home-assistant/core#153408), taken to hold for 2.5 Pro;
 * nothing is recorded for 3.x, which take (and ignore) it here.
 * `verbatim`: the 3.8 models speak the text as it is, a leading "Say ...:" included, and take style
 * apart (speechMetadata, ai.google.dev speech-generation); the earlier ones follow a leading
 * direction and speak only what comes after it.
 * `chunkSeconds`: how much audio each event of `streamGenerateContent` carries. The 2.5 previews
 * send the whole clip as one event once it is made; the 3.x models stream it as it is made
 * (streamed TTS, changelog 2026-06-17 as third parties report it), here a second of audio an event.
 */
export interface TtsModel {
  voiceRequired: boolean;
  mimeType: string;
  thinking: boolean;
  verbatim?: boolean;
  chunkSeconds?: number;
}

const L16_25 = 'audio/L16;codec=pcm;rate=24000';
const L16_31 = 'audio/l16; rate=24000; channels=1';

export const TTS_MODELS: Readonly<Record<string, TtsModel>> = {
  'gemini-2.5-flash-preview-tts': { voiceRequired: false, mimeType: L16_25, thinking: false },
  'gemini-2.5-pro-preview-tts': { voiceRequired: false, mimeType: L16_25, thinking: false },
  'gemini-3.1-flash-tts-preview': { voiceRequired: true, mimeType: L16_31, thinking: true, chunkSeconds: 1 },
  'gemini-3.8-flash-tts': { voiceRequired: true, mimeType: L16_25, thinking: true, verbatim: true, chunkSeconds: 1 },
  'gemini-3.8-flash-lite-tts': { voiceRequired: true, mimeType: L16_25, thinking: true, verbatim: true, chunkSeconds: 1 },
};

export const ttsModel = (id: string) => (Object.hasOwn(TTS_MODELS, id) ? TTS_MODELS[id] : undefined);
