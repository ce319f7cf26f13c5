import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks an S3 request's Signature Version 4 (Authorization header or presigned query) the way
 * S3 does: the canonical request rebuilt from what was sent, over the headers the client says it
 * signed. @20minutes/s3rver checks signatures too, but rebuilds the path from its route, so a
 * bucket-level request sent as `/bucket/` (the AWS SDK's ListObjects, DeleteObjects, HeadBucket,
 * CreateBucket) never matches; the embedded store checks here instead (embedded-store.ts).
 */
export interface SignedRequest {
  method: string;
  /** The path and query exactly as sent (`req.url`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Keys {
  accessKeyId: string;
  secretAccessKey: string;
}

type Refusal = { ok: false; code: 'AccessDenied' | 'SignatureDoesNotMatch' | 'InvalidAccessKeyId'; message: string };
export type Verdict = { ok: true } | Refusal;

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** S3 refuses header-signed requests further than this from its clock. */
const MAX_SKEW_MS = 15 * 60_000;
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/** RFC 3986 encoding of everything but the unreserved characters, as SigV4 wants it. */
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

/** 20261125T125758Z as a time, or NaN. */
function amzTime(stamp: string | undefined): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(stamp ?? '');
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
}

/** The query as sent, decoded pair by pair ('+' is a plus: S3 clients send spaces as %20). */
function queryPairs(query: string): Array<[string, string]> {
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      const [name, value] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
      return [decodeURIComponent(name), decodeURIComponent(value)];
    });
}

function signatureOf(keys: Keys, scope: string[], stamp: string, canonicalRequest: string): string {
  const [date, region, service] = scope;
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${keys.secretAccessKey}`, date!), region!), service!), 'aws4_request');
  const toSign = [ALGORITHM, stamp, scope.join('/'), sha256(canonicalRequest)].join('\n');
  return createHmac('sha256', signingKey).update(toSign).digest('hex');
}

const header = (headers: SignedRequest['headers'], name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

const refuse = (code: Refusal['code'], message: string): Refusal => ({ ok: false, code, message });

/** What the request claims: who signed it, when, over which headers, and the signature. */
interface Claim {
  presigned: boolean;
  credential: string;
  signedHeaders: string;
  signature: string;
  stamp: string;
}

function claimOf(request: SignedRequest, params: Map<string, string>): Claim | Refusal {
  if (params.has('X-Amz-Algorithm')) {
    if (params.get('X-Amz-Algorithm') !== ALGORITHM) return refuse('AccessDenied', `Only ${ALGORITHM} is accepted`);
    const [credential = '', signedHeaders = '', signature = '', stamp = ''] = [
      'X-Amz-Credential',
      'X-Amz-SignedHeaders',
      'X-Amz-Signature',
      'X-Amz-Date',
    ].map((name) => params.get(name));
    return { presigned: true, credential, signedHeaders, signature, stamp };
  }
  const authorization = header(request.headers, 'authorization');
  if (!authorization) return refuse('AccessDenied', 'Requests must be signed');
  const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!m) return refuse('AccessDenied', `Only ${ALGORITHM} signatures are accepted`);
  return {
    presigned: false,
    credential: m[1]!,
    signedHeaders: m[2]!,
    signature: m[3]!,
    stamp: header(request.headers, 'x-amz-date') ?? '',
  };
}

/** Whether `request` carries a valid SigV4 signature made with `keys`, and why not. */
export function verifySigV4(request: SignedRequest, keys: Keys, now = Date.now()): Verdict {
  const at = request.url.indexOf('?');
  const [path, query] = at < 0 ? [request.url, ''] : [request.url.slice(0, at), request.url.slice(at + 1)];
  let pairs: Array<[string, string]>;
  let canonicalPath: string;
  try {
    pairs = queryPairs(query);
    canonicalPath = path
      .split('/')
      .map((segment) => encode(decodeURIComponent(segment)))
      .join('/');
  } catch {
    return refuse('AccessDenied', 'The request path or query is not valid percent-encoding');
  }
  const params = new Map(pairs);
  const claim = claimOf(request, params);
  if ('ok' in claim) return claim;

  const [accessKeyId, ...scope] = claim.credential.split('/');
  if (accessKeyId !== keys.accessKeyId) return refuse('InvalidAccessKeyId', 'The access key is not known here');
  const time = amzTime(claim.stamp);
  if (scope.length !== 4 || scope[2] !== 's3' || scope[3] !== 'aws4_request' || !claim.stamp.startsWith(scope[0]!) || Number.isNaN(time))
    return refuse('AccessDenied', 'The credential scope or the date is malformed');
  if (claim.presigned) {
    const expires = Number(params.get('X-Amz-Expires'));
    if (!(expires >= 0 && expires <= MAX_PRESIGN_SECONDS) || now > time + expires * 1000)
      return refuse('AccessDenied', 'Request has expired');
  } else if (Math.abs(now - time) > MAX_SKEW_MS) {
    return refuse('AccessDenied', 'The difference between the request time and the current time is too large');
  }

  const names = claim.signedHeaders.split(';');
  const canonicalQuery = pairs
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = names.map((name) => `${name}:${(header(request.headers, name) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const payload =
    (claim.presigned ? params.get('X-Amz-Content-Sha256') : header(request.headers, 'x-amz-content-sha256')) ?? 'UNSIGNED-PAYLOAD';
  const canonicalRequest = [request.method, canonicalPath, canonicalQuery, canonicalHeaders, names.join(';'), payload].join('\n');
  const expected = Buffer.from(signatureOf(keys, scope, claim.stamp, canonicalRequest));
  const sent = Buffer.from(claim.signature);
  if (sent.length === expected.length && timingSafeEqual(sent, expected)) return { ok: true };
  return refuse('SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided');
}
