import type { SentinelConnectionOptions } from 'ioredis';

/**
 * `redis+sentinel://[user:password@]host:port,host:port,.../<master name>[/<db>]` (or
 * `rediss+sentinel://`, TLS to the Redis servers): Redis behind Sentinel. The client asks the
 * sentinels which server is the primary, connects to it, and follows a failover: a lost
 * connection (the primary died) or a demoted primary's READONLY makes it ask them again. The URL's
 * credentials are the Redis servers'; the sentinels' own come from their variables.
 */
export interface SentinelUrl {
  protocol: 'redis:' | 'rediss:';
  sentinels: Array<{ host: string; port: number }>;
  name: string;
  username: string;
  password: string;
  /** `/<db>` after the master name, as a URL's path would give it. */
  pathname: string;
}

/** The sentinels' own credentials (REDIS_SENTINEL_USERNAME, REDIS_SENTINEL_PASSWORD). */
export type SentinelEnv = Partial<Record<'REDIS_SENTINEL_USERNAME' | 'REDIS_SENTINEL_PASSWORD', string>>;

const SENTINEL_URL = /^(rediss?)\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/@]+)\/([^/?#]+)(?:\/(\d+))?\/?$/;
const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^:,[\]]+)(?::(\d{1,5}))?$/;

export const isSentinelUrl = (url: string) => /^rediss?\+sentinel:/.test(url);

/** The parts of a sentinel URL, or undefined when it is not one; a malformed one throws, saying the form. */
export function parseSentinelUrl(url: string): SentinelUrl | undefined {
  if (!isSentinelUrl(url)) return undefined;
  const match = SENTINEL_URL.exec(url);
  const sentinels = match?.[4]!.split(',').map((entry) => HOST_PORT.exec(entry.trim()));
  if (!match || !sentinels || sentinels.some((s) => !s))
    throw new Error(
      `REDIS_URL ${url.replace(/\/\/[^@]*@/, '//***@')} is no sentinel URL: redis+sentinel://host:port,host:port,host:port/<master name>`,
    );
  return {
    protocol: match[1] === 'rediss' ? 'rediss:' : 'redis:',
    sentinels: sentinels.map((s) => ({ host: s![1]!.replace(/^\[|\]$/g, ''), port: Number(s![2] ?? 26379) })),
    name: decodeURIComponent(match[5]!),
    username: match[2] ?? '',
    password: match[3] ?? '',
    pathname: match[6] ? `/${match[6]}` : '',
  };
}

/** ioredis' sentinel options: the sentinels, the master's name, the sentinels' credentials, and following a failover at once. */
export function sentinelOptions(url: SentinelUrl, env: SentinelEnv): SentinelConnectionOptions {
  return {
    sentinels: url.sentinels,
    name: url.name,
    role: 'master',
    ...(env.REDIS_SENTINEL_USERNAME ? { sentinelUsername: env.REDIS_SENTINEL_USERNAME } : {}),
    ...(env.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.REDIS_SENTINEL_PASSWORD } : {}),
    // rediss+sentinel: the sentinels and the servers they name are spoken to over TLS (ioredis wants
    // all three options); a Redis deployment that turns TLS on does so for its sentinels too
    ...(url.protocol === 'rediss:' ? { enableTLSForSentinelMode: true, tls: {}, sentinelTLS: {} } : {}),
    sentinelRetryStrategy: (times: number) => Math.min(times * 200, 2_000),
  };
}
