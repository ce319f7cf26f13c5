import { describe, expect, test } from 'vitest';
import { createLogger, loadCatalog, type SpeechModel } from '@relay/core';
import { UpstreamError } from '../upstreams/upstream-error.js';
import { createVendorModels } from './vendor-model.js';

const model: SpeechModel = {
  ...loadCatalog({}).speechModels['vendor-2.5-flash-preview-tts']!,
  upstreamModel: 'preview',
  retirement: { sunset: '2026-12-18', successor: 'ga' },
};
const BEFORE = Date.parse('2026-12-17T23:59:59Z');
const AFTER = Date.parse('2026-12-18T00:00:00Z');
const log = createLogger('test', 'silent');

/** A vendor that knows only the models given, answering 404 for the rest, and the models it was asked for. */
function vendor(...serves: string[]) {
  const asked: string[] = [];
  const run = async (vendorModel: string) => {
    asked.push(vendorModel);
    if (!serves.includes(vendorModel)) throw new UpstreamError('misconfigured', `models/${vendorModel} is not found`, { status: 404 });
    return vendorModel;
  };
  return { asked, run };
}

describe('the vendor model a speech call goes to', () => {
  test('before the sunset, the preview; from it, the successor', async () => {
    const models = createVendorModels(log);
    const { asked, run } = vendor('preview', 'ga');
    expect(await models.call('id', model, 'preview', run, BEFORE)).toEqual({ value: 'preview', vendorModel: 'preview' });
    expect(await models.call('id', model, 'preview', run, AFTER)).toEqual({ value: 'ga', vendorModel: 'ga' });
    expect(asked).toEqual(['preview', 'ga']);
  });

  test("the vendor's 404 for the preview before its sunset: the successor in the same call, and from then on", async () => {
    const models = createVendorModels(log);
    const { asked, run } = vendor('ga');
    expect(await models.call('id', model, 'preview', run, BEFORE)).toEqual({ value: 'ga', vendorModel: 'ga' });
    expect(await models.call('id', model, 'preview', run, BEFORE)).toEqual({ value: 'ga', vendorModel: 'ga' });
    expect(asked).toEqual(['preview', 'ga', 'ga']);
  });

  test('other failures, a 404 that names no model, a model with no retirement, and a channel that maps the id to a model of its own are left alone', async () => {
    const models = createVendorModels(log);
    const overloaded = new UpstreamError('transient', 'HTTP 503', { status: 503 });
    await expect(models.call('id', model, 'preview', () => Promise.reject(overloaded), BEFORE)).rejects.toBe(overloaded);
    // a base URL that is not the vendor's: its 404 page says nothing of the model
    const wrongPlace = new UpstreamError('misconfigured', 'upstream answered HTTP 404', { status: 404 });
    await expect(models.call('id', model, 'preview', () => Promise.reject(wrongPlace), BEFORE)).rejects.toBe(wrongPlace);
    const { asked, run } = vendor('ga');
    await expect(models.call('id', { ...model, retirement: undefined }, 'preview', run, AFTER)).rejects.toThrow('not found');
    await expect(models.call('id', model, 'channel-own', run, AFTER)).rejects.toThrow('not found');
    expect(asked).toEqual(['preview', 'channel-own']);
  });
});
