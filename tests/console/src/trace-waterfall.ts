/**
 * One trace as a waterfall page, in the spirit of Jaeger's trace view: a row per span, nested
 * under its parent, its bar placed and sized by its start and end times, coloured by the service
 * that exported it. The input is what an OTLP/JSON exporter posts (`/v1/traces`).
 */

/** An attribute's value as OTLP/JSON encodes it (64-bit integers as strings). */
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttribute[];
  status?: { code?: number; message?: string };
}
/** The body of an OTLP/JSON export request. */
export interface OtlpTraces {
  resourceSpans: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans: Array<{ spans?: OtlpSpan[] }> }>;
}

export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** `service.name` of the resource that exported it. */
  service: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  /** The span's error status message, when its status is ERROR (code 2). */
  error?: string;
}

const valueOf = (value: OtlpValue) =>
  value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.doubleValue ?? value.boolValue;

const attributesOf = (attributes: OtlpAttribute[] = []) =>
  Object.fromEntries(attributes.flatMap(({ key, value }) => (valueOf(value) === undefined ? [] : [[key, valueOf(value)!]])));

/** The spans of one export request, each with the service that sent it. */
export function spansOf(body: OtlpTraces): TraceSpan[] {
  return body.resourceSpans.flatMap((resource) => {
    const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? 'unknown');
    return resource.scopeSpans.flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        service,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        error: span.status?.code === 2 ? (span.status.message ?? 'error') : undefined,
      })),
    );
  });
}

/** What a row shows of a span's attributes, in this order, when it has them. */
export const KEY_ATTRIBUTES = [
  'http.response.status_code',
  'relay.attempt',
  'gen_ai.request.model',
  'server.address',
  'relay.channel',
  'relay.queue',
  'relay.file.index',
  'relay.units',
  'relay.amount',
  'relay.charged',
];

/** Every span in tree order (a parent before its children, siblings by start time) with its depth. */
export function treeOrder(spans: TraceSpan[]): Array<{ span: TraceSpan; depth: number }> {
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = (a: TraceSpan, b: TraceSpan) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0);
  const children = (parent: string | undefined) =>
    spans.filter((s) => (parent === undefined ? !s.parentSpanId || !ids.has(s.parentSpanId) : s.parentSpanId === parent)).sort(byStart);
  const walk = (span: TraceSpan, depth: number): Array<{ span: TraceSpan; depth: number }> => [
    { span, depth },
    ...children(span.spanId).flatMap((child) => walk(child, depth + 1)),
  ];
  return children(undefined).flatMap((root) => walk(root, 0));
}

const SERVICE_COLOURS = ['#17a2b8', '#e07b24', '#7b5cc4', '#3f9b4f', '#c2417a'];
const ms = (ns: bigint) => Number(ns) / 1e6;
const formatMs = (value: number) => `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)} ms`;
/** A tick's time: round steps need no decimals. */
const tickMs = (value: number) => `${Number(value.toPrecision(6))} ms`;
const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Tick marks for a time axis of `totalMs`: about five, at a round step. */
function ticks(totalMs: number): number[] {
  const raw = totalMs / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  return Array.from({ length: Math.floor(totalMs / step) + 1 }, (_, i) => i * step);
}

export interface WaterfallOptions {
  /** A line under the title: where the spans came from. */
  caption: string;
}

