import { Application, type Operation } from '@fw/core';
import { defineOperation } from '@fw/validate';
import { z } from 'zod';
import { openapi, type OpenAPIDocument } from '../src/index.js';
import { validateOpenAPI } from './helpers.js';

// The differential test: operations are documented from their type shapes (the ones GraphQL and
// gRPC are generated from); a `convert` option that converts nothing keeps the former path (zod's
// own toJSONSchema on `op.schemas`). Both documents must be equal, but for the differences the
// README lists (DOCUMENTED_DIFFERENCES below, one normalisation each). apps/demo/test/openapi-shapes.test.ts
// runs the same comparison on every operation of the demo.

const handler = (): never => {
  throw new Error('not called');
};

const Genre = z.enum(['fiction', 'science']).meta({ id: 'Genre', description: 'A shelf' });
const Author = z.object({ name: z.string().min(1).describe('Full name'), born: z.int32().optional() }).meta({ id: 'Author', description: 'Who wrote it' });
const Money = z.object({ amount: z.number().nonnegative().multipleOf(0.01), currency: z.string().length(3).regex(/^[A-Z]+$/) }).meta({ id: 'Money' });
const Book = z
  .object({
    id: z.uuid().meta({ examples: ['5b7c0c1e-8a3f-4e39-9d1a-2f1e7a1c2b3d'], graphql: { type: 'ID' } }),
    title: z.string().min(1).max(200),
    author: Author,
    coAuthors: z.array(Author).max(3),
    genre: Genre,
    price: Money.nullable(),
    tags: z.record(z.string(), z.string().max(20)),
    ratings: z.record(z.string().min(1), z.int().min(1).max(5)),
    published: z.date().describe('When it came out'),
    isbn: z.string().regex(/^\d{13}$/).optional().describe('ISBN-13'),
    oldId: z.string().optional().meta({ deprecated: true, deprecationReason: 'use id' }),
    kind: z.literal(['paper', 'ebook']),
  })
  .meta({ id: 'Book', description: 'A book', title: 'Book' });

