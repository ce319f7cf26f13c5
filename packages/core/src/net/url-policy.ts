import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './public-address.js';

/**
 * Where the relay may send a request on someone else's say-so: a client's image URL (forwarded
 * to the upstream, or fetched by the local simulator) and an upstream's result link (downloaded
 * by the worker). Every address that is not public unicast (`isPublicAddress`: loopback, private,
 * link-local (cloud metadata), shared, reserved, and IPv6 forms that lead to such an IPv4) is
 * refused after DNS resolution, so a name pointing inside cannot smuggle a request in, unless
 * the host is on the allowlist (the embedded default and tests allow their local simulator).
 */
export interface UrlPolicy {
  /** `host:port` entries (as written in URLs) allowed to resolve anywhere; `*` allows every host. */
  allow: ReadonlySet<string>;
}

/** URL_ALLOWLIST, parsed: comma-separated `host:port` entries, or `*`. */
export function parseUrlPolicy(allowlist: string | undefined): UrlPolicy {
  return {
    allow: new Set(
      (allowlist ?? '')
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter(Boolean),
    ),
  };
}

const hostPort = (url: URL) => `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`.toLowerCase();
const allowed = (policy: UrlPolicy, url: URL) => policy.allow.has('*') || policy.allow.has(hostPort(url));

export type UrlVerdict = { ok: true } | { ok: false; reason: string; retryable: boolean };

/** Checks a URL the relay would forward: scheme, then every address its host resolves to. */
export async function checkUrl(raw: string, policy: UrlPolicy, timeoutMs = 3_000): Promise<UrlVerdict> {
  if (!URL.canParse(raw)) return { ok: false, reason: 'is not a URL', retryable: false };
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'must use http or https', retryable: false };
  if (allowed(policy, url)) return { ok: true };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveAll(host, timeoutMs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA')
      return { ok: false, reason: `names a host that does not resolve (${host})`, retryable: false };
    return { ok: false, reason: `names a host the relay cannot resolve right now (${host})`, retryable: true };
  }
  if (!addresses.every(isPublicAddress)) {
    return {
      ok: false,
      reason: 'points at a private, loopback, link-local or reserved address, which the relay does not fetch or forward',
      retryable: false,
    };
  }
  return { ok: true };
}

function resolveAll(host: string, timeoutMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error(`DNS lookup of ${host} timed out`), { code: 'ETIMEOUT' })), timeoutMs);
    dnsLookup(host, { all: true }, (error, found: LookupAddress[]) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(found.map((a) => a.address));
    });
  });
}

/**
 * The part of the check that needs no DNS, for a link about to be fetched: the scheme, and a
 * host written as an IP address (node:http connects to those without calling its lookup).
 */
export function refusedLink(url: URL, policy: UrlPolicy): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the link uses ${url.protocol}, not http or https`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowed(policy, url) && isIP(host) && !isPublicAddress(host))
    return `the link points at ${host}, a private address the relay does not fetch`;
  return undefined;
}

/** Thrown by `policyLookup` for an address the policy refuses: fetching it again cannot help. */
export class RefusedAddress extends Error {
  override name = 'RefusedAddress';
  readonly code = 'ERR_RELAY_REFUSED_ADDRESS';
}

/**
 * A DNS lookup for node:http that refuses private addresses at connect time: the address checked
 * is the address connected to, so no rebinding between a check and the request is possible.
 */
export function policyLookup(policy: UrlPolicy, url: URL): LookupFunction | undefined {
  if (allowed(policy, url)) return undefined;
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = found.find((a) => !isPublicAddress(a.address));
      if (refused)
        return callback(
          new RefusedAddress(`${hostname} resolves to ${refused.address}, a private address the relay does not fetch`),
          '',
          0,
        );
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, found);
      callback(null, found[0]!.address, found[0]!.family);
    });
  };
}
