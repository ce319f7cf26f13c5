import type { Model } from '@kubernetes-models/base';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import type { KubeObject } from './render.js';

type ModelClass = new (data: never) => Model<unknown>;

/**
 * The kinds the kit may hold, by apiVersion and kind: Kubernetes' own OpenAPI schemas
 * (kubernetes-models) and the KEDA and Prometheus Operator CRDs'. Anything else is an error.
 */
const MODELS = new Map<string, ModelClass>(
  [
    ConfigMap,
    Namespace,
    Secret,
    Service,
    ServiceAccount,
    Deployment,
    HorizontalPodAutoscaler,
    PodDisruptionBudget,
    ScaledObject,
    ServiceMonitor,
  ].map((model) => [`${model.apiVersion}/${model.kind}`, model as unknown as ModelClass]),
);

const check = (model: ModelClass, object: unknown): string | undefined => {
  try {
    new model(object as never).validate();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

type Path = Array<string | number>;

/** Every field of `value` (object keys, through arrays), as paths. */
function* fields(value: unknown, path: Path = []): Generator<Path> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* fields(item, [...path, i]);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      yield [...path, key];
      yield* fields(item, [...path, key]);
    }
  }
}

const replaced = (value: unknown, [head, ...rest]: Path, leaf: unknown): unknown => {
  if (head === undefined) return leaf;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head] = replaced(copy[head], rest, leaf);
  return copy;
};

/**
 * The schemas leave unknown fields alone (the API server refuses them under kubectl's default
 * strict field validation, or drops them): a misspelt `readinesProbe` would pass. A field the
 * schema knows has a type, so a value no schema accepts (a symbol) put in its place fails; one
 * that still passes is a field the schema does not have.
 */
function unknownFields(model: ModelClass, object: unknown): string[] {
  const unknown: string[] = [];
  for (const path of fields(object)) {
    // below a field already found unknown, everything is
    if (unknown.some((u) => path.join('.').startsWith(`${u}.`))) continue;
    if (check(model, replaced(object, path, Symbol('not a value'))) === undefined) unknown.push(path.join('.'));
  }
  return unknown;
}

/** What is wrong with the object against its kind's schema: nothing, or one line per fault. */
export function schemaFaults(object: KubeObject): string[] {
  const where = `${object.kind} ${object.metadata?.name}`;
  const model = MODELS.get(`${object.apiVersion}/${object.kind}`);
  if (!model) return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  const fault = check(model, object);
  if (fault) return [`${where}: ${fault}`];
  return unknownFields(model, object).map((field) => `${where}: unknown field ${field}`);
}
