/** What middleware leaves on res.locals for later handlers. */
export interface Caller {
  accountId: string;
  keyId: string;
  /** The key's own limit, when it was given one at creation. */
  rateLimitPerMinute?: number;
}

declare global {
  // Express types its res.locals through this global namespace: augmenting it is the only way in
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      requestId: string;
      caller?: Caller;
      /** The admin token was checked for this request (admin/admin-auth.ts). */
      admin?: boolean;
      /** Set by routes that resolve their target before reading the body. */
      target?: unknown;
      /** Set by routes whose errors take the dialect of what they found (a speech job's GET). */
      dialect?: 'openai' | 'google';
    }
  }
}
