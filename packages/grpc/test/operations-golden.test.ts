import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FieldShape, ObjectShape, Operation, TypeShape } from '@fw/core';
import { generateProtos } from '../src/index.js';
import { operation, t, type Optional } from './fixtures/operation.js';

/**
 * Field numbers across versions of an app, against committed golden files (test/golden/<step>/):
 * each step is generated with the previous step's file as the previous generation. With
 * UPDATE_GOLDEN=1 the files are written instead (review the diff: a number that moves is a bug).
 */

const GOLDEN = path.join(__dirname, 'golden');

function golden(step: string, file = 'bookstore.proto'): string {
  return readFileSync(path.join(GOLDEN, step, file), 'utf8');
}

/** The one file `ops` generate, numbered from `previous` (the golden file of that step, read where it was generated: `at`). */
function generate(ops: Operation[], previous?: string, at = 'bookstore/bookstore.proto', file = 'bookstore.proto'): string {
  const files = generateProtos(ops, previous === undefined ? {} : { previous: new Map([[at, golden(previous, file)]]) });
  expect(files).toHaveLength(1);
  return files[0]!.text;
}

function expectGolden(text: string, step: string, file = 'bookstore.proto'): void {
  const target = path.join(GOLDEN, step, file);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(target)) {
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  expect(text).toBe(golden(step, file));
}

/** The bookstore's operations with Book's fields and Genre's values in the order given. */
function bookstore(bookFields: Array<[string, TypeShape | Optional]>, genres: string[]): Operation[] {
  const Genre = t.enum(genres, 'Genre');
  const Author = t.object({ name: t.string() }, 'Author');
  const known: Record<string, TypeShape | Optional> = { genre: Genre, author: Author };
  const Book = t.object(Object.fromEntries(bookFields.map(([name, type]) => [name, known[name] ?? type])), 'Book');
  return [
    operation({ name: 'getBook', description: 'One book by id', input: t.object({ id: t.string() }), output: Book, grpc: { service: 'bookstore.Catalog' }, handler: () => undefined }),
    operation({ name: 'listBooks', input: t.object({ genre: t.optional(Genre) }), output: t.list(Book), grpc: { service: 'bookstore.Catalog' }, handler: () => undefined }),
  ];
}

const placeholder = t.string();
const v1Fields: Array<[string, TypeShape | Optional]> = [
  ['id', t.string()],
  ['title', t.string()],
  ['genre', placeholder],
  ['author', placeholder],
  ['tags', t.list(t.string())],
  ['price', t.float()],
];

describe('stable field numbers (golden files)', () => {
  it('v1: numbers follow declaration order', () => {
    expectGolden(generate(bookstore(v1Fields, ['fiction', 'non-fiction'])), 'v1');
  });

  it('reordering keys and enum values changes nothing', () => {
    const reordered = [...v1Fields].reverse();
    expect(generate(bookstore(reordered, ['non-fiction', 'fiction']), 'v1')).toBe(golden('v1'));
  });

  it('v2: added fields and enum values take new numbers after the highest', () => {
    const text = generate(bookstore([['isbn', t.string()], ...v1Fields, ['rating', t.optional(t.float())]], ['poetry', 'fiction', 'non-fiction']), 'v1');
    expectGolden(text, 'v2-addition');
    expect(text).toContain('  string isbn = 7;\n  optional double rating = 8;');
    expect(text).toContain('  GENRE_POETRY = 3;');
  });

  it('v3: removed fields and enum values become reserved numbers and names, each name with the kind it had', () => {
    const fields = v1Fields.filter(([name]) => name !== 'tags');
    const text = generate(bookstore([...fields, ['rating', t.optional(t.float())]], ['non-fiction', 'poetry']), 'v2-addition');
    expectGolden(text, 'v3-removal');
    expect(text).toContain('  reserved 5, 7;\n  reserved "isbn"; // was string\n  reserved "tags"; // was repeated string');
    expect(text).toContain('  reserved 1;\n  reserved "GENRE_FICTION";');
  });

  it('v4: a reserved name coming back with its kind gets a new number; a field whose wire kind changed is renumbered', () => {
    const fields = v1Fields.filter(([name]) => name !== 'tags' && name !== 'price');
    const text = generate(bookstore([...fields, ['price', t.string()], ['rating', t.optional(t.float())], ['tags', t.list(t.string())]], ['non-fiction', 'poetry', 'fiction']), 'v3-removal');
    expectGolden(text, 'v4-return');
    expect(text).toContain('  repeated string tags = 10;');
    expect(text).toContain('  string price = 9;');
    expect(text).toContain('  reserved 5 to 7;\n  reserved "isbn"; // was string');
    expect(text).toContain('  GENRE_FICTION = 4;');
  });

  it('a file generated before requests and responses were named per RPC (at bookstore.proto) keeps its numbers: the request and response take those of the messages the RPC had', () => {
    const text = generate(bookstore(v1Fields, ['fiction', 'non-fiction']), 'v0-legacy', 'bookstore.proto');
    expectGolden(text, 'v1-from-legacy');
    // GetBook returned Book itself: its response now holds Book in a field, and every number of the old response is reserved, so an old client reads nothing rather than garbage.
    expect(text).toContain('message GetBookResponse {\n  Book book = 7;\n  reserved 1 to 6;');
    expect(text).toContain('message GetBookRequest {\n  optional string id = 1;\n}');
    expect(text).toContain('  repeated string tags = 5;\n  double price = 6;\n}');
  });
});

