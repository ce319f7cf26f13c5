/**
 * The Gemini TTS models the simulator serves, and how they differ where the relay can tell.
 * `voiceRequired`: the 2.5 previews pick a voice themselves when speechConfig is absent; 3.1 Flash
 * TTS Preview answers 400 INVALID_ARGUMENT "Request contains an invalid argument." with no details
 * (genkit-ai/genkit#5489). The 3.8 models (GA, the recommended replacements of 3.1: ai.google.dev
 * models/gemini-3.8-flash-lite-tts) are taken to refuse it the same way; every sample Google
 * gives for them names a voice. All four take the 30 prebuilt voices, 8,192 input tokens and
 * 16,384 output tokens, and answer raw 24 kHz PCM here.
 */
export const TTS_MODELS: Readonly<Record<string, { voiceRequired: boolean }>> = {
  'gemini-2.5-flash-preview-tts': { voiceRequired: false },
  'gemini-2.5-pro-preview-tts': { voiceRequired: false },
  'gemini-3.1-flash-tts-preview': { voiceRequired: true },
  'gemini-3.8-flash-tts': { voiceRequired: true },
  'gemini-3.8-flash-lite-tts': { voiceRequired: true },
};

export const ttsModel = (id: string) => (Object.hasOwn(TTS_MODELS, id) ? TTS_MODELS[id] : undefined);
