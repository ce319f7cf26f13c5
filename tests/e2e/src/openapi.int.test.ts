import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildOpenApiDocument } from '@relay/api';
import { loadCatalog } from '@relay/core';
import { createDoors } from '@relay/jobs';
import { componentsReached, METHODS, type OpenApiDocument } from './openapi-conformance.js';
import { startStack, type Stack } from './stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string;
}

/** Every (method, path) the Express app answers, walking mounted routers (the dashboard as one). */
function appRoutes(stackOf: Layer[], prefix = ''): string[] {
  return stackOf.flatMap((layer) => {
    if (layer.route) return Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${prefix}${layer.route!.path}`);
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    if (mount === '/admin/queues') return [`GET ${prefix}${mount}`];
    return layer.handle?.stack ? appRoutes(layer.handle.stack, prefix + mount) : [];
  });
}

test('/openapi.json is a valid OpenAPI 3.1 document', async () => {
  const res = await fetch(`${stack.url}/openapi.json`);
  const document = await res.json();
  const result = await new Validator().validate(document as Record<string, unknown>);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect((document as { openapi: string }).openapi).toBe('3.1.0');
});

test('every route of the app is in the document, and nothing else', async () => {
  const document = (await (await fetch(`${stack.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const documented = new Set(
    Object.entries(document.paths).flatMap(([path, item]) => {
      const route = (item['x-express-route'] as string | undefined) ?? path.replace(/\{(\w+)\}/g, ':$1');
      return Object.keys(item)
        .filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k))
        .map((method) => `${method.toUpperCase()} ${route}`);
    }),
  );
  const actual = new Set(appRoutes((stack.api.app as unknown as { router: { stack: Layer[] } }).router.stack));
  expect(actual.size).toBeGreaterThan(15);
  expect([...actual].filter((r) => !documented.has(r))).toEqual([]);
  expect([...documented].filter((r) => !actual.has(r))).toEqual([]);
});

test('every operation answers some 2xx; every $ref names a component; every component is named by an operation', async () => {
  const document = (await (await fetch(`${stack.url}/openapi.json`)).json()) as OpenApiDocument;
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, operation: item[m] })),
  );
  expect(operations.filter(({ operation }) => !Object.keys(operation.responses).some((s) => /^2\d\d$/.test(s))).map((o) => o.name)).toEqual(
    [],
  );
  const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
  expect(refs.length).toBeGreaterThan(100);
  expect(
    refs.filter((ref) => !ref.startsWith('#/components/schemas/') || !Object.hasOwn(document.components.schemas, ref.split('/').pop()!)),
  ).toEqual([]);
  const named = componentsReached(document, document.paths);
  expect(Object.keys(document.components.schemas).filter((name) => !named.has(name))).toEqual([]);
});

test('the document is built the same again in the same process (schema ids are module-level: no clash)', async () => {
  const served = (await (await fetch(`${stack.url}/openapi.json`)).json()) as { info: { version: string } };
  const catalog = loadCatalog({});
  expect(JSON.parse(JSON.stringify(buildOpenApiDocument(catalog, createDoors(catalog), served.info.version)))).toEqual(served);
});

test('the schemas come from the code: the model enum and a field rule are there', async () => {
  type Schema = { properties: Record<string, { enum?: string[]; maximum?: number }>; additionalProperties: boolean };
  const document = (await (await fetch(`${stack.url}/openapi.json`)).json()) as {
    paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Schema }> } } }>;
  };
  const request = document.paths['/v1/images/generations']!.post.requestBody.content['application/json']!.schema;
  expect(request.properties.model!.enum).toContain('vendor-gen-5-0-260128');
  expect(request.properties.seed!.maximum).toBe(2147483647);
  expect(request.additionalProperties).toBe(false);
});

test('/docs is a reference page whose every file the relay serves itself (no CDN)', async () => {
  const res = await fetch(`${stack.url}/docs`);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  const html = await res.text();
  expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  const assets = [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets).toEqual(
    expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/init.js']),
  );
  for (const asset of assets) expect((await fetch(`${stack.url}${asset}`)).status).toBe(200);
  expect(await (await fetch(`${stack.url}/docs/assets/init.js`)).text()).toContain("url: '/openapi.json'");
  expect((await fetch(`${stack.url}/docs/assets/nothing-here.js`)).status).toBe(404);
});
