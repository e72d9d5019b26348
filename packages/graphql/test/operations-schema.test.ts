import { Application, type Operation, type TypeShape } from '@fw/core';
import { GraphQLInt, GraphQLObjectType, GraphQLSchema, buildSchema, printSchema } from 'graphql';
import { graphqlPlugin, type GraphQLConfig, type GraphQLPlugin } from '../src/index.js';
import { defineTestOperation, t, type TestOperationDefinition } from './fixtures/operation.js';

/** The bookstore every golden test uses. */
const Genre = t.enum(['FICTION', 'SCIENCE', 'HISTORY'], { name: 'Genre', description: 'What a book is about' });
const Book = t.object(
  {
    id: t.id(),
    title: t.string('The title, as printed'),
    author: t.object({ name: t.string(), born: t.optional(t.int32()) }),
    genre: Genre,
    tags: t.list(t.string()),
    publishedAt: t.datetime(),
    rating: t.nullable(t.float()),
    pages: t.optional(t.int32(), 'Page count'),
    isbn10: { type: t.string(), optional: true, deprecated: true, deprecationReason: 'Use `isbn`.' },
  },
  { name: 'Book', description: 'A book in the catalogue' },
);
const bookstore = (): Operation[] => [
  query('getBook', { description: 'One book by id', input: t.object({ id: t.id() }), output: Book }),
  query('listBooks', { input: t.object({ limit: { type: t.int32(), optional: true, default: { value: 20 } }, genre: t.optional(Genre) }), output: t.list(Book) }),
  mutation('addBook', { input: t.object({ book: Book }), output: Book }),
  query('ping', { output: t.string() }),
];

const GOLDEN = `input AddBookInput {
  book: BookInput!
}

"""A book in the catalogue"""
type Book {
  id: ID!

  """The title, as printed"""
  title: String!
  author: BookAuthor!
  genre: Genre!
  tags: [String!]!
  publishedAt: DateTime!
  rating: Float

  """Page count"""
  pages: Int
  isbn10: String @deprecated(reason: "Use \`isbn\`.")
}

type BookAuthor {
  name: String!
  born: Int
}

input BookAuthorInput {
  name: String!
  born: Int
}

"""A book in the catalogue"""
input BookInput {
  id: ID!

  """The title, as printed"""
  title: String!
  author: BookAuthorInput!
  genre: Genre!
  tags: [String!]!
  publishedAt: DateTime!
  rating: Float

  """Page count"""
  pages: Int
  isbn10: String @deprecated(reason: "Use \`isbn\`.")
}

"""
An instant, as an ISO 8601 date-time string with an offset, e.g. \`2024-05-01T10:00:00.000Z\`.
"""
scalar DateTime @specifiedBy(url: "https://datatracker.ietf.org/doc/html/rfc3339#section-5.6")

"""What a book is about"""
enum Genre {
  FICTION
  SCIENCE
  HISTORY
}

type Mutation {
  addBook(input: AddBookInput!): Book!
}

type Query {
  """One book by id"""
  getBook(id: ID!): Book!
  listBooks(limit: Int = 20, genre: Genre): [Book!]!
  ping: String!
}`;

type Definition = Omit<TestOperationDefinition, 'name' | 'graphql' | 'handler'> & { handler?: TestOperationDefinition['handler'] };

function query(name: string, def: Definition): Operation {
  return defineTestOperation({ name, graphql: { type: 'query' }, handler: () => null, ...def });
}

function mutation(name: string, def: Definition): Operation {
  return defineTestOperation({ name, graphql: { type: 'mutation' }, handler: () => null, ...def });
}

/** An app serving `ops` on GraphQL, and its plugin. */
function appWith(ops: readonly Operation[], config: GraphQLConfig | true = {}): { app: Application; plugin: GraphQLPlugin } {
  const app = new Application();
  const plugin = graphqlPlugin(config);
  app.register(plugin);
  for (const op of ops) app.operation(op);
  return { app, plugin };
}

