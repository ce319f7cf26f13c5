import { describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { verdict } from '../testing/verdict.js';
import { openAISpeechSchema, speechModelNamed, styleOf } from './openai-request.js';

const catalog = loadCatalog({});
const schema = openAISpeechSchema(catalog);
const MODEL = 'vendor-2.5-flash-preview-tts';
const valid = () => ({ model: 'tts-1', input: 'Welcome aboard.', voice: 'alloy' });
const two = [
  { name: 'Joe', voice: 'onyx' },
  { name: 'Jane', voice: 'Kore' },
];

type Body = Record<string, unknown>;
const cases: Array<[string, (b: Body) => void, string | null]> = [
  ['the smallest request', () => {}, null],
  ['the catalog id as model', (b) => (b.model = MODEL), null],
  ['every OpenAI model name', (b) => (b.model = 'gpt-4o-mini-tts'), null],
  ['every field', (b) => Object.assign(b, { instructions: 'Warmly', response_format: 'opus', speed: 4, stream_format: 'sse' }), null],
  ['a Gemini voice', (b) => (b.voice = 'Kore'), null],
  ['an OpenAI voice in capitals', (b) => (b.voice = 'Alloy'), null],
  ['two speakers instead of a voice', (b) => Object.assign(b, { voice: undefined, speakers: two }), null],
  ['an unknown model', (b) => (b.model = 'tts-9'), 'model'],
  ['no model', (b) => delete b.model, 'model'],
  ['no input', (b) => delete b.input, 'input'],
  ['blank input', (b) => (b.input = '  \n'), 'input'],
  ['input at the model cap (32000)', (b) => (b.input = 'a'.repeat(32_000)), null],
  ['input over the model cap', (b) => (b.input = 'a'.repeat(32_001)), 'input'],
  [
    'instructions pushing the input over the cap',
    (b) => Object.assign(b, { input: 'a'.repeat(31_000), instructions: 'b'.repeat(1_001) }),
    'input',
  ],
  ['instructions over OpenAI’s 4096', (b) => (b.instructions = 'b'.repeat(4_097)), 'instructions'],
  ['no voice', (b) => delete b.voice, 'voice'],
  ['an unknown voice', (b) => (b.voice = 'nobody'), 'voice'],
  ['an own-property trap as voice', (b) => (b.voice = '__proto__'), 'voice'],
  ['a custom voice object', (b) => (b.voice = { id: 'voice_123' }), 'voice'],
  ['speed under 0.25', (b) => (b.speed = 0.2), 'speed'],
  ['speed over 4', (b) => (b.speed = 4.5), 'speed'],
  ['speed as a string', (b) => (b.speed = '2'), 'speed'],
  ['an unknown format', (b) => (b.response_format = 'ogg'), 'response_format'],
  ['an unknown stream format', (b) => (b.stream_format = 'chunks'), 'stream_format'],
  ['one speaker (Gemini takes exactly two)', (b) => (b.speakers = two.slice(0, 1)), 'speakers'],
  ['three speakers', (b) => (b.speakers = [...two, { name: 'Ann', voice: 'nova' }]), 'speakers'],
  ['two speakers of one name', (b) => (b.speakers = [two[0], { ...two[1], name: 'Joe' }]), 'speakers'],
  ['a speaker with an unknown voice', (b) => (b.speakers = [two[0], { ...two[1], voice: 'nobody' }]), 'speakers.1.voice'],
  ['an unknown field', (b) => (b.pitch = 2), 'pitch'],
];

describe('OpenAI speech request rules', () => {
  test.each(cases)('%s', (_label, mutate, expected) => {
    const body: Body = valid();
    mutate(body);
    expect(verdict(schema, body)).toBe(expected);
  });

  test('errors say what is allowed: the speech models, the voices, the bounds', () => {
    const messages = (body: Body) => schema.safeParse(body).error?.issues.map((i) => i.message) ?? [];
    expect(messages({ ...valid(), model: 'tts-9' })[0]).toContain(MODEL);
    expect(messages({ ...valid(), voice: 'nobody' })[0]).toMatch(/alloy.*Kore/);
    expect(messages({ ...valid(), input: 'a'.repeat(32_001) })[0]).toContain('32000');
    expect(messages({ ...valid(), speed: 9 })[0]).toContain('[0.25, 4]');
    expect(messages({ ...valid(), speakers: two.slice(0, 1) })[0]).toMatch(/exactly 2.*voice/);
  });
});

describe('speechModelNamed', () => {
  test("OpenAI's names mean the catalog's OpenAI default (the GA model in the built-in one); catalog ids themselves; nothing else", () => {
    expect(speechModelNamed(catalog, 'tts-1')?.id).toBe('vendor-3.8-flash-tts');
    expect(speechModelNamed(catalog, 'gpt-4o-mini-tts-2025-12-15')?.id).toBe('vendor-3.8-flash-tts');
    // none marked: the first speech model
    const unmarked = { ...catalog, speechModels: { [MODEL]: catalog.speechModels[MODEL]! } };
    expect(speechModelNamed(unmarked, 'tts-1-hd')?.id).toBe(MODEL);
    expect(speechModelNamed(catalog, MODEL)?.model).toBe(catalog.speechModels[MODEL]);
    for (const name of ['tts-2', 'constructor', '__proto__', '']) expect(speechModelNamed(catalog, name)).toBeUndefined();
  });

  test('a catalog without speech models has no model for any name', () => {
    expect(speechModelNamed({ ...catalog, speechModels: {} }, 'tts-1')).toBeUndefined();
  });
});

describe('styleOf', () => {
  test('instructions become a style: trimmed, without the punctuation a direction would end in', () => {
    expect(styleOf({ instructions: 'Speak warmly' })).toBe('Speak warmly');
    expect(styleOf({ instructions: '  Speak slowly.  ' })).toBe('Speak slowly');
    expect(styleOf({ instructions: 'Whisper!:' })).toBe('Whisper');
  });

  test('no or blank instructions: no style', () => {
    expect(styleOf({})).toBeUndefined();
    expect(styleOf({ instructions: ' \n ' })).toBeUndefined();
  });
});
