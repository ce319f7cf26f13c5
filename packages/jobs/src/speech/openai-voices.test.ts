import { describe, expect, test } from 'vitest';
import { GEMINI_VOICES, loadCatalog, type SpeechModel } from '@relay/core';
import { OPENAI_VOICES, voiceNamesOf, voiceOf } from './openai-voices.js';

const model = loadCatalog({}).speechModels['vendor-2.5-flash-preview-tts']!;

describe('the OpenAI voice table', () => {
  test('every voice OpenAI documents is mapped, each to a distinct Gemini voice', () => {
    const openai = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];
    expect(Object.keys(OPENAI_VOICES).sort()).toEqual(openai.sort());
    for (const voice of Object.values(OPENAI_VOICES)) expect(GEMINI_VOICES).toContain(voice);
    expect(new Set(Object.values(OPENAI_VOICES)).size).toBe(openai.length);
  });
});

describe('voiceOf', () => {
  test("the model's own voices as they are; OpenAI's names through the table, in any case", () => {
    expect(voiceOf(model, 'Kore')).toBe('Kore');
    expect(voiceOf(model, 'alloy')).toBe('Zephyr');
    expect(voiceOf(model, 'ONYX')).toBe('Orus');
  });

  test('anything else means no voice, own-property traps included', () => {
    for (const name of ['kore', 'nobody', '', 'constructor', '__proto__', 'toString']) expect(voiceOf(model, name)).toBeUndefined();
  });

  test("a model's own table replaces the relay's; a name mapped to a voice the model lacks means none", () => {
    const narrow: SpeechModel = { ...model, voices: ['Kore', 'Puck'], openaiVoices: { alloy: 'Puck' } };
    expect(voiceOf(narrow, 'alloy')).toBe('Puck');
    expect(voiceOf(narrow, 'nova')).toBeUndefined(); // the relay's table would say Kore: not consulted
    const lacking: SpeechModel = { ...model, voices: ['Kore'] };
    expect(voiceOf(lacking, 'alloy')).toBeUndefined(); // Zephyr is not this model's
    expect(voiceOf(lacking, 'nova')).toBe('Kore');
  });
});

describe('voiceNamesOf', () => {
  test('every name the model answers to: the OpenAI names it can map, then its own voices', () => {
    const names = voiceNamesOf(model);
    expect(names.slice(0, Object.keys(OPENAI_VOICES).length)).toEqual(Object.keys(OPENAI_VOICES));
    expect(names.slice(Object.keys(OPENAI_VOICES).length)).toEqual(GEMINI_VOICES);
    expect(voiceNamesOf({ ...model, voices: ['Kore'] })).toEqual(['nova', 'Kore']);
  });
});
