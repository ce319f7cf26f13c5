import { expect } from 'vitest';
import type { FaultInput } from './faults.js';

/** Queues a fault on a running simulator over its control API, as a test of the relay would. */
export async function queueFault(simUrl: string, fault: FaultInput | FaultInput[]) {
  const res = await fetch(`${simUrl}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(fault),
  });
  expect(res.status).toBe(200);
}
