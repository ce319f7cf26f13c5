import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { onShutdown, runMain } from '@relay/core';
import { repoRoot, spawnApp, type AppProcess } from '@relay/testkit';
import { loadEmbeddedConfig } from './config.js';
import { EMBEDDED_API_DEFAULTS } from './defaults.js';
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
  const adminToken = config.ADMIN_TOKEN ?? randomBytes(18).toString('base64url');
  const simulated = !config.ARK_BASE_URL && !config.GEMINI_BASE_URL;
  const processes: AppProcess[] = [];

  const redis = await ensureRedis(config, dataDir);
  const store = await ensureStore(config, dataDir);
  const env: Record<string, string | undefined> = {
    ...process.env,
    REDIS_URL: redis.url,
    ADMIN_TOKEN: adminToken,
    ...(store?.env ?? {}),
  };
  if (simulated) {
    const simUrl = `http://127.0.0.1:${config.SIM_PORT}`;
    processes.push(await spawnApp('simulator', { ...env, SIM_PORT: String(config.SIM_PORT), SIM_LATENCY_MS: String(config.SIM_LATENCY_MS) }, { echo: true }));
    Object.assign(env, {
      ARK_BASE_URL: `${simUrl}/api/v3`,
      ARK_API_KEY: 'sim-key',
      GEMINI_BASE_URL: simUrl,
      GEMINI_API_KEY: 'sim-key',
      // the simulated upstream lives on loopback: the URL policy lets the relay reach it, and only it
      URL_ALLOWLIST: process.env.URL_ALLOWLIST || new URL(simUrl).host,
    });
  }
  processes.push(await spawnApp('worker', env, { echo: true }));
  processes.push(await spawnApp('api', { ...EMBEDDED_API_DEFAULTS, ...env, HOST: config.HOST, PORT: String(config.PORT) }, { echo: true }));

  const apiUrl = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`;
  const demo = await demoKey(apiUrl, adminToken, dataDir);
  const curl = `curl -s ${apiUrl}/v1/images/generations \\
  -H "Authorization: Bearer ${demo.key}" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"vendor-gen-5-0-260128","prompt":"a lighthouse at dusk","size":"2K"}'`;
  const banner = [
    '',
    '================================================================================',
    simulated
      ? '  !!! THE UPSTREAM IS SIMULATED: images and audio come from the local simulator,'
      : '  Upstreams: as configured (ARK_BASE_URL / GEMINI_BASE_URL).',
    simulated ? '  !!! not from the vendor. Set ARK_BASE_URL/ARK_API_KEY for the real one.' : '',
    `  relay:        ${apiUrl}`,
    `  console:      ${apiUrl}/console   (sign in with the admin token below)`,
    `  API docs:     ${apiUrl}/docs`,
    `  demo API key: ${demo.key}`,
    `  admin token:  ${adminToken}`,
    `  Redis:        ${redis.url}${redis.started ? ' (started here, data in ' + config.RELAY_DATA_DIR + '/redis)' : ''}`,
    `  file store:   ${store ? `${store.env.S3_ENDPOINT} (embedded, data in ${config.RELAY_DATA_DIR}/s3)` : env.S3_ENDPOINT}`,
    '',
    '  Try it:',
    curl,
    '================================================================================',
    '',
  ].filter((line, i, all) => line !== '' || all[i - 1] !== '');
  console.log(banner.join('\n'));

  onShutdown(async () => {
    for (const child of processes.reverse()) await child.stop();
    await store?.stop();
    await redis.stop();
  });
});
