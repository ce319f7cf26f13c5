import { expect, test } from 'vitest';
import { createMetricsRegistry } from './metrics.js';

test("Node's metrics are there, without the ones that walk every handle on the event loop", async () => {
  const text = await createMetricsRegistry('test').metrics();
  expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds\{app="test"\} /m);
  expect(text).toMatch(/^process_resident_memory_bytes\{app="test"\} \d+/m);
  expect(text).not.toMatch(/^nodejs_active_handles/m);
  expect(text).not.toMatch(/^nodejs_active_resources/m);
  if (process.platform === 'linux') {
    // stdin, stdout and stderr at least, counted off the event loop
    expect(Number(/^process_open_fds\{app="test"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(3);
  }
});
