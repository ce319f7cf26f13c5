import { describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { retirementHeaders } from './retirement-headers.js';

const builtIn = loadCatalog({});
const path = (id: string) => `/v1beta/models/${id}`;

describe('retirementHeaders', () => {
  test('the built-in preview id: deprecated since its successor went GA, linked to the catalog model on the successor', () => {
    expect(retirementHeaders(builtIn, 'vendor-2.5-flash-preview-tts', path)).toEqual({
      Deprecation: `@${Date.UTC(2026, 8, 22) / 1000}`,
      Link: '</v1beta/models/vendor-3.8-flash-tts>; rel="successor-version"',
    });
  });

  test('a sunset an operator set is an HTTP date; without a catalog model on the successor there is no link', () => {
    const preview = builtIn.speechModels['vendor-2.5-flash-preview-tts']!;
    const catalog = {
      ...builtIn,
      speechModels: { 'vendor-2.5-flash-preview-tts': { ...preview, retirement: { successor: 'gemini-9-tts', sunset: '2026-12-18' } } },
    };
    expect(retirementHeaders(catalog, 'vendor-2.5-flash-preview-tts', path)).toEqual({ Sunset: 'Fri, 18 Dec 2026 00:00:00 GMT' });
  });

  test('a model that does not retire, or one not in the catalog: nothing', () => {
    expect(retirementHeaders(builtIn, 'vendor-3.8-flash-tts', path)).toEqual({});
    expect(retirementHeaders(builtIn, '__proto__', path)).toEqual({});
  });
});
