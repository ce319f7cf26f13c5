/** Labels Prometheus (Operator) puts on every series it scrapes: the target's, not the app's. */
export const TARGET_LABELS = new Set(['namespace', 'service', 'pod', 'job', 'instance', 'endpoint', 'container']);

/** One `metric{label="value", ...}` of a PromQL query. */
export interface Selector {
  metric: string;
  matchers: Array<{ label: string; op: '=' | '!=' | '=~' | '!~'; value: string }>;
}

/**
 * The series selectors of a query: enough PromQL for the kit's own queries (each selector with
 * its braces, label values in double quotes), not a parser for any query.
 */
export function selectors(query: string): Selector[] {
  return [...query.matchAll(/([a-zA-Z_:][\w:]*)\{([^}]*)\}/g)].map(([, metric, inside]) => ({
    metric: metric!,
    matchers: [...inside!.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map(([, label, op, value]) => ({
      label: label!,
      op: op as Selector['matchers'][number]['op'],
      value: value!,
    })),
  }));
}

/** The labels a query aggregates by (`by (a, b)`), all of them. */
export const groupingLabels = (query: string) =>
  [...query.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap(([, labels]) => labels!.split(',').map((label) => label.trim()));

/** Series of a Prometheus text exposition: name and labels of each sample line. */
export function exposition(text: string): Array<{ metric: string; labels: Record<string, string> }> {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, metric, inside = ''] = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s/.exec(line) ?? [];
      const labels = Object.fromEntries([...inside.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k!, v!]));
      return { metric: metric ?? '', labels };
    });
}

/** Does a series' label value satisfy a matcher (regexes anchored, as PromQL's are)? */
export function matches(value: string | undefined, { op, value: wanted }: Selector['matchers'][number]): boolean {
  const v = value ?? '';
  if (op === '=') return v === wanted;
  if (op === '!=') return v !== wanted;
  const hit = new RegExp(`^(?:${wanted})$`).test(v);
  return op === '=~' ? hit : !hit;
}
