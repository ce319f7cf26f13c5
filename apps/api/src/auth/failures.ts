import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { Request } from 'express';
import type { Redis } from 'ioredis';
import type { Counter } from 'prom-client';
import { z } from 'zod';
import { AppError, luaCommand, type Logger } from '@relay/core';
import authFailedLua from './lua/auth-failed.lua';

/**
 * Failed authentications per client address: after AUTH_FAILURES_ALLOWED wrong credentials of a
 * kind within AUTH_FAILURE_WINDOW_SECONDS (the window starts at the first), the address gets 429
 * with Retry-After for every credential of that kind, right or wrong, until the window ends. A
 * missing credential is no guess and is not counted. Constants, not settings: the tokens and keys
 * are long random secrets, so the limit only bounds the noise; tune it here if it ever must be.
 */
export const AUTH_FAILURE_WINDOW_SECONDS = 60;
export const AUTH_FAILURES_ALLOWED = {
  /** ADMIN_TOKEN (the admin API, the console, the dashboard): only operators send it. */
  admin: 10,
  /** API keys: many clients may share one address (an office, a NAT); one misconfigured client is not everybody's outage. */
  key: 30,
} as const;
export type CredentialKind = keyof typeof AUTH_FAILURES_ALLOWED;

const WORDS: Record<CredentialKind, string> = { admin: 'wrong admin tokens', key: 'wrong API keys' };

/** lua/auth-failed.lua: one more failure of the address; the failures of its window so far. */
const failedScript = luaCommand({
  name: 'api.authFailed',
  lua: authFailedLua,
  keys: ['counter'],
  args: ['windowMs'],
  reply: z.number().int().min(1),
});

/**
 * 0 when the address may try, else the ms until its window ends (at least 1). Its count is read
 * alone, one command a request; the window's end only once the count is up (an address shut out).
 */
async function waitOf(redis: Redis, counter: string, limit: number): Promise<number> {
  const failures = Number((await redis.get(counter)) ?? 0);
  if (!(failures >= limit)) return 0;
  return Math.max(1, await redis.pttl(counter));
}

/**
 * The address a limit counts against: the client's IP as Express sees it (with TRUST_PROXY, the
 * one X-Forwarded-For names), an IPv6 one by its /64 (one host's share of a network: rotating
 * addresses inside it does not reset the count). Anything that is no IP (a forwarded header that
 * says something else) is counted by its hash, so no key holds what a client wrote.
 */
export function clientAddress(req: Request): string {
  const ip = (req.ip ?? req.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (isIP(ip) === 4) return ip;
  if (isIP(ip) === 6) return `${ipv6Groups(ip).slice(0, 4).join(':')}::/64`;
  return `other:${createHash('sha256').update(ip).digest('hex').slice(0, 16)}`;
}

/** The eight groups of an IPv6 address, as hex without leading zeros ("::" expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): string[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const split = (s: string) => (s ? s.split(':') : []);
  const groups =
    tail === undefined
      ? split(head)
      : [...split(head), ...Array<string>(8 - split(head).length - split(tail).length).fill('0'), ...split(tail)];
  return groups.map((g) => parseInt(g, 16).toString(16));
}

export type AuthFailures = ReturnType<typeof createAuthFailures>;

/**
 * The counts live in Redis, shared by every api process, one key per address and kind that lapses
 * with its window: what is held is bounded by the addresses that failed in the last minute.
 * `counted` is relay_auth_failures_total (metrics.ts).
 */
export function createAuthFailures(redis: Redis, prefix: string, counted: Counter<'credential' | 'outcome'>, log: Logger) {
  const keyOf = (kind: CredentialKind, req: Request) => `${prefix}:authfail:${kind}:${clientAddress(req)}`;
  const refusal = (kind: CredentialKind, waitMs: number) => {
    counted.inc({ credential: kind, outcome: 'limited' });
    return new AppError(
      'rate_limited',
      `too many ${WORDS[kind]} from this address (${AUTH_FAILURES_ALLOWED[kind]} within ${AUTH_FAILURE_WINDOW_SECONDS} s): ` +
        `no credential of this kind is checked for it until the window ends; retry in ${Math.ceil(waitMs / 1000)} s`,
      { retryAfterMs: waitMs },
    );
  };
  /** Checks in flight, by counter: the requests of an address that come while one is asked share it. */
  const checking = new Map<string, Promise<number>>();
  return {
    /**
     * Throws the 429 when the address has used up its failures of this kind; else resolves. A
     * burst of one address's requests asks Redis once, not per request: its failures are counted
     * one by one all the same, and requests sent together were all checked before any of them
     * failed anyway.
     */
    async admit(kind: CredentialKind, req: Request): Promise<void> {
      const counter = keyOf(kind, req);
      let check = checking.get(counter);
      if (!check) {
        check = waitOf(redis, counter, AUTH_FAILURES_ALLOWED[kind]).finally(
          () => checking.get(counter) === check && checking.delete(counter),
        );
        checking.set(counter, check);
      }
      const waitMs = await check;
      if (waitMs > 0) throw refusal(kind, waitMs);
    },
    /** Counts a wrong credential of the address (the caller then answers its 401). */
    async failed(kind: CredentialKind, req: Request, requestId?: string): Promise<void> {
      counted.inc({ credential: kind, outcome: 'refused' });
      const n = await failedScript(redis, { counter: keyOf(kind, req) }, { windowMs: AUTH_FAILURE_WINDOW_SECONDS * 1000 });
      // said once per address and window: the moment it is shut out
      if (n === AUTH_FAILURES_ALLOWED[kind]) {
        log.warn(
          { credential: kind, address: clientAddress(req), failures: n, windowSeconds: AUTH_FAILURE_WINDOW_SECONDS, requestId },
          `too many ${WORDS[kind]} from one address: it gets 429 until its window ends`,
        );
      }
    },
  };
}

/**
 * The app's guard, for the routers that authenticate API keys (createApp puts it in app.locals,
 * so each of them finds it without being handed it); undefined in a router mounted on its own.
 */
export const authFailuresOf = (req: Request): AuthFailures | undefined => (req.app.locals as { authFailures?: AuthFailures }).authFailures;
