import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import aws4 from 'aws4';

export interface SignedHttpSettings {
  /** The store's endpoint (S3_ENDPOINT), or AWS S3's regional one. */
  endpoint: URL;
  region: string;
  bucket: string;
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/** An answer of the store that is not a success, shaped like the AWS SDK's errors (isMissingObject reads them). */
export class StoreHttpError extends Error {
  override name: string;
  readonly $metadata: { httpStatusCode: number };
  constructor(status: number, method: string, key: string) {
    super(`the store answered HTTP ${status} to ${method} ${key}`);
    this.name = status === 404 ? 'NoSuchKey' : 'StoreHttpError';
    this.$metadata = { httpStatusCode: status };
  }
}

/**
 * Single-object PUT and GET signed with SigV4 (aws4) over node:http with keep-alive, for the hot
 * path: a result copied into the store, a WAV or image read back. The AWS SDK's middleware stack
 * cost a worker about a fifth of its CPU per image (npm run bench, profiles); everything else
 * (multipart, presigning, listing, copies, buckets) stays with the SDK. The payload is sent
 * unsigned (UNSIGNED-PAYLOAD), as the SDK does for streams.
 */
export function createSignedHttp(settings: SignedHttpSettings) {
  const { endpoint, bucket } = settings;
  const secure = endpoint.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const port = endpoint.port || (secure ? '443' : '80');
  const hostname = settings.forcePathStyle ? endpoint.hostname : `${bucket}.${endpoint.hostname}`;
  const hostHeader = endpoint.port ? `${hostname}:${endpoint.port}` : hostname;
  const base = endpoint.pathname.replace(/\/+$/, '');
  const pathOf = (key: string) => {
    const encoded = key.split('/').map(encodeURIComponent).join('/');
    return settings.forcePathStyle ? `${base}/${bucket}/${encoded}` : `${base}/${encoded}`;
  };

  function call(method: 'GET' | 'PUT', key: string, headers: Record<string, string | number>, signal?: AbortSignal) {
    const options = {
      method,
      host: hostHeader,
      path: pathOf(key),
      service: 's3',
      region: settings.region,
      headers: { Host: hostHeader, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD', ...headers },
    };
    aws4.sign(options, settings.credentials);
    return send({
      protocol: endpoint.protocol,
      hostname,
      port,
      path: options.path,
      method,
      headers: options.headers as Record<string, string>,
      agent,
      signal,
    });
  }

  const answered = (req: ReturnType<typeof call>) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });

  return {
    async put(key: string, body: Buffer | Readable, contentType: string, contentLength: number, signal?: AbortSignal): Promise<void> {
      const req = call('PUT', key, { 'Content-Type': contentType, 'Content-Length': contentLength }, signal);
      const response = answered(req);
      if (Buffer.isBuffer(body)) req.end(body);
      else {
        body.once('error', (error) => req.destroy(error));
        body.pipe(req);
      }
      const res = await response;
      res.resume();
      if (res.statusCode !== 200) throw new StoreHttpError(res.statusCode ?? 0, 'PUT', key);
    },

    async get(key: string, from?: number) {
      const req = call('GET', key, from ? { Range: `bytes=${from}-` } : {});
      const response = answered(req);
      req.end();
      const res = await response;
      if (res.statusCode !== 200 && res.statusCode !== 206) {
        res.resume();
        throw new StoreHttpError(res.statusCode ?? 0, 'GET', key);
      }
      const length = res.headers['content-length'];
      return {
        body: res as Readable,
        contentType: res.headers['content-type'],
        contentLength: length === undefined ? undefined : Number(length),
      };
    },
  };
}

export type SignedHttp = ReturnType<typeof createSignedHttp>;
