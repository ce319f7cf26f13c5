import type { Job } from 'bullmq';
import type { Billing, Reservation } from '@relay/billing';
import type { QueueHandle } from './queues.js';

/**
 * Money first: the request's maximum cost is reserved before any work (uploading inputs,
 * queueing). If anything fails before the job is in the queue, the reservation is released;
 * a job whose reservation is gone is never run by a worker, so no path charges without work
 * or works without a charge.
 */
export async function submitJob<P>(
  billing: Billing,
  handle: QueueHandle,
  name: string,
  reservation: Reservation,
  prepare: () => Promise<P>,
): Promise<Job> {
  await billing.reserve(reservation);
  try {
    const payload = await prepare();
    return await handle.queue.add(name, payload, { jobId: reservation.jobId });
  } catch (error) {
    await billing.release(reservation.jobId).catch(() => undefined);
    throw error;
  }
}
