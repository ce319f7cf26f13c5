import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { onShutdown, runMain } from '@relay/core';
import { repoRoot, spawnApp, type AppProcess } from '@relay/testkit';
import { loadEmbeddedConfig } from './config.js';
import { EMBEDDED_API_DEFAULTS } from './defaults.js';
import { adminTokenIn, announceRunning, channelSecretIn } from './data-dir.js';
import { demoKey } from './demo-key.js';
import { ensureRedis, ensureStore } from './infrastructure.js';

/**
 * `npm start`: the whole relay on one machine with no configuration. Redis (started if
 * needed), an S3-compatible store on local disk, the upstream simulator, then the api and
 * worker as separate processes, exactly as they run in production.
 */
await runMain(async () => {
  const config = loadEmbeddedConfig();
  const dataDir = resolve(repoRoot, config.RELAY_DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const adminToken = adminTokenIn(dataDir, config.ADMIN_TOKEN);
  const simulated = !config.ARK_BASE_URL && !config.GEMINI_BASE_URL;
  // everything started so far, stopped in reverse whether the start fails half-way or ends with a signal
  const started: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    // one part that fails to stop must not keep the others running: said, and the next one stopped
    for (const stop of started.reverse())
      await stop().catch((error: unknown) => console.error(`relay: a part did not stop cleanly: ${(error as Error).message}`));
  };

  try {
    const redis = await ensureRedis(config, dataDir);
    started.push(() => redis.stop());
    const store = await ensureStore(config, dataDir);
    if (store) started.push(() => store.stop());
    const env: Record<string, string | undefined> = {
      ...process.env,
      // the apps log warnings and errors here, so the banner stays the last thing on screen
      LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
      REDIS_URL: redis.url,
      ADMIN_TOKEN: adminToken,
      CHANNEL_SECRET: channelSecretIn(dataDir, config.CHANNEL_SECRET),
      ...(store?.env ?? {}),
    };
    const start = async (...args: Parameters<typeof spawnApp>) => {
      const app: AppProcess = await spawnApp(...args);
      started.push(() => app.stop());
    };
    if (simulated) {
      const simUrl = `http://127.0.0.1:${config.SIM_PORT}`;
      await start(
        'simulator',
        { ...env, SIM_PORT: String(config.SIM_PORT), SIM_LATENCY_MS: String(config.SIM_LATENCY_MS) },
        { echo: true },
      );
      Object.assign(env, {
        ARK_BASE_URL: `${simUrl}/api/v3`,
        ARK_API_KEY: 'sim-key',
        GEMINI_BASE_URL: simUrl,
        GEMINI_API_KEY: 'sim-key',
        // the simulated upstream lives on loopback: the URL policy lets the relay reach it, and only it
        URL_ALLOWLIST: process.env.URL_ALLOWLIST || new URL(simUrl).host,
      });
    }
    await start('worker', env, { echo: true });
    await start('api', { ...EMBEDDED_API_DEFAULTS, ...env, HOST: config.HOST, PORT: String(config.PORT) }, { echo: true });

    const apiUrl = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`;
    const demo = await demoKey(apiUrl, adminToken, dataDir);
    const forget = announceRunning(dataDir, { url: apiUrl, adminToken, pid: process.pid });
    started.push(async () => forget());
    onShutdown(stopAll);
    console.log(
      banner({
        simulated,
        apiUrl,
        demoKey: demo.key,
        adminToken,
        dataDir: config.RELAY_DATA_DIR,
        redis,
        storeUrl: store ? store.env.S3_ENDPOINT : env.S3_ENDPOINT,
        embeddedStore: Boolean(store),
      }),
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
});

function banner(o: {
  simulated: boolean;
  apiUrl: string;
  demoKey: string;
  adminToken: string;
  dataDir: string;
  redis: { url: string; started: boolean };
  storeUrl: string | undefined;
  embeddedStore: boolean;
}) {
  const curl = `curl -s ${o.apiUrl}/v1/images/generations \\
  -H "Authorization: Bearer ${o.demoKey}" \\
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
    `  admin CLI:    npm run admin -- accounts list   (finds this relay by itself)`,
    `  Redis:        ${o.redis.url}${o.redis.started ? ` (started here, data in ${o.dataDir}/redis)` : ''}`,
    `  file store:   ${o.storeUrl ?? 'AWS S3'}${o.embeddedStore ? ` (embedded, data in ${o.dataDir}/s3)` : ''}`,
    `  logs:         warnings and errors only; LOG_LEVEL=info npm start for every request`,
    '',
    '  Try it:',
    curl,
    '================================================================================',
    '',
  ]
    .filter((line, i, all) => line !== '' || all[i - 1] !== '')
    .join('\n');
}
