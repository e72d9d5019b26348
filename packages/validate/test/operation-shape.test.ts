import type { ObjectShape, TypeShape } from '@fw/core';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { defineOperation } from '../src/index.js';

// The zod → TypeShape mapping rules, read off `op.input` / `op.output`.

const handler = (): never => {
  throw new Error('not called');
};

function outputOf(output: z.ZodType, name = 'probe'): TypeShape {
  return defineOperation({ name, input: z.object({}), output, handler }).output;
}

function inputOf(input: z.ZodObject, name = 'probe'): ObjectShape {
  return defineOperation({ name, input, output: z.string(), handler }).input;
}

/** The members protocols read, without the JSON Schema constraints and annotations documents use (tested in operation-shape-docs.test.ts). */
const DOC_KEYS = new Set(['minLength', 'maxLength', 'patterns', 'format', 'contentEncoding', 'mime', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'title', 'examples', 'annotations', 'strict']);
function bare(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(bare);
  if (value === null || typeof value !== 'object' || !Object.isFrozen(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !DOC_KEYS.has(key)).map(([key, v]) => [key, key === 'source' ? v : bare(v)]));
}

const scalar = (name: string): TypeShape => ({ kind: 'scalar', scalar: name }) as TypeShape;

describe('objects', () => {
  it('map to an object shape: fields in key order, source the schema, name from .meta({ id })', () => {
    const Author = z.object({ name: z.string() });
    const Book = z.object({ title: z.string(), author: Author, pages: z.int32() }).meta({ id: 'Book', description: 'A book' });
    expect(bare(outputOf(Book))).toEqual({
      kind: 'object',
      name: 'Book',
      description: 'A book',
      source: Book,
      fields: [
        { name: 'title', type: scalar('string'), optional: false },
        { name: 'author', type: { kind: 'object', name: undefined, source: Author, fields: [{ name: 'name', type: scalar('string'), optional: false }] }, optional: false },
        { name: 'pages', type: scalar('int32'), optional: false },
      ],
    });
    expect((outputOf(Book) as ObjectShape).source).toBe(Book);
  });

  it('leaves the name undefined without an id, so generators derive one', () => {
    expect(outputOf(z.object({ a: z.string() }).describe('no id'))).toMatchObject({ kind: 'object', name: undefined, description: 'no id' });
  });

  it('accepts strict objects, and refuses objects that keep unknown keys', () => {
    expect(outputOf(z.strictObject({ a: z.string() }))).toMatchObject({ kind: 'object' });
    const message = 'keeps unknown keys, which GraphQL and gRPC cannot carry: use z.object() (strips them) or z.strictObject()';
    expect(() => outputOf(z.looseObject({ a: z.string() }))).toThrow(`defineOperation("probe"): output: z.looseObject() ${message}`);
    expect(() => outputOf(z.object({ a: z.object({}).passthrough() }))).toThrow(`defineOperation("probe"): output.a: z.looseObject() ${message}`);
    expect(() => inputOf(z.object({ a: z.string() }).catchall(z.string()))).toThrow(`defineOperation("probe"): input: z.object().catchall() ${message}`);
  });
});

describe('optional fields', () => {
  it('are optional when the key may be absent: .optional(), .nullish(), and .default() / .prefault() on input only', () => {
    const Input = z.object({
      plain: z.string(),
      maybe: z.string().optional(),
      nullish: z.string().nullish(),
      defaulted: z.string().default('x'),
      prefaulted: z.string().prefault('x'),
    });
    const fields = (shape: TypeShape): unknown => (shape as ObjectShape).fields.map((f) => [f.name, f.optional, f.type]);
    expect(fields(inputOf(Input))).toEqual([
      ['plain', false, scalar('string')],
      ['maybe', true, scalar('string')],
      ['nullish', true, { kind: 'nullable', of: scalar('string') }],
      ['defaulted', true, scalar('string')],
      ['prefaulted', true, scalar('string')],
    ]);
    // On output a default always fills the key.
    expect(fields(outputOf(Input))).toEqual([
      ['plain', false, scalar('string')],
      ['maybe', true, scalar('string')],
      ['nullish', true, { kind: 'nullable', of: scalar('string') }],
      ['defaulted', false, scalar('string')],
      ['prefaulted', false, scalar('string')],
    ]);
  });

  it('are refused where no key holds them: a list element, a map value, the output itself', () => {
    expect(() => outputOf(z.array(z.string().optional()))).toThrow(
      'defineOperation("probe"): output[]: an optional list element cannot be served on GraphQL or gRPC (use .nullable())',
    );
    expect(() => outputOf(z.object({ scores: z.record(z.string(), z.number().optional()) }))).toThrow(
      'defineOperation("probe"): output.scores{}: an optional map value cannot be served on GraphQL or gRPC (use .nullable())',
    );
    expect(() => outputOf(z.string().optional())).toThrow(
      'defineOperation("probe"): output: an optional output cannot be served on GraphQL or gRPC (use .nullable())',
    );
  });

  it('unwrap .nonoptional()', () => {
    expect(bare(outputOf(z.array(z.string().optional().nonoptional())))).toEqual({ kind: 'list', of: scalar('string') });
  });
});

