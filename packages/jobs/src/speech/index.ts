import type { CapabilityModule } from '../capability-module.js';
import { geminiSpeechDoor } from '../doors/gemini-speech.js';
import { interactionsSpeechDoor } from '../doors/interactions-speech.js';
import { openAISpeechDoor } from '../doors/openai-speech.js';
import { speechJobResultSchema } from './job.js';

/** Speech synthesis: Gemini's generateContent (its models' paths first), OpenAI's speech and the Interactions API. */
export const speechModule: CapabilityModule<'speech'> = {
  result: speechJobResultSchema,
  doors: [geminiSpeechDoor, openAISpeechDoor, interactionsSpeechDoor],
  delivered: (result) => ({ audioMs: result.durationMs }),
};
