import type { IContainer } from 'kubernetes-models/v1';
import type { Rendered } from './render.js';

/** Where one variable of a container comes from. */
export type EnvSource =
  | { from: 'literal'; value: string }
  | { from: 'configMap'; configMap: string; key: string }
  | { from: 'secret'; secret: string; key: string; optional: boolean };

export const container = (rendered: Rendered, deployment: string) => {
  const containers = rendered.one('Deployment', deployment).spec?.template.spec?.containers ?? [];
  if (containers.length !== 1) throw new Error(`${deployment}: expected one container, found ${containers.length}`);
  return containers[0]!;
};

/** Each variable the container is given, in the order Kubernetes applies them (later wins). */
export function envSources(rendered: Rendered, c: IContainer): Array<[string, EnvSource]> {
  const sources: Array<[string, EnvSource]> = [];
  for (const from of c.envFrom ?? []) {
    if (!from.configMapRef) throw new Error(`${c.name}: envFrom other than a ConfigMap`);
    const name = from.configMapRef.name!;
    for (const key of Object.keys(rendered.one('ConfigMap', name).data ?? {}))
      sources.push([key, { from: 'configMap', configMap: name, key }]);
  }
  for (const variable of c.env ?? []) {
    const secret = variable.valueFrom?.secretKeyRef;
    if (secret)
      sources.push([variable.name, { from: 'secret', secret: secret.name!, key: secret.key, optional: secret.optional ?? false }]);
    else if (variable.value !== undefined) sources.push([variable.name, { from: 'literal', value: variable.value }]);
    else throw new Error(`${c.name}: ${variable.name} comes from neither a value nor a Secret`);
  }
  return sources;
}

/** A Secret's value, from stringData or base64 data; undefined when it has no such key. */
export function secretValue(rendered: Rendered, secret: string, key: string): string | undefined {
  const object = rendered.one('Secret', secret);
  if (object.stringData && Object.hasOwn(object.stringData, key)) return object.stringData[key];
  if (object.data && Object.hasOwn(object.data, key)) return Buffer.from(object.data[key]!, 'base64').toString('utf8');
  return undefined;
}

/**
 * The environment the container's process sees. `secrets` stands in for what a real deployment
 * puts in the Secrets (the kit ships placeholders): called with each Secret value, it returns
 * the value to use.
 */
export function envOf(rendered: Rendered, c: IContainer, secrets: (value: string) => string = (v) => v): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, source] of envSources(rendered, c)) {
    if (source.from === 'literal') env[name] = source.value;
    else if (source.from === 'configMap') env[name] = rendered.one('ConfigMap', source.configMap).data![source.key]!;
    else {
      const value = secretValue(rendered, source.secret, source.key);
      if (value !== undefined) env[name] = secrets(value);
    }
  }
  return env;
}

/** Stands in real secrets for the kit's change-me placeholders, keeping everything else. */
export const ownSecrets = (value: string) => value.replace(/change-?me[\w-]*/gi, () => crypto.randomUUID().replaceAll('-', ''));
