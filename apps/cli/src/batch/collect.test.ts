import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { describeFailures, type Manifest } from './collect.js';
import { modelsOf } from './input.js';

const refused = (message: string, status: number | null = 400, code = 'invalid_request') => ({ status, code, message });

test('failed lines are told by reason: each reason once, with its count and its first custom_ids, the commonest first', () => {
  const errors: Manifest['errors'] = {};
  // as the results feed delivers them: in the order they finished
  for (const id of ['line-00010', 'line-00002', 'line-00009', 'line-00001']) errors[id] = refused('size 13x13 has 169 pixels');
  errors['line-00003'] = refused('n must be within [1, 10]');
  for (const id of ['line-00004', 'line-00005']) errors[id] = refused('never run', null, 'batch_expired');
  expect(describeFailures({ errors })).toEqual([
    '  4 lines failed (400 invalid_request): size 13x13 has 169 pixels (line-00001, line-00002, line-00009 and 1 more)',
    '  2 lines failed (batch_expired): never run (line-00004, line-00005)',
    '  1 line failed (400 invalid_request): n must be within [1, 10] (line-00003)',
  ]);
});

test('a thousand lines that failed for one reason are one line; reasons past the fifth are summed up', () => {
  const errors: Manifest['errors'] = {};
  for (let i = 1; i <= 1000; i++) errors[`line-${i}`] = refused('model: unknown model "vendor-gen-9"');
  expect(describeFailures({ errors })).toEqual([
    '  1000 lines failed (400 invalid_request): model: unknown model "vendor-gen-9" (line-1, line-2, line-3 and 997 more)',
  ]);
  for (let i = 1; i <= 7; i++) errors[`other-${i}`] = refused(`reason ${i}\n  over lines`, 502, 'upstream_error');
  const lines = describeFailures({ errors });
  expect(lines).toHaveLength(6);
  expect(lines[1]).toBe('  1 line failed (502 upstream_error): reason 1 over lines (other-1)');
  expect(lines[5]).toBe('  ... and 3 lines for 3 other reasons, each under "errors" in the manifest');
  expect(describeFailures({ errors: {} })).toEqual([]);
});

test('the models a JSONL input names, by the line numbers the relay counts: image bodies and Gemini paths, not OpenAI speech names', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'relay-models-of-')), 'lines.jsonl');
  const line = (url: string, body: object) => JSON.stringify({ custom_id: String(Math.random()), method: 'POST', url, body });
  writeFileSync(
    file,
    [
      line('/v1/images/generations', { model: 'vendor-gen-9', prompt: 'a' }),
      '',
      line('/v1/images/generations', { model: 'vendor-gen-9', prompt: 'b' }),
      'not json',
      line('/v1/images/edits', { model: 'vendor-edit-3-0-i2i-250628', prompt: 'c', images: [] }),
      line('/v1beta/models/vendor-2.5-flash-tts:generateContent', { contents: [] }),
      line('/v1/audio/speech', { model: 'tts-1', input: 'hi', voice: 'nova' }),
      ...Array.from({ length: 5 }, () => line('/v1/images/generations', { model: 'vendor-gen-9', prompt: 'more' })),
    ].join('\n'),
  );
  expect(Object.fromEntries(await modelsOf(file))).toEqual({
    'vendor-gen-9': { dialect: 'openai', lines: 7, first: [1, 3, 8] },
    'vendor-edit-3-0-i2i-250628': { dialect: 'openai', lines: 1, first: [5] },
    'vendor-2.5-flash-tts': { dialect: 'gemini', lines: 1, first: [6] },
  });
});
