import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { renderImage, type RenderSpec } from '../render/encode.js';

/**
 * Presigned-style links in the shape of the vendor's TOS URLs. The render spec travels in the
 * signed query, so serving a file needs no state, and links really stop working after the TTL.
 */
export interface LinkSigner {
  sign(name: string, spec: RenderSpec, now?: Date): string;
  serve(req: Request, res: Response): void;
}

const tosDate = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

function parseTosDate(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : Number.NaN;
}

const specToString = (s: RenderSpec) => `${s.width}x${s.height}.${s.format}.${s.watermark ? 1 : 0}.${s.hue}`;

function specFromString(value: string): RenderSpec | undefined {
  const m = /^(\d+)x(\d+)\.(jpeg|png)\.([01])\.(\d+)$/.exec(value);
  if (!m) return undefined;
  return { width: +m[1]!, height: +m[2]!, format: m[3] as RenderSpec['format'], watermark: m[4] === '1', hue: +m[5]! };
}

function xmlError(res: Response, code: string, message: string) {
  res
    .status(403)
    .type('application/xml')
    .send(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

export function createLinkSigner(publicBase: string, secret: string, ttlSeconds: number): LinkSigner {
  const mac = (parts: string[]) => createHmac('sha256', secret).update(parts.join('\n')).digest('hex');
  return {
    sign(name, spec, now = new Date()) {
      const date = tosDate(now);
      const specText = specToString(spec);
      const query = new URLSearchParams({
        'X-Tos-Algorithm': 'TOS4-HMAC-SHA256',
        'X-Tos-Date': date,
        'X-Tos-Expires': String(ttlSeconds),
        'X-Tos-Spec': specText,
        'X-Tos-Signature': mac([name, date, String(ttlSeconds), specText]),
      });
      return `${publicBase}/tos/ark-content-generation/${name}?${query.toString()}`;
    },
    serve(req, res) {
      const q = req.query as Record<string, string | undefined>;
      const name = String(req.params.name);
      const expected = Buffer.from(mac([name, q['X-Tos-Date'] ?? '', q['X-Tos-Expires'] ?? '', q['X-Tos-Spec'] ?? '']));
      const given = Buffer.from(q['X-Tos-Signature'] ?? '');
      const spec = specFromString(q['X-Tos-Spec'] ?? '');
      if (!spec || given.length !== expected.length || !timingSafeEqual(given, expected)) {
        xmlError(res, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
        return;
      }
      const expiresAt = parseTosDate(q['X-Tos-Date'] ?? '') + Number(q['X-Tos-Expires']) * 1000;
      if (!(Date.now() < expiresAt)) {
        xmlError(res, 'AccessDenied', 'Request has expired');
        return;
      }
      const file = renderImage(spec);
      res
        .status(200)
        .type(spec.format === 'png' ? 'image/png' : 'image/jpeg')
        .set('Content-Length', String(file.length))
        .end(file);
    },
  };
}
