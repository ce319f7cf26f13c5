import type { RedisOrigin } from './infrastructure.js';
import { describeHolder, PREFIX_FILE, type PrefixHolder, type PrefixSource } from './redis-prefix.js';
import type { RedisSurvey } from './redis-survey.js';

export interface BannerFacts {
  simulated: boolean;
  apiUrl: string;
  demoKey: string;
  adminToken: string;
  dataDir: string;
  redis: {
    url: string;
    origin: RedisOrigin;
    prefix: string;
    prefixSource: PrefixSource;
    movedFrom?: { prefix: string; holder: PrefixHolder };
    survey?: RedisSurvey;
  };
  storeUrl: string | undefined;
  embeddedStore: boolean;
  /** `npm run admin --` as typed where npm start was (npm --prefix <checkout> from elsewhere). */
  adminCommand: string;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

const pad = '                ';

/** Which prefix its keys are under, and why: relays sharing a Redis keep apart by it. */
function prefixLines(redis: BannerFacts['redis'], dataDir: string): string[] {
  const under = `${pad}keys under the prefix "${redis.prefix}"`;
  if (redis.prefixSource === 'set') return [`${under} (REDIS_PREFIX)`];
  const own = `this data folder's own, kept in ${dataDir}/${PREFIX_FILE}`;
  if (redis.prefixSource !== 'moved' || !redis.movedFrom) return [`${under} (${own})`];
  return [`${under} (${own}:`, `${pad}"${redis.movedFrom.prefix}" is held by ${describeHolder(redis.movedFrom.holder)})`];
}

/**
 * Whose Redis this is. One the launcher found answering may be shared with other runs or other
 * programs: say so, say what it held under the prefix before this start, and how to keep apart.
 */
function redisLines(redis: BannerFacts['redis'], dataDir: string): string[] {
  if (redis.origin === 'started')
    return [`  Redis:        ${redis.url} (started here, data in ${dataDir}/redis)`, ...prefixLines(redis, dataDir)];
  if (redis.origin === 'own')
    return [`  Redis:        ${redis.url} (its own: RELAY_OWN_REDIS=1, data in ${dataDir}/redis)`, ...prefixLines(redis, dataDir)];
  const { survey, prefix } = redis;
  const held = !survey
    ? `what it holds under the prefix "${prefix}" could not be read`
    : survey.accounts + survey.jobs === 0
      ? `it held nothing under the prefix "${prefix}" before this start`
      : `it held ${count(survey.accounts, 'account')} and ${count(survey.jobs, 'job')} under the prefix "${prefix}" before this start`;
  return [
    `  Redis:        ${redis.url} (already running: NOT started by npm start, may be shared)`,
    ...prefixLines(redis, dataDir),
    `${pad}${held}`,
    `${pad}apart from it: REDIS_PREFIX=<name> npm start, or RELAY_OWN_REDIS=1 npm start for a Redis of its own`,
  ];
}

/** What `npm start` prints once everything runs: the last thing on screen. */
export function banner(o: BannerFacts): string {
  // the two variables every snippet of the docs reads, then a first request that reads them
  const tryIt = `export RELAY_URL=${o.apiUrl} RELAY_API_KEY=${o.demoKey}
curl -s $RELAY_URL/v1/images/generations \\
  -H "Authorization: Bearer $RELAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"vendor-gen-5-0-260128","prompt":"a lighthouse at dusk","size":"2K"}'`;
  return [
    '',
    '================================================================================',
    o.simulated
      ? '  !!! THE UPSTREAM IS SIMULATED: images and audio come from the local simulator,'
      : '  Upstreams: as configured (ARK_BASE_URL / GEMINI_BASE_URL).',
    o.simulated ? '  !!! not from the vendor. Set ARK_BASE_URL/ARK_API_KEY for the real one.' : '',
    `  relay:        ${o.apiUrl}`,
    `  console:      ${o.apiUrl}/console   (sign in with the admin token below)`,
    `  API docs:     ${o.apiUrl}/docs`,
    `  demo API key: ${o.demoKey}`,
    `  admin token:  ${o.adminToken}   (kept in ${o.dataDir}/admin-token)`,
    `  admin CLI:    ${o.adminCommand} accounts list   (finds this relay by itself)`,
    ...redisLines(o.redis, o.dataDir),
    `  file store:   ${o.storeUrl ?? 'AWS S3'}${o.embeddedStore ? ` (embedded, data in ${o.dataDir}/s3)` : ''}`,
    `  logs:         warnings and errors only; LOG_LEVEL=info npm start for every request`,
    '',
    '  Try it: in another terminal (every snippet in the docs reads these two variables)',
    tryIt,
    '================================================================================',
    '',
  ]
    .filter((line, i, all) => line !== '' || all[i - 1] !== '')
    .join('\n');
}