describe('strings', () => {
  it('stay strings with any format or check', () => {
    for (const schema of [z.string().min(1), z.email(), z.string().email(), z.uuid(), z.url(), z.iso.datetime(), z.iso.date(), z.templateLiteral(['id-', z.number()])]) {
      expect(bare(outputOf(schema))).toEqual(scalar('string'));
    }
  });
});

describe('numbers', () => {
  it('are float without an integer check', () => {
    expect(bare(outputOf(z.number()))).toEqual(scalar('float'));
    expect(bare(outputOf(z.number().min(0).max(10)))).toEqual(scalar('float'));
    expect(bare(outputOf(z.coerce.number()))).toEqual(scalar('float'));
    expect(bare(outputOf(z.float32()))).toEqual(scalar('float'));
  });

  it('are int with an integer check, int32 when the bounds fit in 32 bits', () => {
    expect(bare(outputOf(z.int()))).toEqual(scalar('int'));
    expect(bare(outputOf(z.number().int()))).toEqual(scalar('int'));
    expect(bare(outputOf(z.uint32()))).toEqual(scalar('int'));
    expect(bare(outputOf(z.int32()))).toEqual(scalar('int32'));
    expect(bare(outputOf(z.number().int().min(0).max(100)))).toEqual(scalar('int32'));
    expect(bare(outputOf(z.int().min(-(2 ** 31)).max(2 ** 31 - 1)))).toEqual(scalar('int32'));
    expect(bare(outputOf(z.int().min(-(2 ** 31)).max(2 ** 31)))).toEqual(scalar('int'));
    expect(bare(outputOf(z.int().min(-(2 ** 31) - 1).max(0)))).toEqual(scalar('int'));
    expect(bare(outputOf(z.int().gt(-(2 ** 31) - 1).lt(2 ** 31)))).toEqual(scalar('int32'));
    expect(bare(outputOf(z.int().min(0)))).toEqual(scalar('int'));
    expect(bare(outputOf(z.coerce.number().int().positive().max(1000)))).toEqual(scalar('int32'));
    expect(bare(outputOf(z.int32().max(10)))).toEqual(scalar('int32'));
  });

  it('refuses NaN', () => {
    expect(() => outputOf(z.nan())).toThrow('defineOperation("probe"): output: z.nan() cannot be served on GraphQL or gRPC');
  });
});

describe('booleans and dates', () => {
  it('map to boolean and datetime', () => {
    expect(bare(outputOf(z.boolean()))).toEqual(scalar('boolean'));
    expect(bare(outputOf(z.coerce.boolean()))).toEqual(scalar('boolean'));
    expect(bare(outputOf(z.date()))).toEqual(scalar('datetime'));
    expect(bare(inputOf(z.object({ at: z.date() })).fields[0]!.type)).toEqual(scalar('datetime'));
    expect(bare(inputOf(z.object({ at: z.coerce.date() })).fields[0]!.type)).toEqual(scalar('datetime'));
  });
});

describe('enums', () => {
  it('map z.enum and string native enums to their values, source the schema', () => {
    const Genre = z.enum(['fiction', 'poetry']);
    expect(bare(outputOf(Genre))).toEqual({ kind: 'enum', name: undefined, values: ['fiction', 'poetry'], source: Genre });
    enum Color {
      Red = 'red',
      Blue = 'blue',
    }
    const Native = z.nativeEnum(Color);
    expect(bare(outputOf(Native))).toEqual({ kind: 'enum', name: undefined, values: ['red', 'blue'], source: Native });
    expect(outputOf(z.enum(['a', 'b']).meta({ id: 'Letter', description: 'A letter' }))).toMatchObject({ name: 'Letter', description: 'A letter' });
  });

  it('refuses numeric enum values', () => {
    enum Level {
      Low,
      High,
    }
    expect(() => outputOf(z.object({ level: z.nativeEnum(Level) }))).toThrow(
      'defineOperation("probe"): output.level: an enum with non-string values cannot be served on GraphQL or gRPC (use string values)',
    );
  });

  it('map string literals and unions of them to an enum', () => {
    const One = z.literal('draft');
    expect(bare(outputOf(One))).toEqual({ kind: 'enum', name: undefined, values: ['draft'], source: One });
    const Many = z.literal(['draft', 'live']);
    expect(bare(outputOf(Many))).toEqual({ kind: 'enum', name: undefined, values: ['draft', 'live'], source: Many });
    const Union = z.union([z.literal('a'), z.literal(['b', 'c']), z.enum(['d'])]);
    expect(bare(outputOf(Union))).toEqual({ kind: 'enum', name: undefined, values: ['a', 'b', 'c', 'd'], source: Union });
  });

  it('refuses other literals', () => {
    expect(() => outputOf(z.object({ v: z.literal(2) }))).toThrow(
      'defineOperation("probe"): output.v: z.literal() of a non-string value cannot be served on GraphQL or gRPC (use z.enum() of strings)',
    );
  });
});

