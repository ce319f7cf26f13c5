import { CAPABILITIES, type Capability } from '@relay/core';

/** The capability table lives in @relay/core (the catalog and the channels derive from it too); the doors name it here. */
export { CAPABILITIES, perQueue, QUEUE_NAMES, type Capability, type JobKind, type JobName, type QueueName } from '@relay/core';

export const IMAGES = CAPABILITIES.images;
export const SPEECH = CAPABILITIES.speech;

/** The capability a job id belongs to, by its prefix. */
export const capabilityOfJobId = (jobId: string): Capability | undefined =>
  Object.values(CAPABILITIES).find((c) => jobId.startsWith(`${c.kind}_`));
