import { describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { conversionOf, deliveredFormatOf, outputFormatOf } from './output-fields.js';

const models = loadCatalog({}).imageModels;
const LITE = models['vendor-gen-5-0-260128']!;
const JPEG_ONLY = models['vendor-gen-4-5-251128']!;
const V55 = models['vendor-gen-5-5-261028']!;
const ask = (fields: Record<string, unknown>) => ({ model: 'm', ...fields });

describe('what the vendor makes and what the client gets', () => {
  test.each([
    ['a JPEG-only model asked png makes JPEG, converted to PNG', JPEG_ONLY, { output_format: 'png' }, ['jpeg', 'png', { format: 'png' }]],
    ['a model that makes PNG is asked for it', LITE, { output_format: 'png' }, ['png', 'png', undefined]],
    [
      'webp comes from a PNG where the model makes one (lossless, alpha kept)',
      V55,
      { output_format: 'webp' },
      ['png', 'webp', { format: 'webp' }],
    ],
    [
      'webp from a JPEG-only model',
      JPEG_ONLY,
      { output_format: 'webp', output_compression: 40 },
      ['jpeg', 'webp', { format: 'webp', quality: 40 }],
    ],
    [
      'jpeg at a compression is re-encoded, not converted',
      LITE,
      { output_format: 'jpeg', output_compression: 80 },
      ['jpeg', 'jpeg', { format: 'jpeg', quality: 80 }],
    ],
    [
      'compression 0 is the encoder quality floor, 1',
      JPEG_ONLY,
      { output_compression: 0 },
      ['jpeg', 'jpeg', { format: 'jpeg', quality: 1 }],
    ],
    ["nothing asked: the model's default, stored as made", V55, {}, ['png', 'png', undefined]],
    ['transparent asks the vendor for PNG', V55, { background: 'transparent', output_format: 'webp' }, ['png', 'webp', { format: 'webp' }]],
  ] as const)('%s', (_, model, fields, [vendor, delivered, conversion]) => {
    const request = ask(fields);
    expect([outputFormatOf(request, model), deliveredFormatOf(request, model), conversionOf(request, model)]).toEqual([
      vendor,
      delivered,
      conversion,
    ]);
  });
});
