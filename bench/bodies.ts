/** The requests the bench parts send, shared so that every part measures the same work. */
export const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse at dusk' };
export const VENDOR_IMAGE = { ...IMAGE, model: 'seedream-4-0-250828' };
export const SPEECH_MODEL = 'vendor-2.5-flash-preview-tts';
/** About 64 KB of answer: 0.7 s of 24 kHz 16-bit audio, base64 in Gemini's JSON. */
export const SPEECH = {
  contents: [{ parts: [{ text: 'Good evening, all.' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};

export const post = (url: string, body: unknown, headers: Record<string, string>) => () =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

export const relayImage = (apiUrl: string, key: string) =>
  post(`${apiUrl}/v1/images/generations`, IMAGE, { authorization: `Bearer ${key}` });

export const relaySpeech = (apiUrl: string, key: string) =>
  post(`${apiUrl}/v1beta/models/${SPEECH_MODEL}:generateContent`, SPEECH, { 'x-goog-api-key': key });
