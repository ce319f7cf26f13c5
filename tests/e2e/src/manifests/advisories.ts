import { nameAt, type Lock } from './lockfile.js';

/**
 * Versions with a known high or critical advisory that no install may bring (back) into the
 * image or the production tree: `upTo` is the last affected version, inclusive, or `below` the
 * first fixed one. `npm audit` does not answer here, so the ones met in this project's tree, or in
 * the lines of the packages it holds, are listed by hand, with where they came from.
 */
export const DENIED: ReadonlyArray<{ name: string; advisory: string } & ({ upTo: string } | { below: string })> = [
  // through node-av's optional werift 0.23 (WebRTC, unused here); no fixed release of ip exists
  { name: 'ip', upTo: '2.0.1', advisory: 'GHSA-2p57-rm9w-gvfp (CVE-2024-29415), SSRF: isPublic() misjudges addresses' },
  // through s3rver 3.x, once the embedded store; dicer has no fixed release
  { name: 'dicer', upTo: '0.3.1', advisory: 'CVE-2022-24434, denial of service on a crafted multipart body' },
  { name: 'fast-xml-parser', upTo: '4.2.4', advisory: 'CVE-2023-34104, CVE-2023-26920: denial of service, prototype pollution' },
  // the embedded store's (npm start) XML, 5.x line: entity expansion, DOCTYPE injection, a RangeError
  {
    name: 'fast-xml-parser',
    below: '5.10.1',
    advisory: 'CVE-2026-25128, CVE-2026-25896, CVE-2026-26278, CVE-2026-73569: denial of service, entity-encoding bypass',
  },
  // the embedded store's web framework
  { name: 'koa', below: '3.1.2', advisory: 'CVE-2026-27959 (GHSA-7gcc-r8m5-44qm), Host header injection through ctx.hostname' },
  // Node's fetch outside Node (the AWS SDK, the openai SDK)
  { name: 'undici', below: '7.29.0', advisory: 'CVE-2026-13697, CVE-2026-12151: denial of service and disclosure' },
];

/** -1, 0 or 1 as `a` is below, at or above `b` (numeric x.y.z; a prerelease counts as its release). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[-+]/)[0]!.split('.').map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1;
  return 0;
}

/** The installed folders (lockfile paths) that hold a denied version, with its advisory. */
export function deniedIn(lock: Lock, installed: Iterable<string>): string[] {
  return [...installed].flatMap((path) => {
    const version = lock.packages[path]?.version;
    const affected = (d: (typeof DENIED)[number]) =>
      version !== undefined && ('upTo' in d ? compareVersions(version, d.upTo) <= 0 : compareVersions(version, d.below) < 0);
    const denied = DENIED.find((d) => d.name === nameAt(path) && affected(d));
    return denied ? [`${path}@${version}: ${denied.advisory}`] : [];
  });
}
