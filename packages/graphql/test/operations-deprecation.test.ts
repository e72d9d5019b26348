import { Application, type Operation, type RequestContext } from '@fw/core';
import { ContextVariables } from '@fw/core/plugin';
import { buildSchema, parse, subscribe, type ExecutionResult } from 'graphql';
import { findSchemaChanges, graphqlPlugin, type GraphQLConfig, type GraphQLPlugin } from '../src/index.js';
import { defineTestOperation, defineTestStreamOperation, t, type TestOperationDefinition } from './fixtures/operation.js';
import { OperationSchemas } from '../src/operations/source.js';
import { gql, serve, type Served } from './helpers.js';

// An operation's own deprecation, and the former names a renamed operation is still served under:
// a deprecated root field each, which runs the same operation.

type Definition = Omit<TestOperationDefinition, 'name' | 'graphql' | 'handler'> & Partial<Pick<TestOperationDefinition, 'handler'>>;

function query(name: string, def: Definition): Operation {
  return defineTestOperation({ name, graphql: { type: 'query' }, handler: () => null, ...def });
}

function mutation(name: string, def: Definition): Operation {
  return defineTestOperation({ name, graphql: { type: 'mutation' }, handler: () => null, ...def });
}

function appWith(ops: readonly Operation[], config: GraphQLConfig = {}): { app: Application; plugin: GraphQLPlugin } {
  const app = new Application();
  const plugin = graphqlPlugin(config);
  app.register(plugin);
  for (const op of ops) app.operation(op);
  return { app, plugin };
}

function sdl(ops: readonly Operation[], config: GraphQLConfig = {}): string {
  return appWith(ops, config).plugin.printSchema();
}

