/**
 * `buf build` for the tests that call fw with descriptors nobody on the team made: the Buf CLI
 * compiles the .proto files fw emits into a FileDescriptorSet, which a client's registry reads
 * (`createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes))` with `@bufbuild/protobuf`).
 * The binary is the calling package's own `@bufbuild/buf` (resolved from the test's working
 * directory, the package), so tooling needs no dependency on it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A .proto file as fw's generators give it: its path under the proto root and its text. */
export interface ProtoFile {
  readonly file: string;
  readonly text: string;
}

/** The `buf` binary of the package under test (its devDependency `@bufbuild/buf`). */
export function bufBinary(): string {
  const manifest = require.resolve('@bufbuild/buf/package.json', { paths: [process.cwd()] });
  return path.join(path.dirname(manifest), 'bin', 'buf');
}

/** Writes `files` under a new temporary directory made a buf module (`buf.yaml` v2); returns it. */
export async function writeBufModule(files: readonly ProtoFile[], prefix = 'fw-buf-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  for (const { file, text } of files) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  await writeFile(path.join(dir, 'buf.yaml'), 'version: v2\n');
  return dir;
}

/** `buf build` over `files`: the FileDescriptorSet's bytes (a buf image). Rejects with buf's message. */
export async function bufImage(files: readonly ProtoFile[]): Promise<Buffer> {
  const dir = await writeBufModule(files);
  try {
    const out = path.join(dir, 'image.binpb');
    await new Promise<void>((resolve, reject) => {
      execFile(bufBinary(), ['build', dir, '-o', out], (err, _stdout, stderr) => (err ? reject(new Error(`buf build failed: ${stderr}`)) : resolve()));
    });
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
