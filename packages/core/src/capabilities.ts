import type { CapabilityDeclaration } from './capability/declaration.js';
import { IMAGES } from './capability/images.js';
import { SPEECH } from './capability/speech.js';

/** Checks each entry's id against its key (a mapped type over `string` would not). */
const table = <T extends { readonly [Q in keyof T & string]: CapabilityDeclaration<Q> }>(entries: T) => entries;

/**
 * The relay's capabilities: each one kind of work, whatever door it came in by, declared in its
 * own file (capability/*.ts). Every type and table keyed by capability (queue names, job kinds
 * and names, the catalog's sections, the fair schedule's quantum, the trace's operation, the
 * stored file types, the vendors that serve it) derives from this table, so a capability added
 * here is one the compiler then asks for everywhere it must be handled.
 */
export const CAPABILITIES = table({ images: IMAGES, speech: SPEECH });

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
 * One value per queue whose type follows the queue (`M[Q]`: a queue typed by its payload, a
 * worker by its processor), built by `make` for each; write `make` generic in the queue, so its
 * body is checked for any one. This is the one place such a table is assembled from its entries:
 * TypeScript cannot carry a generic function's per-queue type into a record (it checks each entry
 * against the union of them), so the entries are taken as the table's type here.
 */
export const byQueue = <M extends { [Q in QueueName]: unknown }>(make: (queue: QueueName) => M[QueueName]): M =>
  Object.fromEntries(QUEUE_NAMES.map((queue) => [queue, make(queue)])) as M;

/**
 * The vendor protocols a channel can speak, each with the capability it serves: a new vendor is a
 * line here, its adapter in the worker's capability table and its fake in the simulator's vendor
 * table (both must cover every vendor), and the catalog's upstreams that name it.
 */
export const VENDORS = {
  ark: { capability: 'images' },
  gemini: { capability: 'speech' },
} as const satisfies Record<string, { capability: QueueName }>;

export type Vendor = keyof typeof VENDORS;
/** The capability a vendor's channels serve. */
export type VendorCapability<V extends Vendor = Vendor> = (typeof VENDORS)[V]['capability'];
/** The vendors serving a capability. */
export type VendorOf<Q extends QueueName> = { [V in Vendor]: VendorCapability<V> extends Q ? V : never }[Vendor];
export const VENDOR_NAMES = Object.keys(VENDORS) as [Vendor, ...Vendor[]];

/**
 * Every capability is served by some vendor: one that none serves stops the build here, named
 * (its models could name no upstream, its jobs reach no adapter).
 */
export type ServedCapabilities = Pick<{ [Q in VendorCapability]: Q }, QueueName>;
