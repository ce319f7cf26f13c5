import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@relay/testkit';

export interface Stage {
  name: string;
  /** The stage it is built on, when that is a stage of the file rather than an image. */
  base?: string;
  /** Instructions with their continuation lines joined. */
  lines: string[];
}

/** The Dockerfile's stages, each with its instructions (comments dropped, `\` lines joined). */
export function dockerStages(file = join(repoRoot, 'Dockerfile')): Stage[] {
  const instructions = readFileSync(file, 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of instructions) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      const base = stages.find((stage) => stage.name === from[1]);
      stages.push({ name: from[2] ?? `#${stages.length}`, ...(base ? { base: base.name } : {}), lines: [] });
    } else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

/** A stage's instructions and those of the stages it is built on, oldest first. */
export function inherited(stages: Stage[], name: string): string[] {
  const stage = stages.find((s) => s.name === name);
  if (!stage) return [];
  return [...(stage.base ? inherited(stages, stage.base) : []), ...stage.lines];
}

/** The workspace folders whose manifests these instructions copy (`COPY apps/api/package.json apps/api/`). */
export const copiedWorkspaces = (lines: string[]) => lines.flatMap((line) => /^COPY\s+(?!--)(\S+)\/package\.json\s/.exec(line)?.[1] ?? []);
