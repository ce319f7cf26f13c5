import type { Response, Router } from 'express';
import type { SimContext } from './context.js';

/**
 * One vendor's API as the simulator fakes it: what a channel of the vendor is pointed at, and its
 * routes. One per vendor of @relay/core's table (vendors.ts must cover every one), so a new vendor
 * is testable end to end before any real account is.
 */
export interface SimVendor {
  /** Its base URL's path on the simulator: a channel's baseUrl is the simulator's address followed by it. */
  base: string;
  /** The prefixes of its paths: an error no route of its caught (an unreadable body) is answered in its shape there. */
  paths: readonly string[];
  /** Its routes (calls counted in the statistics under its capability, faults played as a test queued them). */
  routes(ctx: SimContext): Router;
  /** An error answered as the vendor answers one. */
  sendError(res: Response, status: number, message: string): void;
}
