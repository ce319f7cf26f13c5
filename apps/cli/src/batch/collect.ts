import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A line of a batch's output or error file (or its results feed). */
export interface OutputLine {
  custom_id: string;
  response: { status_code: number; body: unknown } | null;
  error: { code: string; message: string } | null;
}

export interface Manifest {
  batch: string;
  status: string;
  /** custom_id -> the files its line delivered, as downloaded here. */
  files: Record<string, Array<{ path: string; bytes: number; sha256: string; url: string }>>;
  /** custom_id -> why its line failed. */
  errors: Record<string, { status: number | null; code: string; message: string }>;
}

/**
 * The relay's links in an output line (image urls, speech fileUri and url): the shape of a file
 * link, whatever capability made it and in whatever format it is stored.
 */
const LINK = /https?:\/\/[^"\s]+?\/files\/[a-z]+_[0-9a-f]{32}-(\d{1,2})\.([a-z0-9]+)/g;
const safe = (customId: string) =>
  customId
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 100) || 'line';

function readJson<T>(file: string): T | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

/** Written whole to a temporary name, then renamed: a killed CLI never leaves half a file. */
function writeJson(file: string, value: unknown) {
  writeFileSync(`${file}.tmp`, JSON.stringify(value, null, 2));
  renameSync(`${file}.tmp`, file);
}

/**
 * The files of finished lines, downloaded into `dir` as `{custom_id}-{index}.{ext}` (sha256
 * computed on the way), and the manifest that lists them and the lines that failed. Kept in
 * `dir/manifest.json` after every page, so a run killed halfway resumes where it was.
 */
export function openCollector(dir: string, batchId: string) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'manifest.json');
  const manifest: Manifest = readJson<Manifest>(file) ?? { batch: batchId, status: '', files: {}, errors: {} };

  async function download(url: string, path: string) {
    const res = await fetch(url);
    if (!res.ok || !res.body) throw new Error(`GET ${url}: HTTP ${res.status}`);
    const hash = createHash('sha256');
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as never), count, createWriteStream(join(dir, path)));
    return { path, bytes, sha256: hash.digest('hex'), url };
  }

  return {
    manifest,
    /** Files downloaded so far, and lines that failed. */
    counts: () => ({ files: Object.values(manifest.files).reduce((n, f) => n + f.length, 0), errors: Object.keys(manifest.errors).length }),

    /** One finished line: its files fetched (unless they were already), or its failure noted. */
    async add(line: OutputLine) {
      if (line.response?.status_code !== 200) {
        // OpenAI's body names a code, Google's a status; a line never run names its batch's ending
        const body = (line.response?.body ?? {}) as { error?: { code?: unknown; status?: unknown; message?: unknown } };
        const code =
          line.error?.code ??
          (typeof body.error?.code === 'string' ? body.error.code : typeof body.error?.status === 'string' ? body.error.status : 'error');
        manifest.errors[line.custom_id] = {
          status: line.response?.status_code ?? null,
          code,
          message: line.error?.message ?? (typeof body.error?.message === 'string' ? body.error.message : ''),
        };
        return;
      }
      if (manifest.files[line.custom_id]) return;
      const links = [...JSON.stringify(line.response.body).matchAll(LINK)];
      manifest.files[line.custom_id] = await Promise.all(
        links.map(([url, index, ext]) => download(url, `${safe(line.custom_id)}-${index}.${ext}`)),
      );
    },

    save(status?: string) {
      if (status) manifest.status = status;
      writeJson(file, manifest);
    },
  };
}

export const readManifest = (dir: string) => readJson<Manifest>(join(dir, 'manifest.json'));

/** A reason as one line of a terminal: its whitespace folded, a long one (a list of every model) cut. */
const oneLine = (text: string, max = 200) => {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Why lines failed, one line per distinct reason (status, code and message), the commonest
 * first: how many lines, why, and the first few of their custom_ids; the reasons past `max`
 * summed up in a last line. Printed when a batch ends, so the reasons are seen without opening the
 * manifest, and a thousand lines refused for one mistake are one line, not a thousand.
 */
export function describeFailures(manifest: Pick<Manifest, 'errors'>, max = 5, ids = 3): string[] {
  const reasons = new Map<string, { head: string; message: string; ids: string[] }>();
  for (const [id, e] of Object.entries(manifest.errors)) {
    const head = [e.status, e.code].filter((v) => v !== null).join(' ');
    const message = oneLine(e.message) || '-';
    const key = `${head}\n${message}`;
    const reason = reasons.get(key) ?? { head, message, ids: [] };
    reason.ids.push(id);
    reasons.set(key, reason);
  }
  // the commonest first; of as common ones, the one seen first
  const sorted = [...reasons.values()].sort((a, b) => b.ids.length - a.ids.length);
  const lines = sorted.slice(0, max).map(({ head, message, ids: all }) => {
    const first = all.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).slice(0, ids);
    const more = all.length > ids ? ` and ${all.length - ids} more` : '';
    return `  ${plural(all.length, 'line')} failed (${head}): ${message} (${first.join(', ')}${more})`;
  });
  const rest = sorted.slice(max);
  if (rest.length) {
    const count = rest.reduce((n, r) => n + r.ids.length, 0);
    lines.push(`  ... and ${plural(count, 'line')} for ${plural(rest.length, 'other reason')}, each under "errors" in the manifest`);
  }
  return lines;
}

/** Where a run stands, kept beside the manifest: the batch and how far its results were read. */
export const stateFile = (dir: string) => join(dir, 'batch.json');
export const readState = (dir: string) => readJson<{ batchId: string; after: number }>(stateFile(dir));
export const writeState = (dir: string, state: { batchId: string; after: number }) => writeJson(stateFile(dir), state);