/**
 * An order app evolved as teams do: a removal, a rename by `.meta({ id })`, a rename back, and a
 * derived name that changes with its parent's. `ship_to` and `billing` keep what they carry, so
 * their messages keep their numbers whatever they are named.
 */
function orders(step: { address?: string; keys?: string[]; order?: string; orderKeys?: string[]; note?: TypeShape | null }): Operation[] {
  const fields: Record<string, TypeShape | Optional> = { street: t.string(), city: t.string(), zip: t.optional(t.float()) };
  if (step.note !== null) fields.note = step.note ?? t.string();
  const keys = step.keys ?? ['street', 'city', 'note', 'zip'];
  const Address = t.object(Object.fromEntries(keys.filter((k) => k in fields).map((k) => [k, fields[k]!])), step.address ?? 'Address');
  const billing = step.orderKeys === undefined ? t.object({ name: t.string(), vat: t.optional(t.string()) }) : t.object({ vat: t.optional(t.string()), name: t.string() });
  const orderFields: Record<string, TypeShape> = { id: t.string(), shipTo: Address, billing };
  const Order = t.object(Object.fromEntries((step.orderKeys ?? ['id', 'shipTo', 'billing']).map((k) => [k, orderFields[k]!])), step.order ?? 'Order');
  return [
    operation({ name: 'placeOrder', input: t.object({ shipTo: Address, bookIds: t.list(t.string()) }), output: Order, grpc: { service: 'shop.v1.OrderService' }, handler: () => undefined }),
    operation({ name: 'getOrder', input: t.object({ id: t.string() }), output: Order, grpc: { service: 'shop.v1.OrderService' }, handler: () => undefined }),
  ];
}

const SHOP = 'shop/v1/shop.proto';

describe('renamed messages keep their numbers (golden files)', () => {
  it('o1: the first version', () => {
    expectGolden(generate(orders({}), undefined, SHOP, 'shop.proto'), 'o1', 'shop.proto');
  });

  it('o2: a removed field is reserved with its kind', () => {
    const text = generate(orders({ note: null }), 'o1', SHOP, 'shop.proto');
    expectGolden(text, 'o2-removal', 'shop.proto');
    expect(text).toContain('message Address {\n  optional string street = 1;\n  optional string city = 2;\n  optional double zip = 4;\n  reserved 3;\n  reserved "note"; // was string\n}');
  });

  it('o3: a message renamed with .meta({ id }) takes the numbers of the message at its places, whatever its key order', () => {
    const text = generate(orders({ note: null, address: 'PostalAddress', keys: ['zip', 'city', 'street'] }), 'o2-removal', SHOP, 'shop.proto');
    expectGolden(text, 'o3-rename', 'shop.proto');
    expect(text).toContain('message PostalAddress {\n  optional string street = 1;\n  optional string city = 2;\n  optional double zip = 4;\n  reserved 3;\n  reserved "note"; // was string\n}');
    expect(text).not.toContain('message Address');
  });

  it('o4: a name changed back keeps the numbers too', () => {
    const text = generate(orders({ note: null }), 'o3-rename', SHOP, 'shop.proto');
    expectGolden(text, 'o4-rename-back', 'shop.proto');
    expect(text).toBe(golden('o2-removal', 'shop.proto'));
  });

  it('o5: a derived name that changes with its parent (Order → Purchase renames OrderBilling → PurchaseBilling) keeps the numbers of both', () => {
    // Keys reordered too: numbered from scratch, every number would move.
    const text = generate(orders({ note: null, order: 'Purchase', orderKeys: ['billing', 'shipTo', 'id'] }), 'o4-rename-back', SHOP, 'shop.proto');
    expectGolden(text, 'o5-derived-rename', 'shop.proto');
    expect(text).toContain('message PurchaseBilling {\n  string name = 1;\n  optional string vat = 2;\n}');
    expect(text).toContain('message Purchase {\n  string id = 1;\n  Address ship_to = 2;\n  PurchaseBilling billing = 3;\n}');
    // The response's field is named after its message, and stays the same field.
    expect(text).toContain('message GetOrderResponse {\n  Purchase purchase = 1;\n}');
  });

  it('refuses a reserved name that comes back with another kind, naming the message, the field and both kinds', () => {
    expect(() => generate(orders({ note: t.int32() }), 'o2-removal', SHOP, 'shop.proto')).toThrow(
      'gRPC operations: message Address, field "note": the name was removed when it was a string field and is reserved in shop/v1/shop.proto; it cannot come back as an int field',
    );
    // With its kind it comes back, under a new number.
    expect(generate(orders({}), 'o2-removal', SHOP, 'shop.proto')).toContain('  optional string note = 5;');
  });

  it('a message at a place two messages held before keeps only the numbers both agree on', () => {
    // v1: two schemas at ship_to (Address) and billing (Billing); v2: one schema at both.
    const Billing = t.object({ name: t.string(), city: t.string() }, 'Billing');
    const before = generateProtos([
      operation({ name: 'getOrder', input: t.object({}), output: t.object({ shipTo: t.object({ street: t.string(), city: t.string() }, 'Address'), billing: Billing }, 'Order'), grpc: { service: 'shop.v1.OrderService' }, handler: () => undefined }),
    ])[0]!.text;
    const Place = t.object({ street: t.string(), city: t.string(), name: t.string() }, 'Place');
    const after = generateProtos(
      [operation({ name: 'getOrder', input: t.object({}), output: t.object({ shipTo: Place, billing: Place }, 'Order'), grpc: { service: 'shop.v1.OrderService' }, handler: () => undefined })],
      { previous: new Map([[SHOP, before]]) },
    )[0]!.text;
    // street was 1 and city 2 in Address; name 1 and city 2 in Billing: only city agrees.
    expect(after).toContain('message Place {\n  optional string city = 2;\n  optional string street = 3;\n  optional string name = 4;\n  reserved 1;\n}'.replace(/optional /g, ''));
  });
});

