import { expect, test } from 'vitest';
import { ConfigError, perQueue } from '@relay/core';
import { loadWorkerConfig } from './config.js';

test("every capability gets its limits from the config file's queues, the defaults where it names none", () => {
  const config = loadWorkerConfig({ RELAY_CONFIG: JSON.stringify({ queues: { speech: { maxPerMinute: 60, dispatchWindow: 4 } } }) });
  expect(config.queues).toEqual({
    ...perQueue(() => ({ maxConcurrent: 0, maxPerMinute: 0 })),
    speech: { maxConcurrent: 0, maxPerMinute: 60, dispatchWindow: 4 },
  });
  expect(config.WORKER_CONCURRENCY).toBe(256);
});

test('a queue the relay does not serve is refused, naming the ones it does', () => {
  const load = () => loadWorkerConfig({ RELAY_CONFIG: JSON.stringify({ queues: { image: { maxConcurrent: 1 } } }) });
  expect(load).toThrow(ConfigError);
  expect(load).toThrow("RELAY_CONFIG: queues names image: the relay's capabilities are images, speech");
});
