import { getObjectBuffer, type BlobStore } from '@relay/core';
import { parseFileId } from '../files.js';
import type { SpeechJobResult } from '../speech/job.js';
import { readWav } from '../speech/wav.js';
import type { GenerateContentResponse } from './google.js';

/**
 * Gemini's own response shape, so Google's SDKs work unchanged: the PCM (read back from the
 * stored WAV, header stripped) as inlineData with the upstream's mimeType, usageMetadata,
 * the public model id as modelVersion, the upstream's responseId.
 */
export async function presentSpeech(result: SpeechJobResult, model: string, store: BlobStore): Promise<GenerateContentResponse> {
  const wav = await getObjectBuffer(store, parseFileId(result.file.fileId)!.key);
  const pcm = readWav(wav)?.pcm ?? wav;
  return {
    candidates: [
      {
        content: { role: 'model' as const, parts: [{ inlineData: { mimeType: result.mimeType, data: pcm.toString('base64') } }] },
        finishReason: result.finishReason,
        index: 0,
      },
    ],
    usageMetadata: result.usageMetadata,
    modelVersion: model,
    responseId: result.responseId,
  };
}
