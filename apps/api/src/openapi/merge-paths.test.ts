import { expect, test } from 'vitest';
import { mergePaths } from './merge-paths.js';

const operation = (summary: string) => ({ summary, responses: { '200': { description: 'ok' } } });

test('path objects of several routers merge by method', () => {
  const merged = mergePaths([
    { '/admin/accounts': { get: operation('list') } },
    { '/admin/accounts': { post: operation('create') }, '/admin/keys/{id}': { delete: operation('revoke') } },
  ]);
  expect(Object.keys(merged)).toEqual(['/admin/accounts', '/admin/keys/{id}']);
  expect(merged['/admin/accounts']!.get!.summary).toBe('list');
  expect(merged['/admin/accounts']!.post!.summary).toBe('create');
});

test('one operation described by two routers is a mistake, named at start', () => {
  expect(() => mergePaths([{ '/v1/models': { get: operation('openai') } }, { '/v1/models': { get: operation('gemini') } }])).toThrow(
    'GET /v1/models is described twice',
  );
});
