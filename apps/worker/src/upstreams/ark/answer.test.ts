import { describe, expect, test } from 'vitest';
import { fixtureJson } from '../vendor-fixtures.test-support.js';
import { UpstreamError } from '../upstream-error.js';
import { readArkAnswer } from './answer.js';
import { readArkSize } from './size.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const read = (body: unknown) => readArkAnswer(body, 'sent-model', undefined, NOW);

describe('every recorded paid answer reads, whatever it leaves out (never bought again for a field)', () => {
  test.each([
    ['seedream/byteplus-doc-4-5-t2i-response.json', 1, ['1760x2368']],
    ['seedream/byteplus-doc-4-5-sequential-3-images-response.json', 3, ['2720x1536', '2720x1536', '2720x1536']],
    ['seedream/byteplus-real-4-0-response.image-gen-mcp.json', 1, ['1728x2304']],
    ['seedream/volcengine-seededit-3-0-response.gptproto-copy.json', 1, ['']],
    ['seedream/volcengine-seedream-3-0-t2i-response.302ai-copy.json', 1, ['']],
  ])('%s', (path, images, sizes) => {
    const answer = read(fixtureJson(path));
    const delivered = answer.data.filter((slot) => !('error' in slot));
    expect(delivered).toHaveLength(images);
    expect(delivered.map((slot) => ('size' in slot ? slot.size : undefined))).toEqual(sizes);
    expect(typeof answer.model).toBe('string');
    expect(Number.isInteger(answer.created)).toBe(true);
  });

  test('a missing model and created are the model sent and the time of arrival', () => {
    const answer = read(fixtureJson('seedream/byteplus-real-4-0-response.image-gen-mcp.json'));
    expect(answer).toMatchObject({ model: 'sent-model', created: NOW / 1000 });
  });

  test('usage with only generated_images (3.0-t2i) keeps what it has', () => {
    expect(read(fixtureJson('seedream/volcengine-seedream-3-0-t2i-response.302ai-copy.json')).usage).toMatchObject({ generated_images: 1 });
  });

  test('fields of the wrong type read as absent, not as a reason to call again', () => {
    const answer = read({ model: 7, created: 'soon', data: [{ url: 'https://x/0.jpeg', size: 2048 }], usage: { output_tokens: 'many' } });
    expect(answer).toMatchObject({ model: 'sent-model', data: [{ url: 'https://x/0.jpeg', size: '' }] });
    expect(answer.usage?.output_tokens).toBeUndefined();
  });

  test('a slot with neither image nor error keeps its place as a failed one', () => {
    const answer = read({ data: [{ url: '' }, { url: 'https://x/1.jpeg' }] });
    expect(answer.data[0]).toMatchObject({ error: { code: 'upstream_empty_slot' } });
    expect(answer.data[1]).toMatchObject({ url: 'https://x/1.jpeg' });
  });

  test('a 200 with an error and no data is that error; one with nothing is worth another call', () => {
    const moderated = fixtureJson('seedream/ark-400-OutputImageSensitiveContentDetected.json');
    expect(() => read(moderated)).toThrow(
      expect.objectContaining({ kind: 'refused', details: expect.objectContaining({ moderation: true }) }),
    );
    expect(() => read('<html>')).toThrow(UpstreamError);
    expect(() => read({})).toThrow(expect.objectContaining({ kind: 'transient' }));
  });
});

describe('sizes as the vendor writes them', () => {
  test.each([
    ['2048x2048', '2048x2048'],
    ['2048×2048', '2048x2048'],
    [' 1760 x 2368 ', '1760x2368'],
    ['2K', ''],
    ['', ''],
    [undefined, ''],
    [2048, ''],
    ['NaNxNaN', ''],
  ])('%s -> %s', (input, output) => {
    expect(readArkSize(input)).toBe(output);
  });
});
