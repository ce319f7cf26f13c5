import { AppError, type Catalog } from '@relay/core';
import type { JobMeta } from '../meta.js';
import type { QueueName } from '../queues.js';
import { CAPABILITIES, QUEUE_NAMES } from './capabilities.js';
import { doorOfStored } from '../meta-migration.js';
import type { AnyDoor } from './door.js';
import { CAPABILITY_MODULES } from '../capability-modules.js';

/**
 * Every door of the relay, each onto one capability, in the order of the capability table and
 * of each capability's module. Adding a dialect is a door file and a line in its capability's
 * module (images/index.ts, ...): the api mounts it, batches accept its path, the statistics and
 * the OpenAPI document list it, and lookups answer its jobs in its dialect.
 */
export function createDoors(catalog: Catalog) {
  const doors: AnyDoor[] = QUEUE_NAMES.flatMap((queue) => CAPABILITY_MODULES[queue].doors.map((make): AnyDoor => make(catalog)));
  const byName = new Map(doors.map((door) => [door.name, door]));
  const batchEndpoints = doors.flatMap((door) => door.batch?.urls ?? []);
  return {
    all: doors,
    /** The door a job came in by (its meta.door), for answering it later in the same dialect. */
    ofJob(queue: QueueName, meta: Pick<JobMeta, 'v' | 'door'>): AnyDoor {
      const name = doorOfStored(queue, meta);
      const door = name === undefined ? undefined : byName.get(name);
      if (!door) throw new AppError('internal', `job of ${queue} names no door this relay has (${name ?? 'none'})`);
      return door;
    },
    /** Every endpoint a batch may name, from the doors that take batches. */
    batchEndpoints,
    /** The door a batch's endpoint names, with the path parameters its url carries; a 400 listing them otherwise. */
    forBatch(url: string): { door: AnyDoor; params: Record<string, string> } {
      for (const door of doors) {
        const params = door.batch?.params(url);
        if (params) return { door, params };
      }
      throw new AppError('invalid_request', `endpoint must be one of ${batchEndpoints.join(', ')}`, { param: 'endpoint' });
    },
  };
}

export type Doors = ReturnType<typeof createDoors>;

export { CAPABILITIES };
