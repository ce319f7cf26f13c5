import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { APP_NODE_ARGS, repoRoot } from '@relay/testkit';

const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

/** The command that runs an app: node, its options, its bundle. */
const commandOf = (app: 'api' | 'worker') => ['node', '--enable-source-maps', ...APP_NODE_ARGS[app], `dist/${app}.mjs`];

test("each app's image runs it with the V8 options npm start, the tests and the bench run it with", () => {
  // the image's own command is the api's
  const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
  expect(JSON.parse(cmd ?? '[]')).toEqual(commandOf('api'));

  const compose = parseYaml(read('docker-compose.yml')) as { services: Record<string, { command?: string[] }> };
  expect(compose.services.api?.command).toEqual(commandOf('api'));
  expect(compose.services.worker?.command).toEqual(commandOf('worker'));

  for (const app of ['api', 'worker'] as const) {
    const deployment = parseYaml(read(`deploy/kubernetes/base/${app}-deployment.yaml`)) as {
      spec: { template: { spec: { containers: Array<{ name: string; command?: string[] }> } } };
    };
    const container = deployment.spec.template.spec.containers.find((c) => c.name === app);
    expect(container?.command, app).toEqual(commandOf(app));
  }
});
