import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import type { Operation } from '@fw/core';
import { findProtoChanges, generateProtos, type GeneratedProto } from '../src/index.js';
import { unary } from './helpers.js';
import { operation, t } from './fixtures/operation.js';
import { generatedClient, startOperations, type StartedOperations } from './operations-helpers.js';

/**
 * A renamed operation keeps its former name (`aliases`): the old RPC stays in the service,
 * deprecated, at its old place, with its request and response numbered as before, and a client
 * generated before the rename still calls it.
 */

const SHOP = 'shop/v1/shop.proto';
const seen: unknown[] = [];

const Book = t.object({ id: t.string(), title: t.string() }, 'Book');

/** v0: getBook(id, isbn); v1: isbn removed, note added (number 3); v2: renamed fetchBook, getBook kept as an alias. */
function app(version: 0 | 1 | 2): Operation[] {
  const input = version === 0 ? t.object({ id: t.string(), isbn: t.optional(t.string()) }) : t.object({ id: t.string(), note: t.optional(t.string()) });
  return [
    operation({
      name: version === 2 ? 'fetchBook' : 'getBook',
      ...(version === 2 ? { aliases: ['getBook'] } : {}),
      input,
      output: Book,
      grpc: { service: 'shop.v1.CatalogService' },
      handler: (given) => {
        seen.push(given);
        return { id: (given as { id: string }).id, title: 'Dune' };
      },
    }),
  ];
}

function generations(): { v1: GeneratedProto[]; v2: GeneratedProto[] } {
  const v0 = generateProtos(app(0))[0]!.text;
  const v1 = generateProtos(app(1), { previous: new Map([[SHOP, v0]]) });
  const v2 = generateProtos(app(2), { previous: new Map([[SHOP, v1[0]!.text]]) });
  return { v1, v2 };
}

describe('a renamed operation with its former name in aliases, in the generated proto', () => {
  it('keeps the old RPC, deprecated as renamed, beside the new one', () => {
    const text = generations().v2[0]!.text;
    expect(text).toContain(
      'service CatalogService {\n  rpc FetchBook(FetchBookRequest) returns (FetchBookResponse);\n  // Deprecated: renamed to FetchBook\n  rpc GetBook(GetBookRequest) returns (GetBookResponse) {\n    option deprecated = true;\n  }\n}',
    );
  });

  it('numbers the old RPC\'s request and response as before, reserved numbers included', () => {
    const { v1, v2 } = generations();
    expect(v1[0]!.text).toContain('message GetBookRequest {\n  optional string id = 1;\n  optional string note = 3;\n  reserved 2;\n  reserved "isbn"; // was string\n}');
    expect(v2[0]!.text).toContain('message GetBookRequest {\n  optional string id = 1;\n  optional string note = 3;\n  reserved 2;\n  reserved "isbn"; // was string\n}');
    expect(v2[0]!.text).toContain('message GetBookResponse {\n  Book book = 1;\n}');
    // The new RPC's messages are new: numbered from 1.
    expect(v2[0]!.text).toContain('message FetchBookRequest {\n  optional string id = 1;\n  optional string note = 2;\n}');
  });

  it('is a safe change by the breaking-change check, where the rename alone removes an rpc', () => {
    const { v1, v2 } = generations();
    const before = new Map([[SHOP, v1[0]!.text]]);
    const renamedOnly = operation({ name: 'fetchBook', input: t.object({ id: t.string(), note: t.optional(t.string()) }), output: Book, grpc: { service: 'shop.v1.CatalogService' }, handler: () => undefined });
    const without = generateProtos([renamedOnly], { previous: before })[0]!.text;
    expect(findProtoChanges(before, new Map([[SHOP, without]])).filter((change) => change.breaks !== undefined).map((change) => change.message)).toEqual([
      expect.stringContaining('GetBook'),
      'message shop.v1.GetBookRequest was removed',
      'message shop.v1.GetBookResponse was removed',
    ]);
    expect(findProtoChanges(before, new Map([[SHOP, v2[0]!.text]])).filter((change) => change.breaks !== undefined)).toEqual([]);
  });

  it('passes buf lint (STANDARD) with the kept rpc', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-grpc-alias-lint-'));
    try {
      await writeFile(path.join(dir, 'buf.yaml'), 'version: v2\nlint:\n  use:\n    - STANDARD\n');
      await mkdir(path.join(dir, 'shop', 'v1'), { recursive: true });
      await writeFile(path.join(dir, SHOP), generations().v2[0]!.text);
      const buf = path.join(path.dirname(require.resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
      const output = await new Promise<string>((resolve) => {
        execFile(process.execPath, [buf, 'lint', '--error-format=json'], { cwd: dir, env: { ...process.env, BUF_CACHE_DIR: path.join(dir, '.cache') } }, (err, stdout, stderr) => {
          resolve(err === null ? '' : `${stdout}${stderr}` || err.message);
        });
      });
      expect(output).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('adds no gRPC method for a former name when grpc.method is given, which never followed the name', () => {
    const op = operation({ name: 'fetchBook', aliases: ['getBook'], input: t.object({}), output: Book, grpc: { service: 'shop.v1.CatalogService', method: 'Fetch' }, handler: () => undefined });
    expect(generateProtos([op])[0]!.text).toContain('service CatalogService {\n  rpc Fetch(FetchRequest) returns (FetchResponse);\n}');
  });

  it('refuses a former name whose method another operation serves', () => {
    const ops = [
      operation({ name: 'fetchBook', aliases: ['getBook'], input: t.object({}), output: Book, grpc: { service: 'shop.v1.CatalogService' }, handler: () => undefined }),
      operation({ name: 'getBook', input: t.object({}), output: Book, grpc: { service: 'shop.v1.CatalogService' }, handler: () => undefined }),
    ];
    expect(() => generateProtos(ops)).toThrow(
      'the method shop.v1.CatalogService/GetBook is already served by operation "getBook": drop "getBook" from the aliases of operation "fetchBook" or give one of them another grpc.method',
    );
  });
});

describe('a client generated before the rename calls the server generated after it', () => {
  let dir: string;
  let server: StartedOperations;
  let oldClient: grpc.Client;
  let newClient: grpc.Client;

  beforeAll(async () => {
    const { v1 } = generations();
    dir = await mkdtemp(path.join(os.tmpdir(), 'fw-grpc-alias-'));
    await mkdir(path.join(dir, 'shop', 'v1'), { recursive: true });
    await writeFile(path.join(dir, SHOP), v1[0]!.text);
    server = await startOperations(app(2), { protoOut: dir });
    oldClient = generatedClient(v1, 'shop.v1.CatalogService', server.target);
    newClient = generatedClient(server.grpc.generateProtos(), 'shop.v1.CatalogService', server.target);
  });

  afterAll(async () => {
    oldClient.close();
    newClient.close();
    await server.app.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    seen.length = 0;
  });

  it('runs the renamed operation for the old method, every field of the old request in its own place', async () => {
    const { reply } = await unary(oldClient, 'GetBook', { id: 'b1', note: 'gift' });
    expect(seen).toEqual([{ id: 'b1', note: 'gift' }]);
    expect(reply).toEqual({ book: { id: 'b1', title: 'Dune' } });
  });

  it('serves the new method to a client generated after the rename', async () => {
    const { reply } = await unary(newClient, 'FetchBook', { id: 'b2', note: 'new' });
    expect(seen).toEqual([{ id: 'b2', note: 'new' }]);
    expect(reply).toEqual({ book: { id: 'b2', title: 'Dune' } });
  });
});