describe('renamed enums keep their numbers', () => {
  it('finds each value by its name after the enum prefix (GENRE_FICTION → BOOK_GENRE_FICTION)', () => {
    const ops = (name: string, values: string[]): Operation[] => [
      operation({ name: 'getBook', input: t.object({}), output: t.object({ genre: t.enum(values, name) }, 'Book'), grpc: { service: 'shop.v1.CatalogService' }, handler: () => undefined }),
    ];
    const before = generateProtos(ops('Genre', ['poetry', 'fiction', 'drama']))[0]!.text;
    const after = generateProtos(ops('BookGenre', ['fiction', 'poetry']), { previous: new Map([[SHOP, before]]) })[0]!.text;
    expect(after).toContain('enum BookGenre {\n  BOOK_GENRE_UNSPECIFIED = 0;\n  BOOK_GENRE_POETRY = 1;\n  BOOK_GENRE_FICTION = 2;\n  reserved 3;\n  reserved "GENRE_DRAMA";\n}');
  });
});

describe('deprecation and streams in the generated proto', () => {
  it('marks the RPC of a deprecated operation deprecated, with the reason as a comment', () => {
    const op = { ...operation({ name: 'getBook', input: t.object({}), output: t.object({}), grpc: { service: 'shop.v1.CatalogService' }, handler: () => undefined }), deprecationReason: 'Use FetchBook' } as Operation;
    expect(generateProtos([op])[0]!.text).toContain('service CatalogService {\n  // Deprecated: Use FetchBook\n  rpc GetBook(GetBookRequest) returns (GetBookResponse) {\n    option deprecated = true;\n  }\n}');
  });

  it('marks a deprecated field [deprecated = true], with the reason as a comment', () => {
    const old: FieldShape = { name: 'isbn10', type: t.string(), optional: true, deprecated: true };
    const why: FieldShape = { name: 'price', type: t.float(), optional: false, deprecationReason: 'Use priceCents' };
    const Book: ObjectShape = { kind: 'object', name: 'Book', fields: [{ name: 'id', type: t.string(), optional: false }, old, why], source: {} };
    const text = generateProtos([operation({ name: 'getBook', input: t.object({}), output: Book, grpc: { service: 'shop.v1.CatalogService' }, handler: () => undefined })])[0]!.text;
    expect(text).toContain('message Book {\n  string id = 1;\n  optional string isbn10 = 2 [deprecated = true];\n  // Deprecated: Use priceCents\n  double price = 3 [deprecated = true];\n}');
  });

  it('prints a streaming operation as a server-streaming RPC, numbered as a unary one', () => {
    const ops = (stream: boolean): Operation[] => [
      { ...operation({ name: 'watchOrders', input: t.object({ since: t.string() }), output: t.object({ id: t.string() }), grpc: { service: 'shop.v1.OrderService' }, handler: () => undefined }), stream },
    ];
    const unary = generateProtos(ops(false))[0]!.text;
    const text = generateProtos(ops(true), { previous: new Map([[SHOP, unary]]) })[0]!.text;
    expect(text).toContain('  rpc WatchOrders(WatchOrdersRequest) returns (stream WatchOrdersResponse);');
    expect(text.replace('returns (stream ', 'returns (')).toBe(unary);
  });
});
