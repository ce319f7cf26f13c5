import { describe, expect, test } from 'vitest';
import { styledFor } from './style.js';

const body = (...parts: Array<{ text: string; speechMetadata?: { speaker?: string; style?: string } }>) => ({
  contents: [{ role: 'user' as const, parts }],
  generationConfig: { responseModalities: ['AUDIO'] },
});

describe('styledFor: style and speaker where the vendor model reads them', () => {
  test('3.8 reads verbatim: the style goes in speechMetadata, the words stay as they are', () => {
    expect(styledFor('gemini-3.8-flash-tts', body({ text: 'Hello.' }), 'Speak warmly').contents[0]!.parts).toEqual([
      { text: 'Hello.', speechMetadata: { style: 'Speak warmly' } },
    ]);
  });

  test("3.8: a part's own style stays; its speaker stays beside the job's style", () => {
    const parts = styledFor(
      'gemini-3.8-flash-lite-tts',
      body(
        { text: 'Is it lit?', speechMetadata: { speaker: 'Joe' } },
        { text: 'Yes.', speechMetadata: { speaker: 'Jane', style: 'tired' } },
      ),
      'quietly',
    ).contents[0]!.parts;
    expect(parts).toEqual([
      { text: 'Is it lit?', speechMetadata: { speaker: 'Joe', style: 'quietly' } },
      { text: 'Yes.', speechMetadata: { speaker: 'Jane', style: 'tired' } },
    ]);
  });

  test('2.5 and 3.1 read direction in the text: the job style leads the first words, once', () => {
    for (const model of ['gemini-2.5-flash-preview-tts', 'gemini-3.1-flash-tts-preview']) {
      expect(styledFor(model, body({ text: ' ' }, { text: 'Hello.' }, { text: 'Again.' }), 'Speak warmly').contents[0]!.parts).toEqual([
        { text: ' ' },
        { text: 'Speak warmly:\nHello.' },
        { text: 'Again.' },
      ]);
    }
  });

  test('2.5: speechMetadata is folded into the text (speaker leads the line, style directs it) and not sent', () => {
    const parts = styledFor(
      'gemini-2.5-flash-preview-tts',
      body(
        { text: 'Is it lit?', speechMetadata: { speaker: 'Joe', style: 'anxious' } },
        { text: 'Yes.', speechMetadata: { speaker: 'Jane' } },
      ),
    ).contents[0]!.parts;
    expect(parts).toEqual([{ text: 'anxious:\nJoe: Is it lit?' }, { text: 'Jane: Yes.' }]);
  });

  test('3.8 and a dialogue of "Name: ..." lines: a part per speaker, the names in speechMetadata, not spoken', () => {
    const dialogue = {
      ...body({ text: 'Joe: Is the lamp lit?\nJane: Since dusk.\nIt burns all night.' }),
      generationConfig: {
        responseModalities: ['AUDIO'],
        speechConfig: {
          multiSpeakerVoiceConfig: {
            speakerVoiceConfigs: ['Joe', 'Jane'].map((speaker) => ({
              speaker,
              voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } },
            })),
          },
        },
      },
    };
    expect(styledFor('gemini-3.8-flash-tts', dialogue, 'calm').contents[0]!.parts).toEqual([
      { text: 'Is the lamp lit?', speechMetadata: { speaker: 'Joe', style: 'calm' } },
      { text: 'Since dusk.\nIt burns all night.', speechMetadata: { speaker: 'Jane', style: 'calm' } },
    ]);
    // the models that read speakers in the text get the lines as they are
    expect(styledFor('gemini-2.5-flash-preview-tts', dialogue).contents[0]!.parts).toEqual([
      { text: 'Joe: Is the lamp lit?\nJane: Since dusk.\nIt burns all night.' },
    ]);
  });

  test('nothing to place: the very same body', () => {
    const plain = body({ text: 'Hello.' });
    expect(styledFor('gemini-3.8-flash-tts', plain)).toBe(plain);
    expect(styledFor('gemini-2.5-flash-preview-tts', plain)).toBe(plain);
  });
});
