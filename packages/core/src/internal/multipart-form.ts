import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MultipartForm, MultipartPart, ResolvedMultipartConfig, SavedFile } from '../multipart.js';

/** The temporary files of each response, removed when it is over (its 'close': sent, or cut). */
const uploads = new WeakMap<ServerResponse, string[]>();

/** Removes the temporary files saved for `res`; never throws (a file already gone is fine). */
function removeUploads(res: ServerResponse): Promise<void> {
  const paths = uploads.get(res);
  if (paths === undefined || paths.length === 0) return Promise.resolve();
  const removing = paths.splice(0, paths.length);
  return Promise.all(removing.map((path) => rm(path, { force: true }).catch(() => undefined))).then(() => undefined);
}

/** Records `path` as a temporary file of `res`, removed when the response is over. */
function track(res: ServerResponse, path: string): void {
  let paths = uploads.get(res);
  if (paths === undefined) {
    paths = [];
    uploads.set(res, paths);
    res.once('close', () => void removeUploads(res));
  }
  paths.push(path);
}

/** Counts the bytes that pass through it. */
class Counter extends Transform {
  size = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    callback(null, chunk);
  }
}

/**
 * Reads every part: fields into a record (a repeated name becomes an array), files into temporary
 * files with random names in `tmpDir` (the client's file name is metadata only), removed once the
 * response is over, or at once when reading fails.
 */
export async function readForm(parts: AsyncIterableIterator<MultipartPart>, res: ServerResponse, limits: ResolvedMultipartConfig): Promise<MultipartForm> {
  const fields = Object.create(null) as Record<string, string | string[] | undefined>;
  const files: SavedFile[] = [];
  const dir = limits.tmpDir ?? tmpdir();
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        const known = fields[part.fieldname];
        fields[part.fieldname] = known === undefined ? part.value : Array.isArray(known) ? [...known, part.value] : [known, part.value];
        continue;
      }
      const path = join(dir, `fw-upload-${randomBytes(16).toString('hex')}`);
      track(res, path);
      const counter = new Counter();
      // `wx`: a new file only, readable by this user alone.
      await pipeline(part.stream, counter, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
      files.push(Object.freeze({ fieldname: part.fieldname, filename: part.filename, mimeType: part.mimeType, encoding: part.encoding, path, size: counter.size }));
    }
  } catch (err) {
    await removeUploads(res);
    throw err;
  }
  return { fields, files };
}

/** Reads every part into memory: fields as strings (arrays when repeated), files as web `File`s. Bounded by the limits. */
export async function readFormInMemory(parts: AsyncIterableIterator<MultipartPart>): Promise<Record<string, unknown>> {
  const out = Object.create(null) as Record<string, unknown>;
  for await (const part of parts) {
    let value: unknown;
    if (part.type === 'field') value = part.value;
    else {
      const chunks: Buffer[] = [];
      for await (const chunk of part.stream) chunks.push(chunk as Buffer);
      value = new File(chunks, part.filename, { type: part.mimeType });
    }
    const known = out[part.fieldname];
    out[part.fieldname] = known === undefined ? value : Array.isArray(known) ? [...(known as unknown[]), value] : [known, value];
  }
  return out;
}
