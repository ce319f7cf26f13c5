/**
 * The relay's capabilities: each one kind of work, whatever door it came in by. This table is
 * where a capability is declared; every type and table keyed by capability (queue names, job
 * kinds and names, the catalog's sections, the fair schedule's quantum, the trace's operation,
 * the vendors that serve it) derives from it, so a capability added here is one the compiler then
 * asks for everywhere it must be handled.
 */
export const CAPABILITIES = {
  /** Image generation, edits included: one queue, one processor, whatever door the request used. */
  images: {
    id: 'images',
    /** The prefix of its job ids and file ids. */
    kind: 'img',
    /** The BullMQ name its jobs are added under. */
    jobName: 'generate',
    /** The catalog's section of its models. */
    models: 'imageModels',
    /** What one of its models is called in an answer ("is no image model of the catalog"). */
    noun: 'image',
    /**
     * A fair-schedule turn's credit per unit of weight, in the capability's cost units: one image
     * (a set of 15 waits out 15 turns); speech's are seconds of audio, five a turn.
     */
    quantum: 1,
    /** OpenTelemetry's gen_ai.operation.name for its jobs. */
    operation: 'image_generation',
  },
  /** Speech synthesis, in Gemini's dialect or OpenAI's. */
  speech: {
    id: 'speech',
    kind: 'tts',
    jobName: 'synthesize',
    models: 'speechModels',
    noun: 'speech',
    quantum: 5,
    operation: 'speech',
  },
} as const satisfies {
  readonly [Q in string]: { id: Q; kind: string; jobName: string; models: string; noun: string; quantum: number; operation: string };
};

/** Queue names: one per capability, so each gets its own limits and workers. */
export type QueueName = keyof typeof CAPABILITIES;
export type Capability<Q extends QueueName = QueueName> = (typeof CAPABILITIES)[Q];
/** The prefix of a capability's job ids (and of its file ids). */
export type JobKind = Capability['kind'];
/** The BullMQ name a capability's jobs are added under. */
export type JobName<Q extends QueueName = QueueName> = Capability<Q>['jobName'];
/** The catalog section holding a capability's models. */
export type ModelsSection = Capability['models'];

/** Every capability's queue, in the table's order: what builds each per-queue object. */
export const QUEUE_NAMES = Object.keys(CAPABILITIES) as QueueName[];

/** One value per queue, built by `make` for each: the compiler sees every capability handled. */
export const perQueue = <T>(make: <Q extends QueueName>(queue: Q) => T): Record<QueueName, T> =>
  Object.fromEntries(QUEUE_NAMES.map((queue) => [queue, make(queue)])) as Record<QueueName, T>;

/**
 * The vendor protocols a channel can speak, each with the capability it serves: a new vendor is a
 * line here, an adapter in the worker (upstreams/adapters.ts, which must cover every vendor) and
 * the catalog's upstreams that name it.
 */
export const VENDORS = {
  ark: { capability: 'images' },
  gemini: { capability: 'speech' },
} as const satisfies Record<string, { capability: QueueName }>;

export type Vendor = keyof typeof VENDORS;
/** The capability a vendor's channels serve. */
export type VendorCapability<V extends Vendor = Vendor> = (typeof VENDORS)[V]['capability'];
export const VENDOR_NAMES = Object.keys(VENDORS) as [Vendor, ...Vendor[]];