describe('lists, nullables and maps', () => {
  it('map arrays to lists, nullables to nullable (once), T | null unions to nullable', () => {
    expect(bare(outputOf(z.array(z.string())))).toEqual({ kind: 'list', of: scalar('string') });
    expect(bare(outputOf(z.array(z.string().nullable())))).toEqual({ kind: 'list', of: { kind: 'nullable', of: scalar('string') } });
    expect(bare(outputOf(z.string().nullable().nullable()))).toEqual({ kind: 'nullable', of: scalar('string') });
    expect(bare(outputOf(z.union([z.string(), z.null()])))).toEqual({ kind: 'nullable', of: scalar('string') });
    expect(bare(outputOf(z.array(z.array(z.int32()))))).toEqual({ kind: 'list', of: { kind: 'list', of: scalar('int32') } });
  });

  it('map records with string keys to maps', () => {
    expect(bare(outputOf(z.record(z.string(), z.number())))).toEqual({ kind: 'map', of: scalar('float') });
    expect(() => outputOf(z.record(z.enum(['a', 'b']), z.number()))).toThrow(
      'defineOperation("probe"): output: z.record() with keys other than z.string() cannot be served on GraphQL or gRPC (use z.object() with those keys)',
    );
  });
});

describe('wrappers and pipes', () => {
  it('see through default, prefault, catch and readonly', () => {
    expect(outputOf(z.object({ a: z.int32().default(1).catch(0).readonly() }))).toMatchObject({ fields: [{ type: scalar('int32'), optional: false }] });
    expect(bare(outputOf(z.array(z.string()).readonly()))).toEqual({ kind: 'list', of: scalar('string') });
  });

  it('take the input side of a pipe for input and the output side for output', () => {
    const Input = z.object({ n: z.string().transform(Number).pipe(z.int().min(0).max(10)) });
    expect(bare(inputOf(Input).fields[0]!.type)).toEqual(scalar('string'));
    expect(bare((outputOf(Input) as ObjectShape).fields[0]!.type)).toEqual(scalar('int32'));
  });

  it('take the target of z.preprocess() on input, and refuse an output ending in a transform', () => {
    const Input = z.object({ n: z.preprocess((v) => Number(v), z.int32()) });
    expect(bare(inputOf(Input).fields[0]!.type)).toEqual(scalar('int32'));
    expect(() => outputOf(z.object({ n: z.string().transform(Number) }))).toThrow(
      'defineOperation("probe"): output.n: the output of z.transform() is not known to the schema (pipe it into one: .transform(fn).pipe(z.number()))',
    );
  });

  it('map a codec by direction', () => {
    const Instant = z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() });
    expect(bare(inputOf(z.object({ at: Instant })).fields[0]!.type)).toEqual(scalar('string'));
    expect(bare(outputOf(Instant))).toEqual(scalar('datetime'));
  });
});

