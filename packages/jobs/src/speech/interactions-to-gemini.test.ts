import { describe, expect, test } from 'vitest';
import { AppError, loadCatalog, toValidationError } from '@relay/core';
import { audioFormatOf, interactionsSpeechFields } from './interactions-request.js';
import { geminiSpeechOf } from './interactions-to-gemini.js';

const MODEL = 'vendor-3.8-flash-tts';
const spec = loadCatalog({}).speechModels[MODEL]!;
const TEXT = 'The keeper lit the lamp.';

const body = (extra: Record<string, unknown> = {}) => ({ model: MODEL, input: TEXT, ...extra });
const mapped = (sent: Record<string, unknown>) => geminiSpeechOf(interactionsSpeechFields.parse(sent), MODEL, spec);
/** The field a refusal names, and its message. */
function refusal(sent: Record<string, unknown>) {
  try {
    mapped(sent);
  } catch (error) {
    if (error instanceof AppError) return { param: error.param, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('an Interactions speech body as the Gemini body of the speech job', () => {
  test("a string input is one text part; a voice in the guide's lowercase is the model's voice", () => {
    expect(mapped(body({ generation_config: { speech_config: [{ voice: 'kore', language: 'en-US' }] } }))).toEqual({
      contents: [{ role: 'user', parts: [{ text: TEXT }] }],
      generationConfig: {
        responseModalities: ['AUDIO'],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } }, languageCode: 'en-US' },
      },
    });
  });

  test("no speech_config: the model's default voice, as Gemini's door gives it", () => {
    const request = mapped(body());
    expect(request.generationConfig.speechConfig).toEqual({ voiceConfig: { prebuiltVoiceConfig: { voiceName: spec.defaultVoice } } });
  });

  test('a speech_metadata annotation over the whole text is the part’s speechMetadata (the style read, not spoken)', () => {
    const request = mapped(
      body({
        input: [{ type: 'text', text: TEXT, annotations: [{ type: 'speech_metadata', style: 'Whisper, slowly' }] }],
        generation_config: { speech_config: { speakers: [{ voice: 'Puck' }] }, temperature: 0.5, top_p: 0.9, seed: 7 },
      }),
    );
    expect(request.contents).toEqual([{ role: 'user', parts: [{ text: TEXT, speechMetadata: { style: 'Whisper, slowly' } }] }]);
    expect(request.generationConfig).toMatchObject({ temperature: 0.5, topP: 0.9, seed: 7 });
  });

  test('a dialogue of user_input steps: a part per text, each speaker its voice (Gemini multi-speaker)', () => {
    const line = (speaker: string, text: string) => ({ type: 'text', text, annotations: [{ type: 'speech_metadata', speaker }] });
    const request = mapped(
      body({
        input: [
          { type: 'user_input', content: [line('Joe', 'How is it going?')] },
          { type: 'user_input', content: [line('Jane', 'Not too bad.')] },
        ],
        generation_config: {
          speech_config: [
            { speaker: 'Joe', voice: 'Kore' },
            { speaker: 'Jane', voice: 'Puck' },
          ],
        },
      }),
    );
    expect(request.contents).toEqual([
      { role: 'user', parts: [{ text: 'How is it going?', speechMetadata: { speaker: 'Joe' } }] },
      { role: 'user', parts: [{ text: 'Not too bad.', speechMetadata: { speaker: 'Jane' } }] },
    ]);
    expect(request.generationConfig.speechConfig).toEqual({
      multiSpeakerVoiceConfig: {
        speakerVoiceConfigs: [
          { speaker: 'Joe', voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
          { speaker: 'Jane', voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } },
        ],
      },
    });
  });

  test('annotation ranges (UTF-8 byte offsets) split a text into parts, the text between them plain', () => {
    const text = 'Café: open. Closed!';
    const cafe = Buffer.byteLength('Café: open.');
    const request = mapped(
      body({
        input: {
          type: 'text',
          text,
          annotations: [
            { type: 'speech_metadata', style: 'sad', start_index: cafe + 1 },
            { type: 'speech_metadata', style: 'bright', end_index: cafe },
          ],
        },
      }),
    );
    expect(request.contents[0]!.parts).toEqual([
      { text: 'Café: open.', speechMetadata: { style: 'bright' } },
      { text: ' ' },
      { text: 'Closed!', speechMetadata: { style: 'sad' } },
    ]);
  });

  test("one voice naming its speaker: annotations naming that speaker say nothing more (Gemini's one voice takes no speakers)", () => {
    const request = mapped(
      body({
        input: [{ type: 'text', text: TEXT, annotations: [{ type: 'speech_metadata', speaker: 'Ann', style: 'calm' }] }],
        generation_config: { speech_config: [{ speaker: 'Ann', voice: 'Kore' }] },
      }),
    );
    expect(request.contents[0]!.parts).toEqual([{ text: TEXT, speechMetadata: { style: 'calm' } }]);
  });
});