function sdl(...ops: Operation[]): string {
  return appWith(ops).plugin.printSchema();
}

/** The SDL of one output field `x` of a query `op` with that output. */
function outputOf(shape: TypeShape): string {
  return sdl(query('op', { output: shape }));
}

/** The refusal `app.operation(op)` throws, with the other operations registered first. */
function refusal(ops: readonly Operation[], op: Operation, config: GraphQLConfig = {}): string {
  const { app } = appWith(ops, config);
  try {
    app.operation(op);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('app.operation() accepted the operation');
}

describe('the schema generated from operations', () => {
  it('is the golden SDL for the bookstore', () => {
    expect(sdl(...bookstore())).toBe(GOLDEN);
  });

  it('is the same, byte for byte, whatever the order the operations were registered in', () => {
    expect(sdl(...bookstore().reverse())).toBe(GOLDEN);
    const [a, b, c, d] = bookstore();
    expect(sdl(c!, a!, d!, b!)).toBe(GOLDEN);
  });

  it('is what getSchema() serves, printed', () => {
    const { plugin } = appWith(bookstore());
    expect(printSchema(plugin.getSchema())).toBe(GOLDEN);
  });

  it('is served from graphqlPlugin(true) as from graphqlPlugin({})', () => {
    expect(appWith(bookstore(), true).plugin.printSchema()).toBe(GOLDEN);
  });

  it('lists the fields of a type in the schema order, not by name', () => {
    const out = outputOf(t.object({ zebra: t.string(), apple: t.string(), mango: t.string() }));
    expect(out).toContain('type OpOutput {\n  zebra: String!\n  apple: String!\n  mango: String!\n}');
  });
});

describe('scalars', () => {
  it('maps string, boolean, float, int, int32 and datetime to String, Boolean, Float, Int, Int and DateTime', () => {
    const out = outputOf(t.object({ s: t.string(), b: t.boolean(), f: t.float(), i: t.int(), i32: t.int32(), d: t.datetime() }));
    expect(out).toContain('type OpOutput {\n  s: String!\n  b: Boolean!\n  f: Float!\n  i: Int!\n  i32: Int!\n  d: DateTime!\n}');
    expect(out).toContain('scalar DateTime');
  });

  it('adds DateTime only when an operation uses dates', () => {
    expect(outputOf(t.object({ s: t.string() }))).not.toContain('DateTime');
  });

  it('maps a scalar output to the field type as it is', () => {
    expect(outputOf(t.int())).toContain('op: Int!');
    expect(outputOf(t.nullable(t.boolean()))).toContain('op: Boolean\n');
  });
});

describe('nullability and lists', () => {
  it('makes optional and nullable fields nullable, and every other field non-null', () => {
    const out = outputOf(t.object({ required: t.string(), optional: t.optional(t.string()), nullable: t.nullable(t.string()), both: t.optional(t.nullable(t.string())) }));
    expect(out).toContain('  required: String!\n  optional: String\n  nullable: String\n  both: String\n');
  });

  it('keeps the nullability of list items and of the list apart', () => {
    const out = outputOf(
      t.object({
        items: t.list(t.string()),
        maybeItems: t.list(t.nullable(t.string())),
        maybeList: t.nullable(t.list(t.string())),
        grid: t.list(t.list(t.int32())),
      }),
    );
    expect(out).toContain('  items: [String!]!\n  maybeItems: [String]!\n  maybeList: [String!]\n  grid: [[Int!]!]!\n');
  });

  it('keeps a nullable object output nullable, and an object output non-null', () => {
    expect(outputOf(t.nullable(t.object({ a: t.string() })))).toContain('op: OpOutput\n');
    expect(outputOf(t.object({ a: t.string() }))).toContain('op: OpOutput!\n');
  });
});

describe('type names', () => {
  it('derives <Op>Input and <Op>Output, and <Parent><Field> for nested objects and enums', () => {
    const out = sdl(
      mutation('getThing', {
        input: t.object({ filter: t.object({ kind: t.enum(['A', 'B']) }) }),
        output: t.object({ owner: t.object({ name: t.string(), role: t.enum(['ADMIN', 'USER']) }), main_label: t.object({ text: t.string() }) }),
      }),
      query('ping', { output: t.string() }),
    );
    expect(out).toContain('input GetThingInput {\n  filter: GetThingInputFilter!\n}');
    expect(out).toContain('input GetThingInputFilter {\n  kind: GetThingInputFilterKind!\n}');
    expect(out).toContain('enum GetThingInputFilterKind {');
    expect(out).toContain('type GetThingOutput {\n  owner: GetThingOutputOwner!\n  main_label: GetThingOutputMainLabel!\n}');
    expect(out).toContain('type GetThingOutputOwner {\n  name: String!\n  role: GetThingOutputOwnerRole!\n}');
    expect(out).toContain('getThing(input: GetThingInput!): GetThingOutput!');
  });

  it('names the items of a list output <Op>OutputItem and a nested list of objects <Parent><Field>', () => {
    const out = sdl(query('listThings', { output: t.list(t.object({ parts: t.list(t.object({ n: t.int32() })) })) }));
    expect(out).toContain('listThings: [ListThingsOutputItem!]!');
    expect(out).toContain('type ListThingsOutputItem {\n  parts: [ListThingsOutputItemParts!]!\n}');
  });

  it('names an enum output <Op>Output', () => {
    expect(sdl(query('status', { output: t.enum(['UP', 'DOWN']) }))).toContain('enum StatusOutput {\n  UP\n  DOWN\n}');
  });

  it('uses the name a schema carries, for output objects and enums', () => {
    const out = sdl(query('me', { output: t.object({ role: t.enum(['A'], { name: 'Role' }) }, { name: 'Viewer' }) }));
    expect(out).toContain('me: Viewer!');
    expect(out).toContain('type Viewer {\n  role: Role!\n}');
    expect(out).toContain('enum Role {');
  });

  it('names an input type by its schema, adding Input only when the schema is an output type too', () => {
    const Args = t.object({ x: t.string() }, { name: 'Args' });
    const out = sdl(
      mutation('a', { input: Args, output: t.string() }),
      mutation('b', { input: t.object({ x: t.string() }, { name: 'CreateInput' }), output: t.string() }),
      query('ping', { output: t.string() }),
    );
    expect(out).toContain('a(input: Args!): String!');
    expect(out).toContain('b(input: CreateInput!): String!');
    expect(sdl(mutation('a', { input: t.object({ args: Args }), output: Args }), query('ping', { output: t.string() }))).toContain('input AInput {\n  args: ArgsInput!\n}');
  });

  it('derives nested names from the type name of the parent, named or not', () => {
    const out = sdl(query('op', { output: t.object({ author: t.object({ name: t.string() }) }, { name: 'Book' }) }));
    expect(out).toContain('type BookAuthor {');
  });

  it('derives the stem from the operation name in PascalCase: get_book gives GetBookInput', () => {
    const out = sdl(mutation('get_book', { input: t.object({ id: t.string() }), output: t.object({ id: t.string() }) }), query('ping', { output: t.string() }));
    expect(out).toContain('get_book(input: GetBookInput!): GetBookOutput!');
  });

  it('refuses an unnamed schema used in two places, naming both and asking for .meta({ id })', () => {
    const Shared = t.object({ n: t.int32() });
    expect(refusal([query('zeta', { output: t.object({ a: Shared }) })], query('alpha', { output: t.object({ x: Shared }) }))).toBe(
      'The same object schema, with no name, is used at operation "alpha" at output.x and at operation "zeta" at output.a: a schema used in more than one place takes no name from either, so give it one with .meta({ id })',
    );
  });

  it('refuses an operation GraphQL does not serve that uses an unnamed schema of one it serves, as the names are the same in every protocol', () => {
    const Shared = t.object({ n: t.int32() });
    const restOnly = defineTestOperation({ name: 'other', output: t.object({ x: Shared }), handler: () => null });
    expect(refusal([query('a', { output: t.object({ a: Shared }) })], restOnly)).toMatch(/^The same object schema, with no name, is used at operation "a" at output.a and at operation "other" at output.x/);
  });

  it('gives a schema the same name whatever order the operations are registered in, and whatever the other fields are named', () => {
    const Order = t.object({ lines: t.list(t.object({ sku: t.string() })) }, { name: 'Order' });
    const place = (field: string): Operation => mutation('placeOrder', { input: t.object({ [field]: t.list(t.object({ sku: t.string() })) }), output: Order });
    const get = query('getOrder', { output: Order });
    expect(sdl(get, place('lines'))).toContain('type Order {\n  lines: [OrderLines!]!\n}');
    expect(sdl(place('lines'), get)).toBe(sdl(get, place('lines')));
    expect(sdl(get, place('items'))).toContain('type Order {\n  lines: [OrderLines!]!\n}');
  });
});

describe('one schema, one type', () => {
  it('makes one type of a named schema several operations use', () => {
    const Author = t.object({ name: t.string() }, { name: 'Author' });
    const out = sdl(query('a', { output: t.object({ author: Author }) }), query('b', { output: t.object({ writer: Author }) }));
    expect(out).toContain('type AOutput {\n  author: Author!\n}');
    expect(out).toContain('type BOutput {\n  writer: Author!\n}');
  });

  it('makes an output type and an input type of a schema used both ways: Book and BookInput', () => {
    const out = sdl(...bookstore());
    expect(out).toContain('type Book {');
    expect(out).toContain('input BookInput {');
    expect(out).toContain('addBook(input: AddBookInput!): Book!');
  });

  it('makes one enum of an enum used in inputs and outputs', () => {
    const out = sdl(...bookstore());
    expect(out.match(/enum Genre/g)).toHaveLength(1);
    expect(out).toContain('genre: Genre): [Book!]!');
  });

  it('refuses two different schemas that want one name, naming both operations and paths', () => {
    const first = query('getBook', { output: t.object({ id: t.string() }, { name: 'Book' }) });
    const second = query('listBooks', { output: t.list(t.object({ title: t.string() }, { name: 'Book' })) });
    expect(refusal([first], second)).toBe(
      'The type name "Book" is given to two different schemas, at operation "getBook" at output and at operation "listBooks" at output[]: give one of them another name with .meta({ id })',
    );
  });

  it('refuses a derived name that another schema carries', () => {
    const named = query('b', { output: t.object({ x: t.string() }, { name: 'AOutput' }) });
    expect(refusal([named], query('a', { output: t.object({ y: t.string() }) }))).toMatch(/"AOutput" is given to two different schemas, at operation "a" at output and at operation "b" at output/);
  });

  it('refuses a schema used both ways whose name ends in Input', () => {
    const Thing = t.object({ x: t.string() }, { name: 'ThingInput' });
    expect(refusal([], mutation('a', { input: t.object({ thing: Thing }), output: Thing }))).toMatch(
      /^Operation "a": output: the schema named "ThingInput" is used both as input and as output \(also at operation "a" at input.thing\): GraphQL needs two types/,
    );
  });

  it('does not register an operation it refuses', () => {
    const { app } = appWith([query('getBook', { output: t.object({ id: t.string() }, { name: 'Book' }) })]);
    expect(() => app.operation(query('other', { output: t.object({ x: t.string() }, { name: 'Book' }) }))).toThrow(/"Book" is given to two different schemas/);
    expect(app.getPlugin<GraphQLPlugin>('graphql')!.printSchema()).not.toContain('other');
  });
});

describe('what cannot map', () => {
  const cases: Array<[string, Operation, RegExp]> = [
    ['a map', query('tags', { output: t.object({ counts: t.map(t.int32()) }) }), /^Operation "tags": output\.counts: a map \(z\.record\) cannot map to GraphQL, which has no map type: use a list of/],
    ['a file (an upload) in the input', mutation('upload', { input: t.object({ doc: { kind: 'scalar', scalar: 'file' } }), output: t.string() }), /^Operation "upload": input\.doc: a file \(an upload\) cannot be served on GraphQL, which has no upload type/],
    ['a map in an input list', mutation('put', { input: t.object({ rows: t.list(t.map(t.string())) }), output: t.string() }), /^Operation "put": input\.rows\[\]: a map/],
    ['an enum value that is not a GraphQL name', query('e', { output: t.enum(['in-stock']) }), /^Operation "e": output: the enum value "in-stock" is not a valid GraphQL enum value/],
    ['true as an enum value', query('e', { output: t.enum(['true', 'false']) }), /^Operation "e": output: the enum value "true" is not a valid GraphQL enum value.*not true, false or null/],
    ['a field name that is not a GraphQL name', query('f', { output: t.object({ 'first-name': t.string() }) }), /^Operation "f": output\.first-name: "first-name" is not a valid GraphQL field name/],
    ['a reserved field name', query('f', { output: t.object({ __typename: t.string() }) }), /^Operation "f": output\.__typename: "__typename" is not a valid GraphQL field name/],
    ['a type name that is not a GraphQL name', query('n', { output: t.object({ x: t.string() }, { name: 'my.Book' }) }), /^Operation "n": output: "my.Book" is not a valid GraphQL type name.*\.meta\(\{ id \}\)/],
    ['a name GraphQL owns', query('n', { output: t.object({ x: t.string() }, { name: 'Query' }) }), /^Operation "n": output: the type name "Query" is GraphQL's own/],
    ['a scalar name', query('n', { output: t.enum(['A'], { name: 'String' }) }), /^Operation "n": output: the type name "String" is GraphQL's own/],
    ['an object without fields', query('empty', { output: t.object({ nested: t.object({}) }) }), /^Operation "empty": output\.nested: an object with no fields cannot map to GraphQL/],
    ['an operation name that is not a GraphQL name', query('get-book', { output: t.string() }), /^Operation "get-book": name: "get-book" is not a valid GraphQL field name/],
    ['an unknown graphql type', defineTestOperation({ name: 'sub', graphql: { type: 'event' as 'query' }, output: t.string(), handler: () => '' }), /^Operation "sub": graphql\.type: must be "query", "mutation" or "subscription", got "event"/],
  ];
  for (const [what, op, message] of cases) {
    it(`refuses ${what}, naming the operation and the path`, () => {
      expect(refusal([], op)).toMatch(message);
    });
  }

  it('refuses at registration when the plugin is registered after the operations', () => {
    const app = new Application();
    app.operation(query('tags', { output: t.object({ counts: t.map(t.int32()) }) }));
    expect(() => app.register(graphqlPlugin({}))).toThrow(/^Operation "tags": output\.counts: a map/);
  });

  it('ignores operations that do not name graphql', () => {
    const restOnly = defineTestOperation({ name: 'rest', rest: { method: 'GET', path: '/counts' }, output: t.object({ counts: t.map(t.int32()) }), handler: () => ({}) });
    const { app, plugin } = appWith([query('ping', { output: t.string() })]);
    expect(() => app.operation(restOnly)).not.toThrow();
    expect(plugin.printSchema()).not.toContain('rest');
  });
});

describe('descriptions', () => {
  it('carries the descriptions of operations, types, fields and of the scalars and lists of fields', () => {
    const out = sdl(
      query('op', {
        description: 'Does the thing',
        output: t.object({ a: t.string('A scalar described'), b: t.list(t.int32(), 'A list described'), c: t.optional(t.string(), 'The field described') }, { description: 'The output' }),
      }),
    );
    expect(out).toContain('"""Does the thing"""\n  op: OpOutput!');
    expect(out).toContain('"""The output"""\ntype OpOutput {');
    expect(out).toContain('"""A scalar described"""\n  a: String!');
    expect(out).toContain('"""A list described"""\n  b: [Int!]!');
    expect(out).toContain('"""The field described"""\n  c: String');
  });
});

describe('arguments', () => {
  it('are flat for a query: an argument per input field, required when the field is, none without fields', () => {
    const out = sdl(
      query('some', { input: t.object({ a: t.string(), b: t.optional(t.string()) }), output: t.string() }),
      query('none', { output: t.string() }),
    );
    expect(out).toContain('some(a: String!, b: String): String!');
    expect(out).toContain('none: String!');
    expect(out).not.toContain('input SomeInput');
  });

  it('are one input argument for a mutation: required when a field is, optional when every field is, absent without fields', () => {
    const out = sdl(
      mutation('some', { input: t.object({ a: t.string(), b: t.optional(t.string()) }), output: t.string() }),
      mutation('all', { input: t.object({ a: t.optional(t.string()) }), output: t.string() }),
      mutation('none', { output: t.string() }),
      query('ping', { output: t.string() }),
    );
    expect(out).toContain('some(input: SomeInput!): String!');
    expect(out).toContain('all(input: AllInput): String!');
    expect(out).toContain('none: String!');
  });

  it('follow graphql.args when the operation gives it: input for a query, flat for a mutation', () => {
    const out = sdl(
      defineTestOperation({ name: 'find', input: t.object({ q: t.string() }), output: t.string(), graphql: { type: 'query', args: 'input' }, handler: () => null }),
      defineTestOperation({ name: 'touch', input: t.object({ id: t.id() }), output: t.string(), graphql: { type: 'mutation', args: 'flat' }, handler: () => null }),
    );
    expect(out).toContain('find(input: FindInput!): String!');
    expect(out).toContain('touch(id: ID!): String!');
  });

  it('refuses a graphql.args that is neither flat nor input', () => {
    const op = defineTestOperation({ name: 'find', output: t.string(), graphql: { type: 'query', args: 'spread' as 'flat' }, handler: () => null });
    expect(refusal([], op)).toBe('Operation "find": graphql.args: must be "flat" or "input", got "spread"');
  });

  it('print the defaults of input fields and arguments: limit: Int = 20', () => {
    const Page = t.object({ size: { type: t.int32(), optional: true, default: { value: 20 } }, order: { type: t.enum(['ASC', 'DESC'], { name: 'Order' }), optional: true, default: { value: 'ASC' } } }, { name: 'Page' });
    const out = sdl(
      query('list', { input: t.object({ limit: { type: t.int32(), optional: true, default: { value: 20 } }, tags: { type: t.list(t.string()), optional: true, default: { value: ['a'] } } }), output: t.string() }),
      mutation('search', { input: t.object({ page: Page }), output: t.string() }),
    );
    expect(out).toContain('list(limit: Int = 20, tags: [String!] = ["a"]): String!');
    expect(out).toContain('input Page {\n  size: Int = 20\n  order: Order = ASC\n}');
  });

  it('make a string that is an identifier ID, and refuse an identifier that is not a string', () => {
    const out = sdl(query('get', { input: t.object({ id: t.id(), ids: t.optional(t.list(t.id())) }), output: t.object({ id: t.id() }) }));
    expect(out).toContain('get(id: ID!, ids: [ID!]): GetOutput!');
    expect(out).toContain('type GetOutput {\n  id: ID!\n}');
    const notString: TypeShape = { kind: 'scalar', scalar: 'int', identifier: true };
    expect(refusal([], query('get', { input: t.object({ id: notString }), output: t.string() }))).toBe('Operation "get": input.id: only a string can be an ID, not a int');
  });
});

describe('deprecation', () => {
  it('prints @deprecated with the reason on output fields, input fields and flat arguments, no reason for the default one', () => {
    const out = sdl(
      query('get', {
        input: t.object({ old: { type: t.string(), optional: true, deprecated: true, deprecationReason: 'Use id' }, id: t.optional(t.string()) }),
        output: t.object({ title: t.string(), name: { type: t.string(), deprecated: true }, label: { type: t.string(), deprecated: true, deprecationReason: 'Use title' } }),
      }),
      mutation('set', { input: t.object({ x: t.string(), y: { type: t.string(), optional: true, deprecated: true } }), output: t.string() }),
    );
    expect(out).toContain('get(old: String @deprecated(reason: "Use id"), id: String): GetOutput!');
    expect(out).toContain('type GetOutput {\n  title: String!\n  name: String! @deprecated\n  label: String! @deprecated(reason: "Use title")\n}');
    expect(out).toContain('input SetInput {\n  x: String!\n  y: String @deprecated\n}');
  });

  it('refuses a required input field that is deprecated, which clients would still have to send', () => {
    const op = mutation('set', { input: t.object({ x: { type: t.string(), deprecated: true } }), output: t.string() });
    expect(refusal([query('ping', { output: t.string() })], op)).toBe(
      'Operation "set": input.x: a required input field cannot be deprecated (GraphQL forbids it, as clients must send it): make it .optional() or give it a .default() first',
    );
  });

  it('is printed when the operations extend a schema of your own', () => {
    const user = buildSchema('type Query { hello: String }');
    const op = query('get', { input: t.object({ old: { type: t.string(), optional: true, deprecated: true, deprecationReason: 'Gone' }, n: { type: t.int32(), optional: true, default: { value: 5 } } }), output: t.string() });
    expect(appWith([op], { schema: user }).plugin.printSchema()).toContain('get(old: String @deprecated(reason: "Gone"), n: Int = 5): String!');
  });
});

describe('with a schema of your own', () => {
  const user = buildSchema(`
    type Query { hello: String, viewer: Viewer }
    type Viewer { root: Query }
  `);

  it('adds the operations to its query type and makes a mutation type', () => {
    const { plugin } = appWith(bookstore(), { schema: user });
    const out = plugin.printSchema();
    expect(out).toContain('type Query {\n  hello: String\n  viewer: Viewer\n\n  """One book by id"""\n  getBook(id: ID!): Book!\n  listBooks(limit: Int = 20, genre: Genre): [Book!]!');
    expect(out).toContain('type Mutation {\n  addBook(input: AddBookInput!): Book!\n}');
    // A type of the user's that refers to the query type refers to the extended one.
    expect(out).toContain('type Viewer {\n  root: Query\n}');
    expect(plugin.getSchema().getQueryType()!.getFields().getBook).toBeDefined();
  });

  it('leaves the schema as it was while no operation names graphql', () => {
    expect(appWith([], { schema: user }).plugin.getSchema()).toBe(user);
  });

  it('extends root types that have other names', () => {
    const renamed = buildSchema('schema { query: Root mutation: Change } type Root { hello: String } type Change { touch: Boolean }');
    const out = appWith(bookstore(), { schema: renamed }).plugin.printSchema();
    expect(out).toContain('type Root {\n  hello: String\n\n  """One book by id"""');
    expect(out).toContain('type Change {\n  touch: Boolean\n  addBook(input: AddBookInput!): Book!\n}');
  });

  it('refuses an operation whose field the root type already has, naming both', () => {
    expect(refusal([], query('hello', { output: t.string() }), { schema: user })).toBe(
      'Operation "hello": the field Query.hello is already defined by your GraphQL schema: rename the operation or the field',
    );
  });

  it('refuses a generated type name that the schema already defines, naming both', () => {
    expect(refusal([], query('me', { output: t.object({ id: t.string() }, { name: 'Viewer' }) }), { schema: user })).toBe(
      'GraphQL operations: the type "Viewer" generated for operation "me" at output is already defined by your GraphQL schema: give one of them another name (.meta({ id }) on the operation\'s schema)',
    );
  });

  it('refuses a mutation when the schema has a type named Mutation that is not its mutation type', () => {
    const withoutRoot = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { a: { type: GraphQLInt } } }),
      types: [new GraphQLObjectType({ name: 'Mutation', fields: { b: { type: GraphQLInt } } })],
    });
    expect(refusal([], mutation('m', { output: t.string() }), { schema: withoutRoot })).toMatch(/^Operation "m": your GraphQL schema has a type named "Mutation" that is not its mutation type/);
  });
});
