import { describe, expect, test } from 'vitest';
import { UpstreamError } from '../upstream-error.js';
import { eventsOfAnswer } from './answer-events.js';

describe('a JSON answer to a stream call, read as the events a stream sends', () => {
  test('each slot in order, failures included, then completed with the answer usage', () => {
    const answer = {
      model: 'seedream-3-0-t2i-250415',
      created: 1757388756,
      data: [
        { url: 'https://x/0.jpeg', size: '1024x1024' },
        { error: { code: 'OutputImageSensitiveContentDetected', message: 'no' } },
        { b64_json: 'AAAA', size: '1024x1024' },
      ],
      usage: { generated_images: 2, output_tokens: 8192, total_tokens: 8192 },
    };
    expect([...eventsOfAnswer(answer, 'sent')]).toEqual([
      {
        type: 'image_generation.partial_succeeded',
        model: answer.model,
        created: answer.created,
        image_index: 0,
        url: 'https://x/0.jpeg',
        size: '1024x1024',
      },
      {
        type: 'image_generation.partial_failed',
        model: answer.model,
        created: answer.created,
        image_index: 1,
        error: { code: 'OutputImageSensitiveContentDetected', message: 'no' },
      },
      {
        type: 'image_generation.partial_succeeded',
        model: answer.model,
        created: answer.created,
        image_index: 2,
        b64_json: 'AAAA',
        size: '1024x1024',
      },
      { type: 'image_generation.completed', model: answer.model, created: answer.created, usage: answer.usage },
    ]);
  });

  test('an answer without usage counts its images', () => {
    const events = [...eventsOfAnswer({ model: 'm', created: 1, data: [{ url: 'u' }] }, 'sent')];
    expect(events.at(-1)).toMatchObject({ usage: { generated_images: 1 } });
  });

  test('an error body is the upstream error; anything else is worth a retry', () => {
    expect(() => [...eventsOfAnswer({ error: { code: 'InternalServiceError', message: 'x' } }, 'sent')]).toThrow(UpstreamError);
    expect(() => [...eventsOfAnswer('<html>', 'sent')]).toThrow(/neither images nor an error/);
  });
});
