import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startTracing, type Tracing } from '@relay/core';
import { freePort } from '@relay/testkit';
import { startStack, type Stack } from './stack.js';

/**
 * One trace per job, across the queue: the api (in this process) and the worker (a process of
 * its own) export OTLP/JSON to a receiver here; the client's traceparent is the root, the api's
 * request span its child, the worker's job attempt a child of that, and the attempt's upstream
 * calls, store copies and settlement children of the attempt.
 */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}
interface Received {
  service: string;
  span: OtlpSpan;
}
const spans: Received[] = [];
const contentTypes: string[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    contentTypes.push(req.headers['content-type'] ?? '');
    if (req.headers['content-type']?.startsWith('application/json')) {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const resource of body.resourceSpans) {
        const service = String(resource.resource.attributes?.find((a) => a.key === 'service.name')?.value.stringValue);
        for (const scope of resource.scopeSpans) for (const span of scope.spans) spans.push({ service, span });
      }
    }
    res.setHeader('content-type', req.headers['content-type'] ?? 'application/json');
    res.end(req.headers['content-type']?.startsWith('application/json') ? '{}' : '');
  });
});

let stack: Stack;
let tracing: Tracing;
let endpoint: string;
let workerEnv: Record<string, string>;
beforeAll(async () => {
  const port = await freePort();
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${port}`;
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' };
  tracing = startTracing('api', otel);
  // short locks: a dead worker's job is taken over in seconds
  workerEnv = otel;
  stack = await startStack({ worker: workerEnv, tuning: { worker: { jobLockMs: 1_500, stalledCheckMs: 500 } } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await tracing?.shutdown();
  receiver.close();
});

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value && (value.stringValue ?? value.intValue ?? value.doubleValue);
};

test("a job's trace: the client's parent, the api's request, the worker's attempt, its upstream call, store copy and settlement", async () => {
  const { key } = await stack.newKey();
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const clientSpan = '00f067aa0ba902b7';
  // the first upstream call fails: the attempt's second call is a span of the same trace too
  await stack.fault({ type: 'error', api: 'images', status: 500 });
  const res = await fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, traceparent: `00-${traceId}-${clientSpan}-01` },
    body: JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'a traced lighthouse' }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

  const named = (name: string) => spans.filter((s) => s.span.traceId === traceId && s.span.name === name);
  await vi.waitFor(() => expect(named('relay.settle')).toHaveLength(1), { timeout: 20_000 });
  await vi.waitFor(() => expect(named('POST /v1/images/generations')).toHaveLength(1), { timeout: 20_000 });
  const request = named('POST /v1/images/generations')[0]!;
  expect(request.service).toBe('relay-api');
  expect(request.span.parentSpanId).toBe(clientSpan);
  expect(res.headers.get('traceparent')).toContain(request.span.spanId);

  // the failed call ended the first attempt: the job's retry is a second attempt of the same trace
  const attempts = named('relay.job images');
  expect(attempts.map((a) => Number(attribute(a.span, 'relay.attempt'))).sort()).toEqual([1, 2]);
  for (const attempt of attempts) {
    expect(attempt.service).toBe('relay-worker');
    expect(attempt.span.parentSpanId).toBe(request.span.spanId);
    expect(attribute(attempt.span, 'gen_ai.operation.name')).toBe('image_generation');
    expect(attribute(attempt.span, 'gen_ai.request.model')).toBe('vendor-gen-4-0-250828');
  }
  expect(named('relay.schedule_wait')[0]!.span.parentSpanId).toBe(request.span.spanId);
  const attemptIds = attempts.map((a) => a.span.spanId);
  const calls = named('relay.upstream');
  expect(calls).toHaveLength(2);
  for (const call of calls) {
    expect(attemptIds).toContain(call.span.parentSpanId);
    expect(attribute(call.span, 'server.address')).toBe(new URL(stack.sim.url).host);
  }
  for (const child of [...named('relay.store'), ...named('relay.settle')]) expect(attemptIds).toContain(child.span.parentSpanId);
});

test('without a traceparent the request starts a trace of its own, and the job continues it', async () => {
  const { key } = await stack.newKey();
  const res = await fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'another lighthouse' }),
  });
  expect(res.status).toBe(200);
  const traceId = res.headers.get('traceparent')!.split('-')[1]!;
  await vi.waitFor(() => expect(spans.filter((s) => s.span.traceId === traceId && s.span.name === 'relay.settle')).toHaveLength(1), {
    timeout: 20_000,
  });
  const attempt = spans.find((s) => s.span.traceId === traceId && s.span.name === 'relay.job images')!;
  const request = spans.find((s) => s.span.traceId === traceId && s.span.name === 'POST /v1/images/generations');
  await vi.waitFor(() => expect(spans.some((s) => s.span.traceId === traceId && s.span.name === 'POST /v1/images/generations')).toBe(true));
  expect(attempt.span.parentSpanId).toBe(
    (request ?? spans.find((s) => s.span.traceId === traceId && s.span.name === 'POST /v1/images/generations'))!.span.spanId,
  );
});

test('across a worker crash: the worker that takes the job over continues its trace, under the same request span', async () => {
  const { key } = await stack.newKey();
  const traceId = '5c0a8e1f2b3d4c5e6f708192a3b4c5d6';
  await stack.fault({ type: 'hold', api: 'images' });
  const pending = fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse through a crash' }),
  });
  // the worker dies mid-call: its attempt span never ends, so never leaves it
  await vi.waitFor(async () => expect((await stack.simStats()).holding).toBe(1), { timeout: 20_000 });
  const second = await stack.spawn('worker', workerEnv);
  await stack.worker.stop('SIGKILL');
  stack.worker = second;
  const res = await pending;
  expect(res.status).toBe(200);
  expect(await stack.release()).toBe(1); // the dead worker's call, still held

  const named = (name: string) => spans.filter((s) => s.span.traceId === traceId && s.span.name === name);
  await vi.waitFor(() => expect(named('relay.settle')).toHaveLength(1), { timeout: 20_000 });
  await vi.waitFor(() => expect(named('POST /v1/images/generations')).toHaveLength(1), { timeout: 20_000 });
  const request = named('POST /v1/images/generations')[0]!;
  const attempts = named('relay.job images');
  expect(attempts).toHaveLength(1);
  expect(attempts[0]!.span.parentSpanId).toBe(request.span.spanId);
  const attempt = attempts[0]!.span.spanId;
  // the call that delivered, its copy and the charge are the surviving attempt's
  expect(named('relay.upstream').map((s) => s.span.parentSpanId)).toEqual([attempt]);
  for (const child of [...named('relay.store'), ...named('relay.settle')]) expect(child.span.parentSpanId).toBe(attempt);
}, 60_000);

test('OTLP over protobuf by default: the same exporter posts application/x-protobuf', async () => {
  await tracing.shutdown();
  tracing = startTracing('api', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' });
  const seen = contentTypes.length;
  const { key } = await stack.newKey();
  await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  await vi.waitFor(() => expect(contentTypes.slice(seen)).toContain('application/x-protobuf'), { timeout: 20_000 });
});