/** One operation for each construct the shapes accept, on the input side and the output side. */
function corpus(): Operation[] {
  const strings = z.object({
    min: z.string().min(2),
    max: z.string().max(9),
    length: z.string().length(4),
    regex: z.string().regex(/^a+$/),
    twoRegexes: z.string().regex(/a/).regex(/b/),
    startsWith: z.string().startsWith('x-'),
    email: z.email(),
    legacyEmail: z.string().email(),
    uuid: z.uuid(),
    guid: z.guid(),
    url: z.url(),
    datetime: z.iso.datetime(),
    localDatetime: z.iso.datetime({ local: true }),
    date: z.iso.date(),
    time: z.iso.time(),
    ipv4: z.ipv4(),
    ipv6: z.ipv6(),
    cuid: z.cuid(),
    nanoid: z.nanoid(),
    template: z.templateLiteral(['id-', z.number()]),
    trimmed: z.string().trim().toLowerCase().min(1),
    described: z.string().describe('a plain string'),
    titled: z.string().meta({ title: 'Titled', examples: ['a', 'b'], 'x-internal': true }),
    metaBounds: z.string().meta({ minLength: 1, maxLength: 8 }),
  });
  const numbers = z.object({
    float: z.number(),
    bounded: z.number().min(0).max(10),
    exclusive: z.number().gt(0).lt(1),
    both: z.number().gt(1).gte(0).lte(5).lt(9),
    multiple: z.number().multipleOf(5),
    twoMultiples: z.number().multipleOf(2).multipleOf(3),
    int: z.int(),
    int32: z.int32(),
    uint32: z.uint32(),
    float32: z.float32(),
    intBounded: z.number().int().positive().max(100),
    coerced: z.coerce.number().int().min(1).max(100).default(20),
    metaBounds: z.int32().meta({ minimum: 1, maximum: 9, examples: [3] }),
  });
  const others = z.object({
    flag: z.boolean(),
    flagDefault: z.boolean().default(false),
    when: z.date(),
    whenCoerced: z.coerce.date().optional(),
    genre: Genre,
    genreOptional: Genre.optional().describe('A shelf to look on'),
    inlineEnum: z.enum(['a', 'b']),
    nativeEnum: z.nativeEnum({ Up: 'up', Down: 'down' } as const),
    multiLiteral: z.literal(['x', 'y']),
    nullable: z.string().nullable(),
    nullableBounded: z.string().min(1).nullable(),
    nullableDescribed: z.string().nullable().describe('may be null'),
    nullableUnion: z.union([z.int32(), z.null()]),
    nullableNamed: Author.nullable(),
    optional: z.string().optional(),
    nullish: z.string().nullish(),
    defaulted: z.string().default('x'),
    prefaulted: z.string().prefault('p'),
    defaultDescribed: z.int32().default(3).describe('three'),
    defaultObject: z.object({ a: z.int32() }).default({ a: 1 }),
    list: z.array(z.string()).min(1).max(5),
    listExact: z.array(z.int32()).length(2),
    listMeta: z.array(Author).meta({ minItems: 1, description: 'at least one' }),
    nested: z.array(z.array(z.string().nullable())),
    map: z.record(z.string(), Money),
    readonly: z.string().readonly(),
    strict: z.strictObject({ a: z.string() }),
    shared: Author,
    sharedAgain: Author.optional(),
    deprecated: z.string().optional().meta({ deprecated: true }),
    deprecatedType: z.object({ a: z.string() }).meta({ deprecated: true, id: 'Old' }).optional(),
  });
  const outputs = z.object({ book: Book, books: z.array(Book), extra: others.omit({ strict: true }), strings, numbers });
  return [
    defineOperation({ name: 'queryStrings', input: strings, output: strings, handler, rest: { method: 'GET', path: '/strings' } }),
    defineOperation({ name: 'postStrings', input: strings, output: strings, handler, rest: { method: 'POST', path: '/strings' } }),
    defineOperation({ name: 'postNumbers', input: numbers, output: numbers, handler, rest: { method: 'POST', path: '/numbers' } }),
    defineOperation({ name: 'putOthers', input: others.extend({ id: z.string() }), output: others.omit({ strict: true }), handler, rest: { method: 'PUT', path: '/others/:id' } }),
    defineOperation({ name: 'getBook', input: z.object({ id: Book.shape.id }), output: Book, handler, rest: { method: 'GET', path: '/books/:id' } }),
    defineOperation({ name: 'addBook', input: Book.omit({ id: true }), output: Book, handler, rest: { method: 'POST', path: '/books', status: 201 } }),
    defineOperation({ name: 'everything', input: z.object({ filter: z.string().optional() }), output: outputs, handler, rest: { method: 'GET', path: '/everything' } }),
    defineOperation({ name: 'listGenres', input: z.object({}), output: z.array(Genre), handler, rest: { method: 'GET', path: '/genres' } }),
    defineOperation({ name: 'count', input: z.object({}), output: z.int32().describe('How many'), handler, rest: { method: 'GET', path: '/count' } }),
    defineOperation({ name: 'maybeBook', input: z.object({ id: z.string() }), output: Book.nullable(), handler, rest: { method: 'GET', path: '/maybe/:id' } }),
    defineOperation({ name: 'removeBook', input: z.object({ id: z.string() }), output: z.object({}), handler, rest: { method: 'DELETE', path: '/books/:id', status: 204 } }),
    defineOperation({
      name: 'upload',
      input: z.object({ folder: z.string(), file: z.file().max(1024).mime(['image/png']), pages: z.array(z.file().min(1)).optional(), note: z.string().optional() }),
      output: z.object({ size: z.int() }),
      handler,
      rest: { method: 'POST', path: '/folders/:folder/files' },
    }),
    defineOperation({
      name: 'uploadAny',
      input: z.object({ file: z.file().mime(['image/png', 'image/jpeg']) }),
      output: z.object({ ok: z.boolean() }),
      handler,
      rest: { method: 'POST', path: '/files', accepts: ['multipart', 'json'] },
    }),
    defineOperation({
      name: 'bookEvents',
      input: z.object({ genre: Genre.optional() }),
      output: z.object({ book: Book, at: z.date() }).meta({ id: 'BookEvent' }),
      stream: true,
      handler: async function* () {},
      rest: { path: '/books/events' },
    }),
    defineOperation({ name: 'tally', input: z.object({}), output: z.object({ n: z.int32() }), stream: true, handler: async function* () {}, rest: { path: '/tally' } }),
  ] as Operation[];
}

/**
 * The intended differences, each undone on the former document: GraphQL and gRPC make a union of
 * string literals one enum, and a single literal an enum of one value; OpenAPI now says the same.
 */
const DOCUMENTED_DIFFERENCES: ReadonlyArray<[string, (schema: Record<string, unknown>) => Record<string, unknown>]> = [
  [
    'a string literal is an enum ({ type: "string", enum: [v] }), not a const',
    (schema) => (schema.type === 'string' && typeof schema.const === 'string' ? Object.fromEntries(Object.entries(schema).map(([k, v]) => (k === 'const' ? ['enum', [v]] : [k, v]))) : schema),
  ],
  [
    'a union of string literals and enums is one enum, not an anyOf of them',
    (schema) => {
      const options = schema.anyOf;
      if (!Array.isArray(options) || options.length < 2) return schema;
      const branches = options as Array<Record<string, unknown>>;
      if (!branches.every((b) => b.type === 'string' && Array.isArray(b.enum) && Object.keys(b).length === 2)) return schema;
      const { anyOf: _anyOf, ...rest } = schema;
      return { type: 'string', enum: [...new Set(branches.flatMap((b) => b.enum as string[]))], ...rest };
    },
  ],
];

