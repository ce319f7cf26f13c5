import { describe, expect, test } from 'vitest';
import { verdict } from '../testing/verdict.js';
import { loadCatalog } from '@relay/core';
import { speechRequestSchema, speechText } from './request.js';

const MODEL = 'vendor-2.5-flash-preview-tts';
const schema = speechRequestSchema(MODEL, loadCatalog({}).speechModels[MODEL]!);

const voice = (voiceName: string) => ({ prebuiltVoiceConfig: { voiceName } });
const valid = () => ({
  contents: [{ role: 'user', parts: [{ text: 'Say cheerfully: Have a wonderful day!' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: voice('Kore') } },
});

const check = (body: unknown) => verdict(schema, body);

type Mutation = (body: ReturnType<typeof valid> & Record<string, any>) => void;
const cases: Array<[string, Mutation, string | null]> = [
  ['the sample request', () => {}, null],
  ['body model repeating the path', (b) => (b.model = MODEL), null],
  ['body model with the models/ prefix', (b) => (b.model = `models/${MODEL}`), null],
  ['body model naming another model', (b) => (b.model = 'vendor-other-tts'), 'model'],
  ['no contents', (b) => delete (b as any).contents, 'contents'],
  ['empty contents', (b) => (b.contents = []), 'contents'],
  ['contents without parts', (b) => (b.contents = [{ role: 'user' } as any]), 'contents'],
  ['only blank text', (b) => (b.contents[0]!.parts[0]!.text = '   '), 'contents'],
  ['a part without text', (b) => (b.contents[0]!.parts = [{ inlineData: {} } as any]), 'contents.0.parts.0.text'],
  ['text at the input cap (32000)', (b) => (b.contents[0]!.parts[0]!.text = 'a'.repeat(32_000)), null],
  ['text over the input cap', (b) => (b.contents[0]!.parts[0]!.text = 'a'.repeat(32_001)), 'contents'],
  ['role model in contents', (b) => (b.contents[0]!.role = 'model'), 'contents.0.role'],
  ['no generationConfig', (b) => delete (b as any).generationConfig, 'generationConfig'],
  ['no responseModalities', (b) => delete (b.generationConfig as any).responseModalities, 'generationConfig.responseModalities'],
  ['TEXT modality', (b) => (b.generationConfig.responseModalities = ['TEXT']), 'generationConfig.responseModalities'],
  ['AUDIO and TEXT', (b) => (b.generationConfig.responseModalities = ['AUDIO', 'TEXT']), 'generationConfig.responseModalities'],
  ['imageConfig omitted when speechConfig is present (the SPEC says so)', () => {}, null],
  ['imageConfig alongside speechConfig', (b) => ((b.generationConfig as any).imageConfig = {}), null],
  ['neither speechConfig nor imageConfig', (b) => delete (b.generationConfig as any).speechConfig, 'generationConfig.speechConfig'],
  [
    'unknown voice',
    (b) => (b.generationConfig.speechConfig.voiceConfig = voice('Nobody')),
    'generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName',
  ],
  [
    'voice name in the wrong case',
    (b) => (b.generationConfig.speechConfig.voiceConfig = voice('kore')),
    'generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName',
  ],
  ['each of the 30 voices is known', (b) => (b.generationConfig.speechConfig.voiceConfig = voice('Zubenelgenubi')), null],
  ['languageCode en-US', (b) => ((b.generationConfig.speechConfig as any).languageCode = 'en-US'), null],
  [
    'languageCode nonsense',
    (b) => ((b.generationConfig.speechConfig as any).languageCode = 'English!'),
    'generationConfig.speechConfig.languageCode',
  ],
  ['temperature 2', (b) => ((b.generationConfig as any).temperature = 2), null],
  ['temperature 2.1', (b) => ((b.generationConfig as any).temperature = 2.1), 'generationConfig.temperature'],
  [
    'unknown generationConfig field',
    (b) => ((b.generationConfig as any).responseMimeType = 'audio/wav'),
    'generationConfig.responseMimeType',
  ],
  ['unknown top-level field', (b) => ((b as any).systemInstruction = { parts: [] }), 'systemInstruction'],
  [
    'unknown field deep inside',
    (b) => ((b.generationConfig.speechConfig.voiceConfig as any).speed = 2),
    'generationConfig.speechConfig.voiceConfig.speed',
  ],
];

const speakers = (...names: string[]) => ({
  speakerVoiceConfigs: names.map((speaker, i) => ({ speaker, voiceConfig: voice(i % 2 ? 'Puck' : 'Kore') })),
});
const multi: Array<[string, Mutation, string | null]> = [
  ['two speakers', (b) => (b.generationConfig.speechConfig = { multiSpeakerVoiceConfig: speakers('Joe', 'Jane') } as any), null],
  [
    'one speaker (Gemini takes exactly two)',
    (b) => (b.generationConfig.speechConfig = { multiSpeakerVoiceConfig: speakers('Joe') } as any),
    'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
  ],
  [
    'three speakers',
    (b) => (b.generationConfig.speechConfig = { multiSpeakerVoiceConfig: speakers('A', 'B', 'C') } as any),
    'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
  ],
  [
    'no speakers',
    (b) => (b.generationConfig.speechConfig = { multiSpeakerVoiceConfig: speakers() } as any),
    'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
  ],
  [
    'the same speaker twice',
    (b) => (b.generationConfig.speechConfig = { multiSpeakerVoiceConfig: speakers('Joe', 'Joe') } as any),
    'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs',
  ],
  [
    'voiceConfig and multi-speaker together',
    (b) => ((b.generationConfig.speechConfig as any).multiSpeakerVoiceConfig = speakers('Joe', 'Jane')),
    'generationConfig.speechConfig.multiSpeakerVoiceConfig',
  ],
  [
    'a speaker with an unknown voice',
    (b) => {
      const config = speakers('Joe', 'Jane');
      config.speakerVoiceConfigs[1]!.voiceConfig = voice('Nobody');
      b.generationConfig.speechConfig = { multiSpeakerVoiceConfig: config } as any;
    },
    'generationConfig.speechConfig.multiSpeakerVoiceConfig.speakerVoiceConfigs.1.voiceConfig.prebuiltVoiceConfig.voiceName',
  ],
];

describe('speech request rules', () => {
  test.each([...cases, ...multi])('%s', (_label, mutate, expected) => {
    const body = valid();
    mutate(body as any);
    expect(check(body)).toBe(expected);
  });
});

test('speechText joins every text part', () => {
  expect(speechText({ contents: [{ parts: [{ text: 'a' }, { text: 'b' }] }, { parts: [{ text: 'c' }] }] })).toBe('a\nb\nc');
});

test('one schema per model and path name, made once: each keeps its own model and name', () => {
  const models = loadCatalog({}).speechModels;
  const spec = models[MODEL]!;
  expect(speechRequestSchema(MODEL, spec)).toBe(speechRequestSchema(MODEL, spec));
  // another name for the same model is checked against that name
  const other = speechRequestSchema('vendor-other-tts', spec);
  expect(other).not.toBe(speechRequestSchema(MODEL, spec));
  expect(verdict(other, { ...valid(), model: MODEL })).toBe('model');
  expect(verdict(other, { ...valid(), model: 'vendor-other-tts' })).toBe(null);
  // a model of another catalog (a smaller input cap) gets a schema of its own
  const small = { ...spec, maxInputChars: 10 };
  expect(verdict(speechRequestSchema(MODEL, small), valid())).toBe('contents');
  expect(verdict(speechRequestSchema(MODEL, spec), valid())).toBe(null);
});
