import { describe, expect, test } from 'vitest';
import { withReadingDirection } from './direction.js';

const body = (...texts: string[]) => ({
  contents: [{ role: 'user' as const, parts: texts.map((text) => ({ text })) }],
  generationConfig: { responseModalities: ['AUDIO'] },
});

describe('a reading direction before a bare text, never a word of it changed', () => {
  test('a bare short text gets one; every word is still there, in order', () => {
    const directed = withReadingDirection('gemini-2.5-flash-preview-tts', body('Hello world'));
    expect(directed?.contents[0]!.parts![0]!.text).toBe('Read aloud:\nHello world');
    expect(directed?.contents[0]!.parts![0]!.text.endsWith('Hello world')).toBe(true);
  });

  test('a text that already has one, and a 3.8 model (it reads verbatim), are left alone', () => {
    expect(withReadingDirection('gemini-2.5-flash-preview-tts', body('Say cheerfully: Have a wonderful day!'))).toBeUndefined();
    expect(withReadingDirection('gemini-3.8-flash-tts', body('Hello world'))).toBeUndefined();
  });

  test('the first part with words gets it; the others are untouched', () => {
    const directed = withReadingDirection('gemini-3.1-flash-tts-preview', body('  ', 'Bonjour.', 'Encore.'));
    expect(directed?.contents[0]!.parts!.map((p) => p.text)).toEqual(['  ', 'Read aloud:\nBonjour.', 'Encore.']);
  });

  test('the body it was given is not changed', () => {
    const original = body('Hello');
    withReadingDirection('gemini-2.5-flash-preview-tts', original);
    expect(original.contents[0]!.parts[0]!.text).toBe('Hello');
  });
});
