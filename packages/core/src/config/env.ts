import { parseSentinelUrl } from '../redis-sentinel.js';
import { z } from 'zod';

/** Thrown when the environment does not parse; the message lists every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Empty strings count as unset, so `FOO=` in an .env file falls back to the default. */
export const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

export const envString = () => z.preprocess(unsetIfEmpty, z.string());
export const envUrl = () => z.preprocess(unsetIfEmpty, z.url());
/** A Redis URL: redis(s)://, redis(s)+cluster:// or redis(s)+sentinel://host:port,host:port/<master name> (which no URL parser reads). */
export const envRedisUrl = () =>
  z.preprocess(
    unsetIfEmpty,
    z.string().superRefine((value, ctx) => {
      try {
        if (!parseSentinelUrl(value) && !URL.canParse(value)) throw new Error(`${value} is no URL`);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  );
export const envInt = (min = 0, max = Number.MAX_SAFE_INTEGER) => z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max));
export const envBool = () =>
  z.preprocess((value) => {
    const raw = unsetIfEmpty(value);
    if (typeof raw !== 'string') return raw;
    const lowered = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
    if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
    return raw;
  }, z.boolean());

export type Env = Record<string, string | undefined>;

/** Parses `env` with `schema`, throwing one ConfigError that names every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env = process.env): z.output<S> {
  // empty means unset before any field sees it: an optional or defaulted field only knows
  // `undefined` as absent, and compose hands every `${NAME:-}` over as ""
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}
