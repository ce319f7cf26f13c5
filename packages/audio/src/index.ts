export { encodeSpeech, encodeSpeechLive, encodeSpeechStream, preloadSpeechEncoder, type EncodedSpeech } from './encode-speech.js';
export { encodeSpeechOptionsSchema, MAX_INPUT_SECONDS, type EncodeSpeechOptions } from './encode-options.js';
export { contentTypeOf, speechFormatSchema, type SpeechFormat } from './formats.js';
export { MAX_SPEED, MIN_SPEED, speechSpeedSchema } from './speed.js';
export { AudioInputError, type AudioInputProblem } from './errors.js';
