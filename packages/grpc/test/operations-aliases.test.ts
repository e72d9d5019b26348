import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import type { Operation, TypeShape } from '@fw/core';
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

/**
 * v0: getOrder, whose input and output hold objects and enums without names of their own, so
 * their messages are named from the operation (`GetOrderInputFilter`, `GetOrderOutputStatus`); v1:
 * renamed placedOrder, getOrder kept as an alias.
 */
function orders(version: 0 | 1): Operation[] {
  const status = (): TypeShape => t.enum(['placed', 'shipped']);
  return [
    operation({
      name: version === 1 ? 'placedOrder' : 'getOrder',
      ...(version === 1 ? { aliases: ['getOrder'] } : {}),
      input: t.object({ id: t.string(), filter: t.optional(t.object({ status: status() })) }),
      output: t.object({ id: t.string(), status: status(), address: t.object({ city: t.string() }) }),
      grpc: { service: 'shop.v1.OrderService' },
      handler: (given) => {
        seen.push(given);
        return { id: (given as { id: string }).id, status: 'shipped', address: { city: 'Oslo' } };
      },
    }),
  ];
}

function orderGenerations(): { v0: GeneratedProto[]; v1: GeneratedProto[] } {
  const v0 = generateProtos(orders(0));
  return { v0, v1: generateProtos(orders(1), { previous: new Map([[SHOP, v0[0]!.text]]) }) };
}

/** buf's output for `command` (`lint`, or `breaking` against `before`) on `files`, '' when it finds nothing. */
async function buf(files: GeneratedProto[], config: string, before?: GeneratedProto[]): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-grpc-alias-buf-'));
  try {
    const write = async (root: string, generated: GeneratedProto[]): Promise<void> => {
      await writeFile(path.join(root, 'buf.yaml'), config);
      for (const file of generated) {
        await mkdir(path.dirname(path.join(root, file.file)), { recursive: true });
        await writeFile(path.join(root, file.file), file.text);
      }
    };
    await mkdir(path.join(dir, 'now'));
    await write(path.join(dir, 'now'), files);
    if (before !== undefined) {
      await mkdir(path.join(dir, 'before'));
      await write(path.join(dir, 'before'), before);
    }
    const bin = path.join(path.dirname(require.resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
    const args = before === undefined ? ['lint'] : ['breaking', '--against', path.join(dir, 'before')];
    return await new Promise<string>((resolve) => {
      execFile(process.execPath, [bin, ...args], { cwd: path.join(dir, 'now'), env: { ...process.env, BUF_CACHE_DIR: path.join(dir, '.cache') } }, (err, stdout, stderr) => {
        resolve(err === null ? '' : `${stdout}${stderr}` || err.message);
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a renamed operation whose messages are named after it', () => {
  it('keeps the messages of its former name, with the same fields, for the old RPC', () => {
    const text = orderGenerations().v1[0]!.text;
    expect(text).toContain('rpc GetOrder(GetOrderRequest) returns (GetOrderResponse) {');
    expect(text).toContain('message GetOrderRequest {\n  optional string id = 1;\n  optional GetOrderInputFilter filter = 2;\n}');
    expect(text).toContain('message GetOrderResponse {\n  string id = 1;\n  GetOrderOutputStatus status = 2;\n  GetOrderOutputAddress address = 3;\n}');
    expect(text).toContain('message GetOrderOutputAddress {\n  string city = 1;\n}');
    expect(text).toContain('enum GetOrderOutputStatus {\n  GET_ORDER_OUTPUT_STATUS_UNSPECIFIED = 0;');
    expect(text).toContain('message GetOrderInputFilter {\n  optional GetOrderInputFilterStatus status = 1;\n}');
    // The new RPC's own, named after the new name.
    expect(text).toContain('message PlacedOrderResponse {\n  string id = 1;\n  PlacedOrderOutputStatus status = 2;\n  PlacedOrderOutputAddress address = 3;\n}');
  });

  it('is compatible to buf breaking (FILE) and findProtoChanges, and passes buf lint', async () => {
    const { v0, v1 } = orderGenerations();
    expect(findProtoChanges(new Map([[SHOP, v0[0]!.text]]), new Map([[SHOP, v1[0]!.text]])).filter((change) => change.breaks !== undefined)).toEqual([]);
    expect(await buf(v1, 'version: v2\nbreaking:\n  use:\n    - FILE\n', v0)).toBe('');
    expect(await buf(v1, 'version: v2\nlint:\n  use:\n    - STANDARD\n')).toBe('');
  });

  describe('served', () => {
    let dir: string;
    let server: StartedOperations;
    let oldClient: grpc.Client;
    let newClient: grpc.Client;

    beforeAll(async () => {
      const { v0 } = orderGenerations();
      dir = await mkdtemp(path.join(os.tmpdir(), 'fw-grpc-alias-orders-'));
      await mkdir(path.join(dir, 'shop', 'v1'), { recursive: true });
      await writeFile(path.join(dir, SHOP), v0[0]!.text);
      server = await startOperations(orders(1), { protoOut: dir });
      oldClient = generatedClient(v0, 'shop.v1.OrderService', server.target);
      newClient = generatedClient(server.grpc.generateProtos(), 'shop.v1.OrderService', server.target);
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

    it('answers a client generated before the rename, enum values under their former names', async () => {
      const { reply } = await unary(oldClient, 'GetOrder', { id: 'o1', filter: { status: 'GET_ORDER_INPUT_FILTER_STATUS_PLACED' } });
      expect(seen).toEqual([{ id: 'o1', filter: { status: 'placed' } }]);
      expect(reply).toEqual({ id: 'o1', status: 'GET_ORDER_OUTPUT_STATUS_SHIPPED', address: { city: 'Oslo' } });
    });

    it('answers a client generated after it on both RPCs', async () => {
      expect((await unary(newClient, 'PlacedOrder', { id: 'o2', filter: { status: 'PLACED_ORDER_INPUT_FILTER_STATUS_PLACED' } })).reply).toEqual({
        id: 'o2',
        status: 'PLACED_ORDER_OUTPUT_STATUS_SHIPPED',
        address: { city: 'Oslo' },
      });
      expect((await unary(newClient, 'GetOrder', { id: 'o3' })).reply).toEqual({ id: 'o3', status: 'GET_ORDER_OUTPUT_STATUS_SHIPPED', address: { city: 'Oslo' } });
      expect(seen).toEqual([{ id: 'o2', filter: { status: 'placed' } }, { id: 'o3' }]);
    });
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
