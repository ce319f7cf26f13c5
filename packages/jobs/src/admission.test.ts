import { expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { queuedSpeechRequest } from './admission.js';

const model = loadCatalog({}).speechModels['vendor-2.5-flash-preview-tts']!;
const contents = [{ role: 'user' as const, parts: [{ text: 'Hello' }] }];
const voiceOf = (request: ReturnType<typeof queuedSpeechRequest>) =>
  request.generationConfig.speechConfig?.voiceConfig?.prebuiltVoiceConfig.voiceName;

test('a request naming no voice (imageConfig instead of speechConfig) is queued with the model default voice, never its imageConfig', () => {
  const queued = queuedSpeechRequest(
    { contents, generationConfig: { responseModalities: ['AUDIO'], imageConfig: { aspectRatio: '1:1' } } },
    model,
  );
  expect(queued.generationConfig).toEqual({
    responseModalities: ['AUDIO'],
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
  });
  expect(
    voiceOf(queuedSpeechRequest({ contents, generationConfig: { responseModalities: ['AUDIO'] } }, { ...model, defaultVoice: undefined })),
  ).toBe(model.voices[0]);
});

test("a request's own speechConfig goes as it came", () => {
  const multi = {
    multiSpeakerVoiceConfig: {
      speakerVoiceConfigs: ['Joe', 'Jane'].map((speaker) => ({ speaker, voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } })),
    },
  };
  expect(
    queuedSpeechRequest({ contents, generationConfig: { responseModalities: ['AUDIO'], speechConfig: multi } }, model).generationConfig
      .speechConfig,
  ).toBe(multi);
});
