// @20minutes/s3rver ships no types: what the embedded store uses of it.
declare module '@20minutes/s3rver' {
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }
  /** Koa's context, as far as the relay's middleware reads and writes it. */
  export interface S3rverContext {
    method: string;
    /** The path and query as sent. */
    url: string;
    /** The path, with the bucket first (virtual-host requests rewritten). */
    path: string;
    headers: Record<string, string | string[] | undefined>;
    query: Record<string, unknown>;
    status: number;
    type: string;
    body: unknown;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Koa's middleware stack, composed when the server starts. */
    middleware: Array<(ctx: S3rverContext, next: () => Promise<void>) => Promise<void>>;
    /** Its files on disk: `getResourcePath(bucket, undefined, 'uploads')` holds multipart uploads in progress. */
    store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    /** The HTTP server, once running. */
    httpServer?: Server;
  }
}

declare module '@20minutes/s3rver/lib/models/account.js' {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
  export const DUMMY_ACCOUNT: AWSAccount;
}