describe('types that cannot be served', () => {
  const cases: Array<[string, z.ZodType, string]> = [
    ['bigint', z.bigint(), 'z.bigint() cannot be served on GraphQL or gRPC'],
    ['union', z.union([z.string(), z.number()]), 'z.union() cannot be served on GraphQL or gRPC (use z.enum() for string choices, or one object with optional fields)'],
    ['discriminated union', z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]), 'z.union() cannot be served'],
    ['intersection', z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })), 'z.intersection() cannot be served on GraphQL or gRPC (use one z.object(), e.g. with .extend())'],
    ['tuple', z.tuple([z.string(), z.number()]), 'z.tuple() cannot be served on GraphQL or gRPC (use an object)'],
    ['any', z.any(), 'z.any() cannot be served on GraphQL or gRPC'],
    ['unknown', z.unknown(), 'z.unknown() cannot be served on GraphQL or gRPC'],
    ['map', z.map(z.string(), z.string()), 'z.map() cannot be served on GraphQL or gRPC (use z.record(z.string(), ...))'],
    ['set', z.set(z.string()), 'z.set() cannot be served on GraphQL or gRPC (use z.array())'],
    ['promise', z.promise(z.string()), 'z.promise() cannot be served on GraphQL or gRPC'],
    ['symbol', z.symbol(), 'z.symbol() cannot be served on GraphQL or gRPC'],
    ['null', z.null(), 'z.null() cannot be served on GraphQL or gRPC'],
    ['undefined', z.undefined(), 'z.undefined() cannot be served on GraphQL or gRPC'],
    ['void', z.void(), 'z.void() cannot be served on GraphQL or gRPC'],
    ['never', z.never(), 'z.never() cannot be served on GraphQL or gRPC'],
    ['custom', z.custom<string>(() => true), 'z.custom() cannot be served on GraphQL or gRPC'],
    ['instanceof', z.instanceof(Map), 'z.custom() cannot be served on GraphQL or gRPC'],
    ['file', z.file(), 'z.file() is for inputs only (an upload)'],
    ['lazy', z.lazy(() => z.string()), 'z.lazy() cannot be served on GraphQL or gRPC (recursive types are not supported)'],
  ];

  it.each(cases)('refuses %s, naming the operation and the path', (_kind, schema, message) => {
    const Author = z.object({ name: z.string(), born: schema });
    expect(() => defineOperation({ name: 'getBook', input: z.object({}), output: z.object({ author: Author }), handler })).toThrow(
      `defineOperation("getBook"): output.author.born: ${message}`,
    );
  });

  it('names list elements, map values and input fields in the path', () => {
    expect(() => outputOf(z.object({ books: z.array(z.object({ born: z.bigint() })) }), 'listBooks')).toThrow(
      'defineOperation("listBooks"): output.books[].born: z.bigint() cannot be served on GraphQL or gRPC',
    );
    expect(() => outputOf(z.record(z.string(), z.object({ at: z.symbol() })))).toThrow('defineOperation("probe"): output{}.at: z.symbol()');
    expect(() => inputOf(z.object({ filter: z.object({ tags: z.set(z.string()) }) }))).toThrow('defineOperation("probe"): input.filter.tags: z.set()');
  });

  it('refuses a recursive object', () => {
    interface Category {
      name: string;
      children: Category[];
    }
    const Category: z.ZodType<Category> = z.object({ name: z.string(), children: z.array(z.lazy(() => Category)) });
    expect(() => outputOf(Category)).toThrow('defineOperation("probe"): output.children[]: z.lazy() cannot be served on GraphQL or gRPC (recursive types');
  });

  it('refuses an object that refers back to itself through a getter', () => {
    const Node = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    expect(() => outputOf(z.object({ root: Node }))).toThrow(
      'defineOperation("probe"): output.root.children[]: a recursive object cannot be served on GraphQL or gRPC (recursive types are not supported)',
    );
  });
});

describe('descriptions', () => {
  it('come from .describe() and .meta({ description }) on fields and types', () => {
    const Author = z.object({ name: z.string().describe('Full name') }).meta({ description: 'A writer' });
    const Book = z.object({
      title: z.string().meta({ description: 'The title' }),
      author: Author.optional().describe('Who wrote it'),
      tags: z.array(z.string()).describe('Labels'),
    });
    const shape = outputOf(Book) as ObjectShape;
    expect(bare(shape.fields.map((f) => [f.name, f.description]))).toEqual([
      ['title', 'The title'],
      ['author', 'Who wrote it'],
      ['tags', 'Labels'],
    ]);
    const author = shape.fields[1]!.type as ObjectShape;
    expect(author.description).toBe('A writer');
    expect(author.fields[0]!.description).toBe('Full name');
    expect(bare(shape.fields[0]!.type)).toEqual({ kind: 'scalar', scalar: 'string', description: 'The title' });
  });
});

