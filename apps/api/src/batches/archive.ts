import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import type { Response } from 'express';
import { ZipFile } from 'yazl';
import { getObject, type BlobStore } from '@relay/core';
import { fileKey, objectLines, type BatchRecord } from '@relay/batch';
import { FILE_ID_PATTERN, parseFileId } from '@relay/jobs';

/** The relay's file links inside an output line (image urls, speech fileUri and url, in every stored format). */
const FILE_LINK = new RegExp(`/files/(${FILE_ID_PATTERN})`, 'g');

interface ManifestFile {
  path: string;
  bytes: number;
  sha256: string;
  url: string;
}

/** A name for the line's files inside the archive: its custom_id, made safe and unique. */
function namer() {
  const used = new Set<string>();
  return (customId: string) => {
    const base =
      customId
        .replace(/[^\w.-]+/g, '_')
        .replace(/^\.+/, '_')
        .slice(0, 100) || 'line';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}~${n}`;
    used.add(name);
    return name;
  };
}

/** Counts and hashes what flows through, for the manifest. */
function measure(onEnd: (bytes: number, sha256: string) => void) {
  const hash = createHash('sha256');
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      onEnd(bytes, hash.digest('hex'));
      done();
    },
  });
}

/**
 * Streams a ZIP of every file an ended batch delivered, then `manifest.json` (custom_id -> its
 * files with sizes and sha256). Files are read from the store one at a time as the archive
 * reaches them (stored, not compressed: images and WAV do not shrink), hashed on the way; the
 * manifest is written last, when every hash is known. Nothing is buffered whole.
 */
export async function sendArchive(res: Response, store: BlobStore, batch: BatchRecord) {
  const zip = new ZipFile();
  const manifest: Record<string, ManifestFile[]> = Object.create(null) as Record<string, ManifestFile[]>;
  const nameFor = namer();
  res.status(200).set({ 'Content-Type': 'application/zip', 'Content-Disposition': `attachment; filename="${batch.id}.zip"` });
  const output = zip.outputStream as Readable;
  output.pipe(res);
  let failed = false;
  let reading: Readable | undefined;
  zip.on('error', (error: Error) => {
    failed = true;
    res.destroy(error); // headers are out: a cut download is the only way to say it
  });
  res.on('close', () => {
    if (res.writableFinished) return;
    failed = true; // the client left: stop reading the store
    reading?.destroy();
  });

  if (batch.outputFileId) {
    for await (const text of objectLines(store, fileKey(batch.outputFileId))) {
      if (failed) return;
      const line = JSON.parse(text) as { custom_id: string };
      const links = [...text.matchAll(FILE_LINK)].map((m) => m[1]!);
      if (!links.length) continue;
      const dir = nameFor(line.custom_id);
      const files: ManifestFile[] = (manifest[line.custom_id] = []);
      for (const fileId of links) {
        const file = parseFileId(fileId)!;
        const entry: ManifestFile = {
          path: `files/${dir}/${file.index}.${file.extension}`,
          bytes: 0,
          sha256: '',
          url: `${batch.linkBase}/files/${fileId}`,
        };
        files.push(entry);
        zip.addReadStreamLazy(entry.path, { compress: false }, (ready) => {
          getObject(store, file.key).then(
            ({ body }) => {
              reading = body;
              ready(null, body.pipe(measure((bytes, sha256) => Object.assign(entry, { bytes, sha256 }))));
            },
            (error: unknown) => ready(error, undefined as never),
          );
        });
      }
    }
  }
  // read when its turn comes: every file before it has been hashed by then
  zip.addReadStreamLazy('manifest.json', (ready) =>
    ready(null, Readable.from([JSON.stringify({ batch: batch.id, files: manifest }, null, 2)])),
  );
  zip.end();
}
