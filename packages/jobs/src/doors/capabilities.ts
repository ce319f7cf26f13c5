/**
 * The relay's capabilities: each one kind of work, whatever door it came in by. A capability owns
 * its queue (named by its id), the prefix of its job and file ids, and the BullMQ name its jobs
 * are added under; its doors (dialects) all make the same job. Every type keyed by capability
 * (queue names, job kinds, job names) is derived from this table, so a capability added here is
 * one the compiler then asks for everywhere it must be handled.
 */
export const CAPABILITIES = {
  /** Image generation, edits included: one queue, one processor, whatever door the request used. */
  images: { id: 'images', kind: 'img', jobName: 'generate' },
  /** Speech synthesis, in Gemini's dialect or OpenAI's. */
  speech: { id: 'speech', kind: 'tts', jobName: 'synthesize' },
} as const satisfies { readonly [Q in string]: { id: Q; kind: string; jobName: string } };

/** Queue names: one per capability, so each gets its own limits and workers. */
export type QueueName = keyof typeof CAPABILITIES;
export type Capability<Q extends QueueName = QueueName> = (typeof CAPABILITIES)[Q];
/** The prefix of a capability's job ids (and of its file ids). */
export type JobKind = Capability['kind'];
/** The BullMQ name a capability's jobs are added under. */
export type JobName<Q extends QueueName = QueueName> = Capability<Q>['jobName'];

/** Every capability's queue, in the table's order: what builds each per-queue object. */
export const QUEUE_NAMES = Object.keys(CAPABILITIES) as QueueName[];

/** One value per queue, built by `make` for each: the compiler sees every capability handled. */
export const perQueue = <T>(make: <Q extends QueueName>(queue: Q) => T): Record<QueueName, T> =>
  Object.fromEntries(QUEUE_NAMES.map((queue) => [queue, make(queue)])) as Record<QueueName, T>;

export const IMAGES = CAPABILITIES.images;
export const SPEECH = CAPABILITIES.speech;

/** The capability a job id belongs to, by its prefix. */
export const capabilityOfJobId = (jobId: string): Capability | undefined =>
  Object.values(CAPABILITIES).find((c) => jobId.startsWith(`${c.kind}_`));