describe('what a field carries besides its type', () => {
  it("leaves an object's or enum's description on its type, not on each field that uses it", () => {
    const Author = z.object({ name: z.string() }).meta({ id: 'Author', description: 'A writer' });
    const Genre = z.enum(['A', 'B']).describe('A genre');
    const shape = outputOf(z.object({ author: Author, genre: Genre, status: z.union([z.literal('x'), z.literal('y')]).describe('A status') })) as ObjectShape;
    expect(bare(shape.fields.map((f) => f.description))).toEqual([undefined, undefined, undefined]);
    expect(bare(shape.fields.map((f) => f.type.description))).toEqual(['A writer', 'A genre', 'A status']);
  });

  it('are deprecated by .meta({ deprecated: true }) or a deprecationReason, on the field, a wrapper or the type', () => {
    const shape = inputOf(
      z.object({
        plain: z.string(),
        flag: z.string().optional().meta({ deprecated: true }),
        reason: z.string().meta({ deprecationReason: 'Use title' }).optional(),
        both: z.number().meta({ deprecated: true, deprecationReason: 'Gone' }).default(1),
      }),
    );
    expect(bare(shape.fields.map(({ name, deprecated, deprecationReason }) => ({ name, deprecated, deprecationReason })))).toEqual([
      { name: 'plain', deprecated: undefined, deprecationReason: undefined },
      { name: 'flag', deprecated: true, deprecationReason: undefined },
      { name: 'reason', deprecated: true, deprecationReason: 'Use title' },
      { name: 'both', deprecated: true, deprecationReason: 'Gone' },
    ]);
  });

  it('carry the default of an input field when it is a constant JSON value, never on output', () => {
    let n = 0;
    const schema = z.object({
      limit: z.int().default(20),
      tags: z.array(z.string()).default(['a']),
      sort: z.enum(['ASC', 'DESC']).default('ASC').optional(),
      at: z.date().default(() => new Date(0)),
      id: z.string().default(() => String(n++)),
      none: z.string().optional(),
    });
    expect(bare(inputOf(schema).fields.map((f) => [f.name, f.default]))).toEqual([
      ['limit', { value: 20 }],
      ['tags', { value: ['a'] }],
      ['sort', { value: 'ASC' }],
      ['at', undefined],
      ['id', undefined],
      ['none', undefined],
    ]);
    expect((outputOf(schema) as ObjectShape).fields.every((f) => f.default === undefined)).toBe(true);
  });

  it("mark a string as an identifier with .meta({ graphql: { type: 'ID' } }), and refuse another graphql type", () => {
    const shape = inputOf(z.object({ id: z.string().meta({ graphql: { type: 'ID' } }), ids: z.array(z.uuid().meta({ graphql: { type: 'ID' } })), name: z.string() }));
    expect(bare(shape.fields.map((f) => f.type))).toEqual([
      { kind: 'scalar', scalar: 'string', identifier: true },
      { kind: 'list', of: { kind: 'scalar', scalar: 'string', identifier: true } },
      { kind: 'scalar', scalar: 'string' },
    ]);
    expect(() => inputOf(z.object({ id: z.string().meta({ graphql: 'ID' }) }))).toThrow(/input\.id: \.meta\(\{ graphql \}\) on a string must be \{ type: 'ID' \}, got "ID"/);
  });
});

describe('shapes per schema and direction', () => {
  it('are the same object for the same schema, across operations', () => {
    const Book = z.object({ title: z.string(), year: z.int32().default(2000) });
    const one = defineOperation({ name: 'one', input: z.object({}), output: Book, handler });
    const two = defineOperation({ name: 'two', input: z.object({}), output: z.array(Book), handler });
    expect(one.output).toBe((two.output as { of: TypeShape }).of);
    const three = defineOperation({ name: 'three', input: Book, output: Book, handler });
    expect(three.output).toBe(one.output);
    // Input and output shapes of one schema are apart: the default makes `year` optional on input only.
    expect(three.input).not.toBe(three.output);
    expect(three.input.source).toBe(Book);
    expect(three.input.fields[1]!.optional).toBe(true);
    expect((three.output as ObjectShape).fields[1]!.optional).toBe(false);
    expect(defineOperation({ name: 'four', input: Book, output: z.string(), handler }).input).toBe(three.input);
  });

  it('keep the schemas the operation was defined with', () => {
    const Input = z.object({ id: z.string() });
    const Output = z.string();
    expect(defineOperation({ name: 'op', input: Input, output: Output, handler }).schemas).toEqual({ input: Input, output: Output });
  });
});

describe('zod mini', () => {
  it('maps like the classic API', () => {
    const Book = zm.object({ title: zm.string(), pages: zm.optional(zm.int32()), tags: zm.array(zm.enum(['a', 'b'])) });
    const op = defineOperation({ name: 'mini', input: zm.object({ id: zm.string() }), output: Book, handler });
    expect(op.output).toMatchObject({
      kind: 'object',
      fields: [
        { name: 'title', type: scalar('string'), optional: false },
        { name: 'pages', type: scalar('int32'), optional: true },
        { name: 'tags', type: { kind: 'list', of: { kind: 'enum', values: ['a', 'b'] } }, optional: false },
      ],
    });
  });
});
