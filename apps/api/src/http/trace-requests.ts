import type { RequestHandler } from 'express';
import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { SpanKind, tracer } from '@relay/core';

/**
 * Each request as a server span that continues the client's `traceparent` (W3C trace context),
 * named by its route once it is known, and answered with its own `traceparent`: a client can find
 * its call's trace, and the job the call made carries it on to the worker. Mounted only when
 * tracing is on.
 */
export function traceRequests(): RequestHandler {
  return (req, res, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(
      `${req.method} ${req.path}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': req.path } },
      parent,
    );
    const active = trace.setSpan(parent, span);
    const carrier: Record<string, string> = {};
    propagation.inject(active, carrier);
    if (carrier.traceparent) res.setHeader('traceparent', carrier.traceparent);
    res.once('close', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      if (route) span.updateName(`${req.method} ${req.baseUrl}${route}`).setAttribute('http.route', `${req.baseUrl}${route}`);
      span.setAttribute('http.response.status_code', res.statusCode);
      const accountId = (res.locals.caller as { accountId?: string } | undefined)?.accountId;
      if (accountId) span.setAttribute('relay.account.id', accountId);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(active, next);
  };
}
