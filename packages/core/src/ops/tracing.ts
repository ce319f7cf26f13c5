import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Env } from '../config/env.js';

/**
 * Tracing is on when the standard variables ask for it (an OTLP endpoint, or OTEL_TRACES_EXPORTER
 * other than `none`) and OTEL_SDK_DISABLED is not `true`. Off, no provider is registered: every
 * span the code starts is OpenTelemetry's no-op, and nothing is exported or measured.
 */
export function tracingWanted(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || exporter === 'otlp');
}

export interface Tracing {
  enabled: boolean;
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * The process's tracer provider, configured only by the standard OTEL_* variables (the
 * exporter reads the endpoint, headers and timeouts itself): OTLP over HTTP, protobuf by default
 * or JSON (`OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL=http/json`), batched; W3C trace context in and
 * out; `service.name` from OTEL_SERVICE_NAME, else relay-<app>.
 */
let active = false;
/** Whether this process registered a tracer provider (the api adds its request spans only then). */
export const tracingActive = () => active;

export function startTracing(app: string, env: Env = process.env): Tracing {
  if (!tracingWanted(env)) return { enabled: false, shutdown: async () => {} };
  active = true;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  // the exporters read their variables from process.env; an endpoint given in `env` is passed on
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim().replace(/\/+$/, '');
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || (base ? `${base}/v1/traces` : undefined);
  const options = url ? { url } : {};
  const exporter = protocol === 'http/json' ? new JsonExporter(options) : new ProtobufExporter(options);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || `relay-${app}` }),
    // OTEL_BSP_SCHEDULE_DELAY is the standard name for how often a batch leaves (5 s by default)
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        ...(Number(env.OTEL_BSP_SCHEDULE_DELAY) > 0 ? { scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY) } : {}),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    enabled: true,
    async shutdown() {
      active = false;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

export const tracer = () => trace.getTracer('relay');

/** The active span's context as a W3C `traceparent` (to carry in a job), or undefined when there is none. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a `traceparent` names (a job's, a client's), or the root when it names none. */
export const contextOf = (traceparent: string | undefined): Context =>
  traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;

/**
 * Runs `work` in a span of its own, a child of the active one: ended when the work settles, its
 * error recorded. With tracing off this is the work itself, behind a no-op span.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>, kind = SpanKind.INTERNAL): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

export { SpanKind };
