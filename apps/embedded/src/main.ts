import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, onShutdown, runMain } from '@relay/core';
import { npmRunCommand } from '@relay/core/npm-command';
import { AppStartError, repoRoot, spawnApp, type AppProcess } from '@relay/local';
import { banner } from './banner.js';
import { loadEmbeddedConfig } from './config.js';
import { EMBEDDED_API_DEFAULTS } from './defaults.js';
import { adminTokenIn, announceRunning, channelSecretIn } from './data-dir.js';
import { DEMO_KEY_FILE, demoKey } from './demo-key.js';
import { withConsoleSection } from './relay-config.js';
import { ensureRedis, ensureStore } from './infrastructure.js';
import { claimPrefix } from './redis-prefix.js';
import { surveyRedis } from './redis-survey.js';

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
    const apiUrl = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`;
    // this data folder's own prefix unless REDIS_PREFIX says: two relays on one Redis keep their channels apart
    const prefix = await claimPrefix(redis.url, dataDir, config.REDIS_PREFIX, apiUrl);
    started.push(() => prefix.release());
    // read before the demo account is made: what was there before this start
    const survey = redis.origin === 'reused' ? await surveyRedis(redis.url, prefix.prefix).catch(() => undefined) : undefined;
    const store = await ensureStore(config, dataDir);
    if (store) started.push(() => store.stop());
    const env: Record<string, string | undefined> = {
      ...process.env,
      // the apps log warnings and errors here, so the banner stays the last thing on screen
      LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix.prefix,
      ADMIN_TOKEN: adminToken,
      CHANNEL_SECRET: channelSecretIn(dataDir, config.CHANNEL_SECRET),
      ...(store?.env ?? {}),
    };
    const start = async (...args: Parameters<typeof spawnApp>) => {
      const app: AppProcess = await spawnApp(...args);
      started.push(() => app.stop());
    };
    const simUrl = `http://127.0.0.1:${config.SIM_PORT}`;
    if (simulated) {
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
    await start(
      'api',
      {
        ...EMBEDDED_API_DEFAULTS,
        ...env,
        HOST: config.HOST,
        PORT: String(config.PORT),
        // the console marks the simulator's channels, and offers the demo key (written below) to a signed-in operator
        RELAY_CONFIG: withConsoleSection(env.RELAY_CONFIG, {
          ...(simulated ? { simulatorUrl: simUrl } : {}),
          demoKeyFile: join(dataDir, DEMO_KEY_FILE),
        }),
      },
      { echo: true },
    );

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
        redis: {
          url: redis.url,
          origin: redis.origin,
          prefix: prefix.prefix,
          prefixSource: prefix.source,
          movedFrom: prefix.movedFrom,
          survey,
        },
        storeUrl: store ? store.env.S3_ENDPOINT : env.S3_ENDPOINT,
        embeddedStore: Boolean(store),
        adminCommand: npmRunCommand('admin'),
      }),
    );
  } catch (error) {
    await stopAll();
    // an app that refused its configuration (a port taken...) has said why in one line: that line is the launcher's last
    if (error instanceof AppStartError && error.configError)
      throw new ConfigError(`relay: the ${error.app} could not start: ${error.configError}`);
    throw error;
  }
});
