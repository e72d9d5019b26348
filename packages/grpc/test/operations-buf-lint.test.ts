import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FieldShape, ObjectShape, Operation, TypeShape } from '@fw/core';
import { generateProtos, type GeneratedProto } from '../src/index.js';
import { operation, t } from './fixtures/operation.js';

/**
 * Generated protos against `buf lint` with its default (STANDARD) rules: the test fails on any
 * finding. The app has what apps have: several services and packages, enums, nested and shared
 * objects, lists, maps, optional and nullable fields, camelCase keys, a schema that contains itself,
 * outputs that are not objects, a named input, a method two services share, a stream, deprecations;
 * and a second version of it numbered from the first (reserved numbers and names).
 */

const BUF = path.join(path.dirname(require.resolve('@bufbuild/buf/package.json')), 'bin', 'buf');

function bufLint(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BUF, 'lint', '--error-format=json'], { cwd: dir, env: { ...process.env, BUF_CACHE_DIR: path.join(dir, '.cache') } }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, output: `${stdout}${stderr}` });
    });
  });
}

async function lint(files: readonly GeneratedProto[]): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fw-buf-lint-'));
  try {
    await writeFile(path.join(dir, 'buf.yaml'), 'version: v2\nlint:\n  use:\n    - STANDARD\n');
    for (const file of files) {
      await mkdir(path.dirname(path.join(dir, file.file)), { recursive: true });
      await writeFile(path.join(dir, file.file), file.text);
    }
    return await bufLint(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const noop = (): undefined => undefined;

function app(version: 1 | 2): Operation[] {
  const CATALOG = { service: 'acme.bookstore.v1.CatalogService' };
  const ORDERS = { service: 'acme.bookstore.v1.OrderService' };
  const Genre = t.enum(version === 1 ? ['fiction', 'non-fiction', 'poetry'] : ['fiction', 'poetry', 'sci-fi'], 'Genre');
  const Author = t.object({ name: t.string(), born: t.optional(t.datetime()), homePage: t.nullable(t.string()) }, version === 1 ? 'Author' : 'Writer');
  const isbn: FieldShape = { name: 'isbn10', type: t.string(), optional: true, deprecated: true };
  const price: FieldShape = { name: 'priceEur', type: t.float(), optional: false, deprecationReason: 'Use priceCents' };
  const bookFields: FieldShape[] = [
    { name: 'id', type: t.string(), optional: false },
    { name: 'title', type: t.string(), optional: false },
    { name: 'genre', type: Genre, optional: false },
    { name: 'author', type: Author, optional: false },
    { name: 'tags', type: t.list(t.string()), optional: false },
    { name: 'pricesByCurrency', type: t.map(t.int()), optional: false },
    { name: 'priceCents', type: t.int32(), optional: false },
    { name: 'HTTPStatus', type: t.int32(), optional: true },
    { name: 'cover', type: t.object({ url: t.string(), widthPx: t.int32() }), optional: true },
    isbn,
    ...(version === 1 ? [price] : []),
  ];
  const Book: ObjectShape = { kind: 'object', name: 'Book', fields: bookFields, source: {}, description: 'A book in the catalogue' };
  const Category: ObjectShape = { kind: 'object', name: 'Category', fields: [], source: {} };
  (Category.fields as FieldShape[]).push({ name: 'name', type: t.string(), optional: false }, { name: 'children', type: t.list(Category), optional: false });
  const BookRef = t.object({ id: t.string() }, 'BookRef');
  const Line = t.object({ bookId: t.string(), quantity: t.int32() }, 'OrderLine');
  const Order = t.object({ id: t.string(), lines: t.list(Line), status: t.enum(['open', 'paid', 'shipped'], 'OrderStatus'), totalCents: t.int() }, 'Order');
  const ops: Operation[] = [
    operation({ name: 'getBook', description: 'One book by id', input: BookRef, output: Book, grpc: CATALOG, handler: noop }),
    operation({ name: 'listBooks', input: t.object({ genre: t.optional(Genre), limit: t.optional(t.int32()), pageToken: t.optional(t.string()) }), output: t.list(Book), grpc: CATALOG, handler: noop }),
    operation({ name: 'findBook', input: t.object({ title: t.string() }), output: t.nullable(Book), grpc: CATALOG, handler: noop }),
    { ...operation({ name: 'countBooks', input: t.object({}), output: t.int(), grpc: CATALOG, handler: noop }), deprecationReason: 'Use stats' },
    operation({ name: 'genres', input: t.object({}), output: t.list(Genre), grpc: CATALOG, handler: noop }),
    operation({ name: 'priceTable', input: t.object({ currency: t.string() }), output: t.map(t.float()), grpc: CATALOG, handler: noop }),
    operation({ name: 'categories', input: t.object({ root: t.optional(t.string()) }), output: Category, grpc: CATALOG, handler: noop }),
    operation({ name: 'listOrders', input: t.object({ status: t.optional(t.enum(['open', 'closed'])) }), output: t.list(Order), grpc: { ...ORDERS, method: 'List' }, handler: noop }),
    operation({ name: 'listShelves', input: t.object({}), output: t.list(t.object({ name: t.string(), books: t.list(BookRef) })), grpc: { ...CATALOG, method: 'List' }, handler: noop }),
    operation({ name: 'placeOrder', input: t.object({ lines: t.list(Line), note: t.optional(t.string()), giftWrap: t.boolean() }), output: Order, grpc: ORDERS, handler: noop }),
    { ...operation({ name: 'watchOrders', input: t.object({ since: t.optional(t.datetime()) }), output: Order, grpc: ORDERS, handler: noop }), stream: true },
    operation({ name: 'stats', input: t.object({}), output: t.object({ books: t.int(), byGenre: t.map(t.int()), lastOrder: t.nullable(t.datetime()) }), grpc: { service: 'acme.admin.v1.AdminService' }, handler: noop }),
  ];
  return version === 1 ? ops : [...ops, operation({ name: 'removeBook', input: BookRef, output: t.object({ removed: t.boolean() }), grpc: CATALOG, handler: noop })];
}

describe('generated protos pass buf lint (STANDARD)', () => {
  const v1 = generateProtos(app(1));

  it('lays files out by package directory', () => {
    expect(v1.map((f) => f.file)).toEqual(['acme/admin/v1/admin.proto', 'acme/bookstore/v1/bookstore.proto']);
  });

  it('reports nothing for a representative app', async () => {
    await expect(lint(v1)).resolves.toEqual({ code: 0, output: '' });
  }, 30_000);

  it('reports nothing for its next version, numbered from the first: removals, a rename, a new operation', async () => {
    const v2 = generateProtos(app(2), { previous: new Map(v1.map((f) => [f.file, f.text])) });
    expect(v2.find((f) => f.file.endsWith('bookstore.proto'))!.text).toContain('reserved "price_eur"; // was double');
    await expect(lint(v2)).resolves.toEqual({ code: 0, output: '' });
  }, 30_000);

  it('finds what breaks the rules (the check can fail)', async () => {
    const bad: TypeShape = t.object({ x: t.string() });
    const files = generateProtos([operation({ name: 'get', input: t.object({}), output: bad, grpc: { service: 'shop.Catalog' }, handler: noop })]);
    const result = await lint(files);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('PACKAGE_VERSION_SUFFIX');
    expect(result.output).toContain('SERVICE_SUFFIX');
  }, 30_000);
});
