import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { renderImage, type RenderSpec } from '../render/encode.js';
import { LINK_MODES, MAX_HOPS } from '../faults.js';

/**
 * What a link serves when a `link` fault made it: not the image (`html`, `svg`), the image
 * without a Content-Length (`no-length`), or `hops` redirects before it (`redirect`).
 * `contentType` labels the body served (for `redirect`, the image at the end of the chain).
 */
export interface LinkServe {
  mode: (typeof LINK_MODES)[number];
  hops: number;
  contentType?: string;
}

/**
 * Presigned-style links in the shape of the vendor's TOS URLs. The render spec (and how the link
 * serves, when a fault chose it) travels in the signed query, so serving a file needs no state,
 * and links really stop working after the TTL.
 */
export interface LinkSigner {
  sign(name: string, spec: RenderSpec, now?: Date, serve?: LinkServe): string;
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

/**
 * `WxH.format.watermark.hue` (format `pnga`: a PNG with alpha), then `.mode.hops.contentType`
 * (base64url) when a fault chose how it serves.
 */
function specToString(s: RenderSpec, serve?: LinkServe) {
  const base = `${s.width}x${s.height}.${s.format}${s.alpha ? 'a' : ''}.${s.watermark ? 1 : 0}.${s.hue}`;
  if (!serve) return base;
  return `${base}.${serve.mode}.${serve.hops}.${Buffer.from(serve.contentType ?? '').toString('base64url')}`;
}

const SPEC = new RegExp(`^(\\d+)x(\\d+)\\.(jpeg|png|pnga)\\.([01])\\.(\\d+)(?:\\.(${LINK_MODES.join('|')})\\.(\\d+)\\.([\\w-]*))?$`);

function specFromString(value: string): { spec: RenderSpec; serve?: LinkServe } | undefined {
  const m = SPEC.exec(value);
  if (!m) return undefined;
  const alpha = m[3] === 'pnga';
  const format = (alpha ? 'png' : m[3]) as RenderSpec['format'];
  const spec: RenderSpec = { width: +m[1]!, height: +m[2]!, format, watermark: m[4] === '1', hue: +m[5]!, ...(alpha ? { alpha } : {}) };
  if (!m[6]) return { spec };
  const contentType = Buffer.from(m[8]!, 'base64url').toString();
  const serve: LinkServe = { mode: m[6] as LinkServe['mode'], hops: Math.min(+m[7]!, MAX_HOPS), ...(contentType ? { contentType } : {}) };
  return { spec, serve };
}

function xmlError(res: Response, code: string, message: string) {
  res
    .status(403)
    .type('application/xml')
    .send(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** A page where an image was promised: what a captive portal or an error page hands a downloader. */
const html = () =>
  '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Loading</title></head>\n' +
  '<body><p>Redirecting…</p><script>document.cookie = "probe=1"; window.location.href = "/";</script></body></html>\n';

/** An SVG "image" that runs a script when a browser opens it. */
const svg = (spec: RenderSpec) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${spec.width}" height="${spec.height}">` +
  `<rect width="100%" height="100%" fill="#888"/><script type="text/javascript">alert(document.domain);</script></svg>\n`;

export function createLinkSigner(publicBase: string, secret: string, ttlSeconds: number): LinkSigner {
  const mac = (parts: string[]) => createHmac('sha256', secret).update(parts.join('\n')).digest('hex');
  const sign = (name: string, spec: RenderSpec, now = new Date(), serve?: LinkServe) => {
    const date = tosDate(now);
    const specText = specToString(spec, serve);
    const query = new URLSearchParams({
      'X-Tos-Algorithm': 'TOS4-HMAC-SHA256',
      'X-Tos-Date': date,
      'X-Tos-Expires': String(ttlSeconds),
      'X-Tos-Spec': specText,
      'X-Tos-Signature': mac([name, date, String(ttlSeconds), specText]),
    });
    return `${publicBase}/tos/ark-content-generation/${name}?${query.toString()}`;
  };
  return {
    sign,
    serve(req, res) {
      const q = req.query as Record<string, string | undefined>;
      const name = String(req.params.name);
      const expected = Buffer.from(mac([name, q['X-Tos-Date'] ?? '', q['X-Tos-Expires'] ?? '', q['X-Tos-Spec'] ?? '']));
      const given = Buffer.from(q['X-Tos-Signature'] ?? '');
      const parsed = specFromString(q['X-Tos-Spec'] ?? '');
      if (!parsed || given.length !== expected.length || !timingSafeEqual(given, expected)) {
        xmlError(res, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
        return;
      }
      const signedAt = parseTosDate(q['X-Tos-Date'] ?? '');
      if (!(Date.now() < signedAt + Number(q['X-Tos-Expires']) * 1000)) {
        xmlError(res, 'AccessDenied', 'Request has expired');
        return;
      }
      const { spec, serve } = parsed;
      const imageType = spec.format === 'png' ? 'image/png' : 'image/jpeg';
      // the labels a fault chose go out as given: express would add a charset to text types
      const label = (fallback: string) => res.setHeader('Content-Type', serve?.contentType ?? fallback);
      switch (serve?.mode) {
        case 'html':
          label('image/jpeg');
          res.status(200).end(html());
          return;
        case 'svg':
          label('image/svg+xml');
          res.status(200).end(svg(spec));
          return;
        case 'redirect': {
          if (serve.hops > 0) {
            // the next hop is signed like this one (same date, so the same expiry), one hop shorter;
            // the last one is the plain link, unless a label must reach the image
            const next = { ...serve, hops: serve.hops - 1 };
            const plain = next.hops === 0 && !serve.contentType;
            res.status(302).setHeader('Location', sign(name, spec, new Date(signedAt), plain ? undefined : next));
            res.end();
            return;
          }
          const file = renderImage(spec);
          label(imageType);
          res.status(200).setHeader('Content-Length', String(file.length));
          res.end(file);
          return;
        }
        case 'no-length': {
          const file = renderImage(spec);
          label(imageType);
          // no Content-Length: Node sends the body chunked
          res.status(200).write(file.subarray(0, file.length >> 1));
          res.end(file.subarray(file.length >> 1));
          return;
        }
        case undefined: {
          const file = renderImage(spec);
          res.status(200).type(imageType).set('Content-Length', String(file.length)).end(file);
          return;
        }
      }
    },
  };
}