/** A self-contained HTML page (no scripts, no requests) of the trace `spans` make up. */
export function renderWaterfall(spans: TraceSpan[], options: WaterfallOptions): string {
  const rows = treeOrder(spans);
  const start = spans.reduce((min, s) => (s.startNs < min ? s.startNs : min), spans[0]!.startNs);
  const end = spans.reduce((max, s) => (s.endNs > max ? s.endNs : max), spans[0]!.endNs);
  const totalMs = ms(end - start);
  const services = [...new Set(rows.map((r) => r.span.service))];
  const colour = (service: string) => SERVICE_COLOURS[services.indexOf(service) % SERVICE_COLOURS.length]!;
  const percent = (ns: bigint) => (ms(ns - start) / totalMs) * 100;
  const root = rows[0]!.span;
  const outsideParent = root.parentSpanId && !spans.some((s) => s.spanId === root.parentSpanId) ? root.parentSpanId : undefined;

  const tickMarks = ticks(totalMs)
    .map((t) => `<span class="tick" style="left:${(t / totalMs) * 100}%">${tickMs(t)}</span>`)
    .join('');
  const gridLines = ticks(totalMs)
    .map((t) => `<span class="grid" style="left:${(t / totalMs) * 100}%"></span>`)
    .join('');
  const body = rows
    .map(({ span, depth }) => {
      const left = percent(span.startNs);
      const width = Math.max(percent(span.endNs) - left, 0.15);
      const duration = formatMs(ms(span.endNs - span.startNs));
      // the duration label sits after the bar; before it when the bar reaches the right edge; inside it when it spans the whole axis
      const label =
        left + width <= 85 ? `left:${left + width}%` : left >= 12 ? `right:${100 - left}%` : `right:${100 - left - width}%; color:#fff`;
      const attributes = KEY_ATTRIBUTES.filter((key) => span.attributes[key] !== undefined)
        .map((key) => `<span class="attr"><b>${escape(key)}</b>=${escape(String(span.attributes[key]))}</span>`)
        .join('');
      const error = span.error ? `<span class="attr error">error: ${escape(span.error)}</span>` : '';
      return `<div class="row${span.error ? ' failed' : ''}">
  <div class="name" style="padding-left:${12 + depth * 18}px; border-left-color:${colour(span.service)}">
    <div><span class="service" style="color:${colour(span.service)}">${escape(span.service)}</span> <span class="span">${escape(span.name)}</span></div>
    <div class="attrs">${attributes}${error}</div>
  </div>
  <div class="timeline">${gridLines}
    <span class="bar" style="left:${left}%; width:${width}%; background:${colour(span.service)}"></span>
    <span class="duration" style="${label}">${duration}</span>
  </div>
</div>`;
    })
    .join('\n');

  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escape(root.name)}</title><style>
  body { margin: 0; font: 13px/1.35 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1f2328; background: #fff; }
  header { padding: 14px 16px 10px; border-bottom: 1px solid #d0d7de; background: #f6f8fa; }
  h1 { margin: 0 0 4px; font-size: 18px; font-weight: 600; }
  h1 .id { font: 13px ui-monospace, monospace; color: #59636e; font-weight: 400; margin-left: 8px; }
  .facts { color: #59636e; } .facts b { color: #1f2328; font-weight: 600; margin-right: 14px; }
  .caption { margin-top: 4px; color: #59636e; font-size: 12px; }
  .legend span { display: inline-block; margin-right: 14px; } .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; }
  .row, .axis { display: grid; grid-template-columns: 470px 1fr; border-bottom: 1px solid #eaeef2; }
  .axis { background: #f6f8fa; height: 24px; border-bottom: 1px solid #d0d7de; }
  .axis .label { padding: 4px 12px; color: #59636e; font-weight: 600; }
  .name { border-left: 4px solid; padding: 5px 8px 5px 12px; overflow: hidden; }
  .service { font-weight: 600; } .span { font-weight: 500; }
  .attrs { margin-top: 2px; display: flex; flex-wrap: wrap; column-gap: 10px; font: 11px/1.5 ui-monospace, monospace; color: #59636e; }
  .attr { white-space: nowrap; } .attr b { font-weight: 500; color: #818b98; }
  .attr.error { color: #cf222e; max-width: 100%; overflow: hidden; text-overflow: ellipsis; }
  .failed .span { color: #cf222e; } .failed .bar { outline: 2px solid #cf222e; outline-offset: 1px; }
  .timeline { position: relative; border-left: 1px solid #d0d7de; margin-right: 16px; }
  .axis .timeline { margin-right: 16px; }
  .grid { position: absolute; top: 0; bottom: 0; border-left: 1px solid #eaeef2; }
  .tick { position: absolute; top: 5px; transform: translateX(-50%); color: #59636e; font-size: 11px; white-space: nowrap; }
  .tick:first-child { transform: none; padding-left: 3px; }
  .bar { position: absolute; top: 50%; height: 14px; margin-top: -7px; border-radius: 2px; }
  .duration { position: absolute; top: 50%; margin-top: -8px; padding: 0 5px; color: #1f2328; font-size: 11px; white-space: nowrap; }
</style></head><body>
<header>
  <h1>${escape(root.name)}<span class="id">trace ${escape(root.traceId)}</span></h1>
  <div class="facts"><b>${rows.length} spans</b><b>${formatMs(totalMs)}</b><b>depth ${Math.max(...rows.map((r) => r.depth)) + 1}</b><span class="legend">${services
    .map((s) => `<span><i style="background:${colour(s)}"></i>${escape(s)}</span>`)
    .join('')}</span></div>
  <div class="caption">${escape(options.caption)}${outsideParent ? ` The request's parent, span ${escape(outsideParent)}, is the client's: it was not exported.` : ''}</div>
</header>
<div class="axis"><div class="label">service · span</div><div class="timeline">${tickMarks}</div></div>
${body}
</body></html>`;
}
