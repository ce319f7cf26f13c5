import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, parseOrThrow } from '@relay/core';
import { storedFileSchema, type JobObject, type QueueName, type RelayJob, type WebhookStore } from '@relay/jobs';
import { partNoticeSchema, type CancelReason, type JobLife } from '@relay/life';
import { authenticate } from '../auth/authenticate.js';
import { jobLink } from './answer.js';
import { ownedJob } from './job-lookup.js';
import type { JobsRouteDeps } from './routes.js';
import { waitForJob, type Outcome } from './run-job.js';

const jobPath = z.object({ id: z.string() });
/** How long one wait of an events stream lasts before it looks again (the stream itself lasts until the job ends). */
const EVENTS_WAIT_MS = 5 * 60_000;

export interface JobControlDeps extends JobsRouteDeps {
  life: Pick<JobLife, 'cancelFor' | 'stop'>;
  /** How long a cancelled job's end is kept (`tuning.api.jobKeepSeconds`). */
  keepSeconds: number;
  /** Cancelling counts against the generation limit: it changes money. */
  requestLimit: RequestHandler;
  /** Tells whoever asked of a job cancelled here (its webhooks). */
  cancelled: (queue: QueueName, job: RelayJob, reason: CancelReason) => Promise<void>;
  /** The account's secret for the webhooks its requests name. */
  webhooks: Pick<WebhookStore, 'requestSecret'>;
}

/** What a finished job delivered, for its events: images by index, or the clip. */
const deliveredSchema = z.object({
  images: z.array(storedFileSchema).optional(),
  file: z.object({ fileId: z.string() }).optional(),
});

const errorOf = (error: AppError) => ({ code: error.code, message: error.message });

/**
 * The caller's controls over a job by id (fal's and Replicate's): cancel it (before it begins, all
 * of it; while it runs, what has not begun) and follow it as server-sent events. Both answer only the job's owner (others: 404), in the dialect
 * of the door the job came in by.
 */
export function jobControlRoutes(deps: JobControlDeps) {
  const router = express.Router();
  const auth = authenticate(deps.accounts, deps.keys);

  router.post('/v1/jobs/:id/cancel', auth, deps.requestLimit, async (req, res) => {
    const { id } = parseOrThrow(jobPath, req.params);
    const { capability, door, outcome } = await ownedJob(id, res.locals.caller!.accountId, deps);
    res.locals.dialect = door.dialect;
    const job = (status: 'cancelled' | 'running', created: number): JobObject => ({
      id,
      object: 'relay.job',
      status,
      created,
      links: { self: jobLink(id) },
      ...(status === 'running' ? { cancel_requested: true } : {}),
    });
    // a second cancel of a cancelled job says the same
    if (outcome.state === 'cancelled') return void res.json(job('cancelled', Math.floor(Date.now() / 1000)));
    if (outcome.state !== 'pending')
      throw new AppError('conflict', `job ${id} has already ended (${outcome.state}): there is nothing to cancel`);
    const created = Math.floor(outcome.job.timestamp / 1000);
    if (await deps.life.cancelFor(capability.id, outcome.job, 'owner', deps.keepSeconds)) {
      await deps.cancelled(capability.id, outcome.job, 'owner');
      return void res.json(job('cancelled', created));
    }
    // begun: what is in flight runs to its end and is charged as delivered; nothing more is asked
    if (await deps.life.stop(outcome.job)) return void res.status(202).json(job('running', created));
    throw new AppError('conflict', `job ${id} has already ended: there is nothing to cancel`);
  });

  /** The secret that signs the webhooks this account's requests name (Relay-Webhook): Standard Webhooks' whsec_... */
  router.get('/v1/webhooks/secret', auth, deps.readLimit, async (_req, res) => {
    res.json({ object: 'relay.webhook_secret', secret: await deps.webhooks.requestSecret(res.locals.caller!.accountId) });
  });

  router.get('/v1/jobs/:id/events', auth, deps.readLimit, async (req, res) => {
    const { id } = parseOrThrow(jobPath, req.params);
    const { handle, door, outcome } = await ownedJob(id, res.locals.caller!.accountId, deps);
    res.locals.dialect = door.dialect;
    const left = new AbortController();
    res.on('close', () => left.abort());
    res.status(200).type('text/event-stream').set('Cache-Control', 'no-cache');
    res.flushHeaders();
    const said = { started: false, images: new Set<number>() };
    const send = (type: string, data: object = {}) => {
      if (!res.destroyed) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, job: id, ...data })}\n\n`);
    };
    const started = () => {
      if (said.started) return;
      said.started = true;
      send('started');
    };
    const part = (data: string) => {
      const parsed: unknown = JSON.parse(data);
      const image = storedFileSchema.safeParse(parsed);
      if (image.success && !said.images.has(image.data.index)) {
        said.images.add(image.data.index);
        return send('image', { index: image.data.index, file_id: image.data.fileId });
      }
      const audio = partNoticeSchema.safeParse(parsed);
      if (!audio.success) return;
      started();
      send('audio', { seq: audio.data.seq });
    };
    const end = (ended: Exclude<Outcome<unknown>, { state: 'gone' | 'pending' }> | { state: 'cancelled'; error: AppError }) => {
      if (ended.state === 'completed') {
        const delivered = deliveredSchema.safeParse(ended.result);
        for (const image of delivered.data?.images ?? []) part(JSON.stringify(image));
        if (delivered.data?.file) send('audio', { file_id: delivered.data.file.fileId });
        send('completed');
      } else if (ended.state === 'cancelled' || ended.error.code === 'cancelled') send('cancelled', { error: errorOf(ended.error) });
      else send('failed', { error: errorOf(ended.error) });
      res.end();
    };
    if (outcome.state !== 'pending') return end(outcome);
    if ((await outcome.job.getState()) === 'active') started();
    else send('queued');
    while (!left.signal.aborted) {
      const now = await waitForJob(handle, id, EVENTS_WAIT_MS, left.signal, part, started);
      if (now.state === 'pending') continue;
      if (now.state !== 'gone') return end(now);
      // dropped from the queue: cancelled (its end was kept), or gone for good
      const after = await ownedJob(id, res.locals.caller!.accountId, deps).catch(() => undefined);
      if (after && after.outcome.state !== 'pending') return end(after.outcome);
      return end({ state: 'cancelled', error: new AppError('cancelled', `job ${id} left the queue before it began`) });
    }
  });

  return router;
}
