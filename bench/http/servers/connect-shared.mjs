// The Connect suite's service, defined once: fw serves it as an operation (its generated proto),
// and @connectrpc/connect-node's connectNodeAdapter serves the same proto, compiled by `buf build`,
// with a plain handler. Both answer the same message. The streaming suite takes its server-stream
// service (`bench.Ticker`, from streaming/operation.mjs) through the same `catalogService()`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { defineOperation } from '@fw/app';
import { generateProtos } from '@fw/app/grpc';

/** What GetBook answers, on both servers. */
export const BOOK = Object.freeze({ id: 'b1', title: 'The Left Hand of Darkness', priceCents: 1299 });

export const getBook = defineOperation({
  name: 'getBook',
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), title: z.string(), priceCents: z.int32() }).meta({ id: 'Book' }),
  grpc: { service: 'bench.v1.Catalog' },
  handler: ({ id }) => ({ ...BOOK, id }),
});

/**
 * A service as connect-node needs it: the descriptor `buf build` makes of the proto fw generates
 * for `operations`. By default `bench.v1.Catalog` (GetBook).
 */
export function catalogService({ operations = [getBook], service: name = 'bench.v1.Catalog' } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'fw-bench-connect-'));
  try {
    for (const { file, text } of generateProtos(operations)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    writeFileSync(join(dir, 'buf.yaml'), 'version: v2\n');
    const buf = join(dirname(createRequire(import.meta.url).resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
    execFileSync(buf, ['build', dir, '-o', join(dir, 'image.binpb')]);
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(join(dir, 'image.binpb'))));
    const service = registry.getService(name);
    if (service === undefined) throw new Error(`${name} is not in the buf image`);
    return service;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
