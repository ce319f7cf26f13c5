import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startTracing } from '@relay/core';
import { startStack, type Stack } from '@relay/e2e';
import { freePort, repoRoot, waitFor } from '@relay/testkit';
import { openBrowser } from './browser.js';
import { renderWaterfall, spansOf, type OtlpTraces, type TraceSpan } from './trace-waterfall.js';

/**
 * docs/trace.png (npm run docs:trace): one real job's trace, as the relay exports it. The stack
 * of the tracing test (api in this process, worker a process of its own) exports OTLP/JSON to a
 * receiver here; the simulator answers the first images call 500, so the job retries and its
 * trace holds two attempts. The trace is drawn as a waterfall page and Chromium screenshots it.
 */
const OUT = join(repoRoot, 'docs/trace.png');
const MODEL = 'vendor-gen-4-0-250828';

/** An OTLP/JSON receiver on loopback: every span posted to it, in arrival order. */
async function startReceiver() {
  const spans: TraceSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!req.headers['content-type']?.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString()) as OtlpTraces));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The trace's spans once it is whole: the request's span and the settlement have arrived, and
 * every span's parent is a span received or the client's own (a span still open, such as an
 * attempt whose settlement left in an earlier batch, leaves its children's parent missing).
 */
function wholeTrace(spans: TraceSpan[], traceId: string, clientSpan: string): TraceSpan[] | undefined {
  const trace = spans.filter((s) => s.traceId === traceId);
  const ids = new Set([clientSpan, ...trace.map((s) => s.spanId)]);
  const has = (name: string) => trace.some((s) => s.name === name);
  const whole = has('POST /v1/images/generations') && has('relay.settle') && trace.every((s) => s.parentSpanId && ids.has(s.parentSpanId));
  return whole ? trace : undefined;
}

const generate = (stack: Stack, key: string, headers: Record<string, string>) =>
  fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ model: MODEL, prompt: 'a traced lighthouse' }),
  });

const receiver = await startReceiver();
const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' };
const tracing = startTracing('api', otel);
let stack: Stack | undefined;
let browser: Awaited<ReturnType<typeof openBrowser>> | undefined;
try {
  stack = await startStack({ worker: otel });
  const { key } = await stack.newKey();
  // a first job, its trace not shown, warms the stack: the trace shown is a job's on a running relay,
  // not the store's first write or the first request the api compiles its routes for
  const warm = await generate(stack, key, {});
  if (warm.status !== 200) throw new Error(`the warm-up request answered ${warm.status}: ${await warm.text()}`);
  const traceId = randomBytes(16).toString('hex');
  const clientSpan = randomBytes(8).toString('hex');
  await stack.fault({ type: 'error', api: 'images', status: 500 });
  const res = await generate(stack, key, { traceparent: `00-${traceId}-${clientSpan}-01` });
  if (res.status !== 200) throw new Error(`the image request answered ${res.status}: ${await res.text()}`);
  const trace = await waitFor(() => wholeTrace(receiver.spans, traceId, clientSpan), 30_000, `the spans of trace ${traceId}`);

  const html = renderWaterfall(trace, {
    caption:
      `One image generation (${MODEL}) through a local relay, its spans as the api and the worker exported them over OTLP; ` +
      'the simulated vendor answered the first call 500, so the job ran a second attempt.',
  });
  browser = await openBrowser();
  const { page } = await browser.context({ width: 1200, height: 400 }, { javaScriptEnabled: false });
  await page.setContent(html);
  await page.screenshot({ path: OUT, fullPage: true });
  for (const span of trace.toSorted((a, b) => (a.startNs < b.startNs ? -1 : 1)))
    console.log(
      `${span.service.padEnd(13)} ${span.name.padEnd(28)} ${(Number(span.endNs - span.startNs) / 1e6).toFixed(2).padStart(9)} ms`,
    );
  console.log(`${trace.length} spans of trace ${traceId} -> ${OUT}`);
} finally {
  await browser?.close();
  await stack?.close();
  await tracing.shutdown();
  await receiver.close();
}