describe('refusals name the Interactions field', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'an unknown voice',
      body({ generation_config: { speech_config: { speakers: [{ voice: 'Nobody' }] } } }),
      'generation_config.speech_config.speakers[0].voice',
    ],
    [
      'a speaker no voice names',
      body({ input: [{ type: 'text', text: TEXT, annotations: [{ type: 'speech_metadata', speaker: 'Joe' }] }] }),
      'input[0].annotations[0].speaker',
    ],
    [
      'two voices, one without its speaker',
      body({ generation_config: { speech_config: [{ speaker: 'Joe', voice: 'Kore' }, { voice: 'Puck' }] } }),
      'generation_config.speech_config[1].speaker',
    ],
    [
      'three speakers',
      body({ generation_config: { speech_config: [{ speaker: 'A' }, { speaker: 'B' }, { speaker: 'C' }] } }),
      'generation_config.speech_config',
    ],
    [
      'two speakers of one name',
      body({ generation_config: { speech_config: [{ speaker: 'A' }, { speaker: 'A' }] } }),
      'generation_config.speech_config',
    ],
    [
      'two languages',
      body({
        generation_config: {
          speech_config: [
            { speaker: 'A', language: 'en-US' },
            { speaker: 'B', language: 'de-DE' },
          ],
        },
      }),
      'generation_config.speech_config',
    ],
    [
      'a language that is no BCP-47 code',
      body({ generation_config: { speech_config: [{ language: 'english!' }] } }),
      'generation_config.speech_config[0].language',
    ],
    ['blank text', body({ input: '   ' }), 'input'],
    ['text over the model’s input cap', body({ input: 'a'.repeat(spec.maxInputChars + 1) }), 'input'],
    [
      'overlapping ranges',
      body({
        input: {
          type: 'text',
          text: TEXT,
          annotations: [
            { type: 'speech_metadata', end_index: 5 },
            { type: 'speech_metadata', start_index: 3, end_index: 8 },
          ],
        },
      }),
      'input.annotations[1].start_index',
    ],
    [
      'a range past the text',
      body({ input: { type: 'text', text: 'hi', annotations: [{ type: 'speech_metadata', end_index: 3 }] } }),
      'input.annotations[0].end_index',
    ],
    [
      'a range inside a character',
      body({ input: { type: 'text', text: 'é!', annotations: [{ type: 'speech_metadata', end_index: 1 }] } }),
      'input.annotations[0].end_index',
    ],
  ];
  test.each(cases)('%s', (_label, sent, param) => {
    expect(refusal(sent).param).toBe(param);
  });

  test('messages speak of the Interactions fields, not Gemini’s', () => {
    expect(
      refusal(body({ input: [{ type: 'text', text: TEXT, annotations: [{ type: 'speech_metadata', speaker: 'Joe' }] }] })).message,
    ).toBe('speaker "Joe" must be a speaker of generation_config.speech_config (none names one)');
  });
});

describe('the body itself (strict: what speech does not take is a 400 naming it)', () => {
  const cases: Array<[string, unknown, string | null]> = [
    ['the smallest body', body(), null],
    ['stream and store', body({ stream: true, store: false }), null],
    ['response_format audio, as a list of one', body({ response_format: [{ type: 'audio', mime_type: 'audio/mp3' }] }), null],
    ['response_modalities ["audio"]', body({ response_modalities: ['audio'] }), null],
    ['an unknown field', body({ voice: 'Kore' }), 'voice'],
    ['a tool', body({ tools: [] }), 'tools'],
    ['no input', { model: MODEL }, 'input'],
    ['no model', { input: TEXT }, 'model'],
    ['text output', body({ response_format: { type: 'text' } }), 'response_format.type'],
    ['an unknown mime type', body({ response_format: { type: 'audio', mime_type: 'audio/alaw' } }), 'response_format.mime_type'],
    ['a bit rate', body({ response_format: { type: 'audio', mime_type: 'audio/mp3', bit_rate: 64000 } }), 'response_format.bit_rate'],
    ['another sample rate', body({ response_format: { type: 'audio', sample_rate: 16000 } }), 'response_format.sample_rate'],
    [
      'a citation annotation',
      body({ input: { type: 'text', text: TEXT, annotations: [{ type: 'url_citation' }] } }),
      'input.annotations[0].type',
    ],
    ['an image input', body({ input: [{ type: 'image', data: 'AAAA' }] }), 'input[0].type'],
    [
      'an unknown speech_config field',
      body({ generation_config: { speech_config: [{ voice_name: 'Kore' }] } }),
      'generation_config.speech_config[0].voice_name',
    ],
    ['max_output_tokens', body({ generation_config: { max_output_tokens: 10 } }), 'generation_config.max_output_tokens'],
  ];
  test.each(cases)('%s', (_label, sent, path) => {
    const result = interactionsSpeechFields.safeParse(sent);
    expect(result.success ? null : toValidationError(result.error).param).toBe(path);
  });

  test('the audio asked: WAV inline by default, else as given', () => {
    const format = (sent: unknown) => audioFormatOf(interactionsSpeechFields.parse(sent));
    expect(format(body())).toEqual({ mimeType: 'audio/wav', delivery: 'inline' });
    expect(format(body({ response_format: { type: 'audio', mime_type: 'audio/l16', delivery: 'uri' } }))).toEqual({
      mimeType: 'audio/l16',
      delivery: 'uri',
    });
  });
});
