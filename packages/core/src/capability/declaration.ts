import type { z } from 'zod';

/** Reports one problem of a catalog section, at a path inside it (`[modelId, field]`). */
export type SectionIssue = (path: ReadonlyArray<string | number>, message: string) => void;

/**
 * What every layer of the relay knows of a capability, as data: its names, its catalog section
 * and the schema of a model there, what it weighs and stores. The layers above add its behaviour,
 * each from a table keyed by capability (its doors in @relay/jobs, its processor and vendor
 * adapters in the worker, its fake vendor in the simulator), so the compiler asks each of them
 * for a capability declared here.
 */
export interface CapabilityDeclaration<Q extends string = string, M extends z.ZodType = z.ZodType> {
  /** Its queue's name, the key of its entry in the table. */
  id: Q;
  /** The prefix of its job ids and file ids. */
  kind: string;
  /** The BullMQ name its jobs are added under. */
  jobName: string;
  /** The catalog's section of its models (`imageModels`, ...). */
  models: string;
  /** One model of that section: what the config file is checked against. */
  model: M;
  /** Rules across a section's models that one model's schema cannot state (at most one default, ...). */
  check?(models: Readonly<Record<string, z.output<M>>>, issue: SectionIssue): void;
  /** What one of its models is called in an answer ("is no image model of the catalog"). */
  noun: string;
  /** A fair-schedule turn's credit per unit of weight, in the capability's cost units. */
  quantum: number;
  /** OpenTelemetry's gen_ai.operation.name for its jobs. */
  operation: string;
  /** The files it stores, by extension, with the Content-Type they are served with. */
  files: Readonly<Record<string, string>>;
}