/** Applies each normalisation to every schema object of the document, bottom up. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (value === null || typeof value !== 'object') return value;
  let out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)])) as Record<string, unknown>;
  for (const [, undo] of DOCUMENTED_DIFFERENCES) out = undo(out);
  return out;
}

function documents(ops: readonly Operation[]): { fromShapes: OpenAPIDocument; fromSchemas: OpenAPIDocument } {
  const app = new Application();
  for (const op of ops) app.operation(op);
  const warnings: unknown[] = [];
  const fromShapes = openapi(app, { onWarning: (w) => warnings.push(w) });
  // A converter that converts nothing: every schema goes the former way, through zod.
  const fromSchemas = openapi(app, { onWarning: (w) => warnings.push(w), convert: () => undefined });
  expect(warnings).toEqual([]);
  return { fromShapes, fromSchemas };
}

it('documents every construct of the corpus as zod does, but for the documented differences', () => {
  const { fromShapes, fromSchemas } = documents(corpus());
  expect(fromShapes).toStrictEqual(normalise(fromSchemas));
  expect(validateOpenAPI(fromShapes)).toEqual([{ valid: true, version: '3.1', errors: null }]);
});

it('documents a literal union as one enum, as GraphQL and gRPC do', () => {
  const op = defineOperation({
    name: 'pick',
    input: z.object({ one: z.literal('a'), two: z.union([z.literal('a'), z.literal('b')]), mixed: z.union([z.enum(['a']), z.literal('b')]) }),
    output: z.object({ ok: z.boolean() }),
    handler,
    rest: { method: 'POST', path: '/pick' },
  }) as Operation;
  const { fromShapes, fromSchemas } = documents([op]);
  const body = (doc: OpenAPIDocument): unknown => (doc.paths['/pick']!.post!.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema;
  expect(body(fromShapes)).toEqual({
    type: 'object',
    properties: { one: { type: 'string', enum: ['a'] }, two: { type: 'string', enum: ['a', 'b'] }, mixed: { type: 'string', enum: ['a', 'b'] } },
    required: ['one', 'two', 'mixed'],
  });
  expect(body(fromSchemas)).not.toEqual(body(fromShapes));
  expect(normalise(fromSchemas)).toStrictEqual(fromShapes);
});

it('keeps the schema path when a convert option is given', () => {
  const op = defineOperation({ name: 'pick', input: z.object({ one: z.literal('a') }), output: z.object({ ok: z.boolean() }), handler, rest: { method: 'POST', path: '/pick' } }) as Operation;
  const app = new Application();
  app.operation(op);
  const seen: unknown[] = [];
  openapi(app, { convert: (schema) => void seen.push(schema) });
  expect(seen).toEqual([op.schemas.input, op.schemas.output]);
});

/** The property `f` of the JSON body of POST /probe, documented both ways, and the documents. */
function probe(field: z.ZodType): { fromShapes: unknown; fromSchemas: unknown; docs: ReturnType<typeof documents> } {
  const op = defineOperation({ name: 'probe', input: z.object({ f: field }), output: z.object({ ok: z.boolean() }), handler, rest: { method: 'POST', path: '/probe' } }) as Operation;
  const docs = documents([op]);
  const body = (doc: OpenAPIDocument): { properties: Record<string, unknown>; required?: string[] } =>
    (doc.paths['/probe']!.post!.requestBody as { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> }).content['application/json']!.schema;
  return { fromShapes: body(docs.fromShapes), fromSchemas: body(docs.fromSchemas), docs };
}

describe('the other documented differences', () => {
  it('documents a .describe() copy of a named type as the anonymous type GraphQL and gRPC see, not as a reference', () => {
    const { fromShapes, fromSchemas } = probe(Genre.describe('Another shelf'));
    expect(fromShapes).toEqual({ type: 'object', properties: { f: { type: 'string', enum: ['fiction', 'science'], description: 'Another shelf' } }, required: ['f'] });
    expect(fromSchemas).toEqual({ type: 'object', properties: { f: { description: 'Another shelf', $ref: '#/components/schemas/Genre' } }, required: ['f'] });
  });

  it('leaves out a default that is not a constant (made anew by a function)', () => {
    const { fromShapes, fromSchemas } = probe(z.string().default(() => String(Math.random())));
    expect(fromShapes).toEqual({ type: 'object', properties: { f: { type: 'string' } } });
    expect(fromSchemas).toMatchObject({ type: 'object', properties: { f: { type: 'string', default: expect.any(String) } } });
  });

  it('documents a field with .catch() as optional, as the shapes (and GraphQL) have it', () => {
    const { fromShapes, fromSchemas } = probe(z.string().catch('c'));
    expect(fromShapes).toEqual({ type: 'object', properties: { f: { default: 'c', type: 'string' } } });
    expect(fromSchemas).toEqual({ type: 'object', properties: { f: { default: 'c', type: 'string' } }, required: ['f'] });
  });

  it("documents a base64 string with the pattern zod checks, not zod's stricter one", () => {
    const { fromShapes, fromSchemas } = probe(z.base64());
    expect(fromShapes).toEqual({ type: 'object', properties: { f: { type: 'string', format: 'base64', contentEncoding: 'base64', pattern: '^[0-9a-zA-Z+/]*={0,2}$' } }, required: ['f'] });
    expect(fromSchemas).toMatchObject({ properties: { f: { type: 'string', format: 'base64', contentEncoding: 'base64', pattern: expect.not.stringMatching(/^\^\[0-9a-zA-Z\+\/\]\*=/) } } });
  });
});