function refusal(ops: readonly Operation[], config: GraphQLConfig = {}): string {
  try {
    appWith(ops, config).plugin.printSchema();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

const Book = t.object({ id: t.id(), title: t.string() }, { name: 'Book' });

describe('a deprecated operation', () => {
  it('is a root field marked @deprecated with its reason, or graphql\'s default reason without one', () => {
    const out = sdl([
      query('book', { input: t.object({ id: t.id() }), output: Book, deprecated: true, deprecationReason: 'Use bookById' }),
      mutation('touch', { input: t.object({ id: t.id() }), output: t.string(), deprecated: true }),
    ]);
    expect(out).toContain('book(id: ID!): Book! @deprecated(reason: "Use bookById")');
    expect(out).toContain('touch(input: TouchInput!): String! @deprecated');
    expect(out).not.toContain('touch(input: TouchInput!): String! @deprecated(');
  });

  it('is marked @deprecated when the operations extend a schema of your own', () => {
    const user = buildSchema('type Query { hello: String }');
    const out = sdl([query('book', { input: t.object({ id: t.id() }), output: Book, deprecationReason: 'Use bookById', deprecated: true })], { schema: user });
    expect(out).toContain('book(id: ID!): Book! @deprecated(reason: "Use bookById")');
  });

  it('is not marked when it is not deprecated', () => {
    expect(sdl([query('book', { input: t.object({ id: t.id() }), output: Book })])).not.toContain('@deprecated');
  });
});

describe('a renamed operation with aliases', () => {
  const ops = (): Operation[] => [
    query('bookById', { description: 'One book', input: t.object({ id: t.id() }), output: Book, aliases: ['book', 'getBook'], handler: ({ id }) => ({ id, title: `title of ${String(id)}` }) }),
    mutation('createBook', { input: t.object({ title: t.string() }), output: Book, aliases: ['addBook'], handler: ({ title }) => ({ id: 'b1', title }) }),
  ];

  it('has a root field of each former name, with the same arguments and type, deprecated as renamed', () => {
    const out = sdl(ops());
    expect(out).toContain('"""One book"""\n  bookById(id: ID!): Book!');
    expect(out).toContain('"""One book"""\n  book(id: ID!): Book! @deprecated(reason: "renamed to bookById")');
    expect(out).toContain('getBook(id: ID!): Book! @deprecated(reason: "renamed to bookById")');
    // One input type for the operation, whichever field a client calls.
    expect(out).toContain('createBook(input: CreateBookInput!): Book!');
    expect(out).toContain('addBook(input: CreateBookInput!): Book! @deprecated(reason: "renamed to createBook")');
    expect(out).not.toContain('AddBookInput');
  });

  it('keeps the former fields when the operations extend a schema of your own', () => {
    const out = sdl(ops(), { schema: buildSchema('type Query { hello: String }') });
    expect(out).toContain('book(id: ID!): Book! @deprecated(reason: "renamed to bookById")');
    expect(out).toContain('addBook(input: CreateBookInput!): Book! @deprecated(reason: "renamed to createBook")');
  });

  it('refuses a former name another operation has now', () => {
    expect(refusal([query('bookById', { output: t.string(), aliases: ['ping'] }), query('ping', { output: t.string() })])).toBe(
      'GraphQL operations: the field Query.ping is served by operation "ping" and is also a former name of operation "bookById": drop the alias or rename one of them',
    );
  });

  it('refuses a former name your own schema defines', () => {
    expect(refusal([query('bookById', { output: t.string(), aliases: ['hello'] })], { schema: buildSchema('type Query { hello: String }') })).toBe(
      'Operation "bookById": the field Query.hello is already defined by your GraphQL schema: rename the operation or the field',
    );
  });

  describe('served', () => {
    let server: Served;
    beforeAll(async () => {
      server = await serve({}, (app) => ops().forEach((op) => app.operation(op)));
    });
    afterAll(() => server.close());

    it('answers a client that still queries the former name, running the renamed operation', async () => {
      const res = await gql(server.endpoint, { query: '{ old: book(id: "b7") { id title } older: getBook(id: "b8") { title } now: bookById(id: "b9") { id } }' });
      expect(res.body).toEqual({ data: { old: { id: 'b7', title: 'title of b7' }, older: { title: 'title of b8' }, now: { id: 'b9' } } });
    });

    it('answers a mutation sent under the former name, with the operation\'s validation', async () => {
      const ok = await gql(server.endpoint, { query: 'mutation { addBook(input: { title: "Dune" }) { id title } }' });
      expect(ok.body).toEqual({ data: { addBook: { id: 'b1', title: 'Dune' } } });
      const bad = await gql(server.endpoint, { query: 'mutation ($input: CreateBookInput!) { addBook(input: $input) { id } }', variables: { input: {} } });
      expect(bad.body.errors[0].message).toContain('title');
    });
  });
});

describe('renaming an operation, as the breaking-change check sees it', () => {
  const before = (): string => sdl([query('book', { input: t.object({ id: t.id() }), output: Book })]);

  it('is breaking without the former name: clients of book fail', () => {
    const after = sdl([query('bookById', { input: t.object({ id: t.id() }), output: Book })]);
    expect(findSchemaChanges(before(), after).filter((change) => change.breaking).map((change) => change.message)).toEqual([expect.stringContaining('book')]);
  });

  it('is safe with aliases: [\'book\']: the old field stays, deprecated', () => {
    const after = sdl([query('bookById', { input: t.object({ id: t.id() }), output: Book, aliases: ['book'] })]);
    expect(findSchemaChanges(before(), after).filter((change) => change.breaking)).toEqual([]);
  });
});

describe('a renamed streaming operation with aliases', () => {
  const ticks = defineTestStreamOperation({
    name: 'ticks',
    aliases: ['counter'],
    input: t.object({ from: t.int32() }),
    output: t.int32(),
    graphql: { type: 'subscription' },
    async *handler(input) {
      yield input.from;
      yield (input.from as number) - 1;
    },
  });
  const ping = query('ping', { output: t.string() });

  it('has a Subscription field of its former name, deprecated as renamed', () => {
    expect(sdl([ticks, ping])).toContain('type Subscription {\n  counter(from: Int!): Int! @deprecated(reason: "renamed to ticks")\n  ticks(from: Int!): Int!\n}');
  });

  it('streams the operation\'s events to a subscription of the former name', async () => {
    const variables = new ContextVariables();
    const ctx: RequestContext = {
      protocol: 'graphql',
      method: 'POST',
      path: '/graphql',
      headers: {},
      ip: '127.0.0.1',
      state: {},
      statusCode: 0,
      signal: new AbortController().signal,
      setHeader: () => undefined,
      get: (key) => variables.get(key),
      set: (key, value) => variables.set(key, value),
    };
    const { schema, rootFor } = new OperationSchemas(undefined, () => [ticks, ping]).current();
    const events = (await subscribe({ schema, document: parse('subscription { counter(from: 2) }'), rootValue: rootFor!(ctx, undefined) })) as AsyncGenerator<ExecutionResult>;
    const seen: unknown[] = [];
    for await (const event of events) seen.push(event.data);
    expect(seen).toEqual([{ counter: 2 }, { counter: 1 }]);
  });
});
