import { Application, HTTPError, OPERATION_NAME, type Middleware, type Operation, type RequestContext, type TraceSpan } from '@fw/core';
import { buildSchema, type ValidationRule } from 'graphql';
import { serverAudits } from 'graphql-http';
import { graphqlPlugin, type GraphQLConfig } from '../src/index.js';
import { defineTestOperation, t } from './fixtures/operation.js';
import { gql } from './helpers.js';

/** An app on 127.0.0.1:0 with the GraphQL plugin and the operations; close it after. */
async function start(
  ops: readonly Operation[],
  options: { config?: GraphQLConfig; prepare?: (app: Application) => void; logs?: Array<[string, unknown]> } = {},
): Promise<{ app: Application; endpoint: string; close: () => Promise<void> }> {
  const logs = options.logs;
  const app = new Application({ onLog: (message, error) => void logs?.push([message, error]) });
  options.prepare?.(app);
  app.register(graphqlPlugin(options.config ?? {}));
  for (const op of ops) app.operation(op);
  const info = await app.listen(0, '127.0.0.1');
  return { app, endpoint: `http://127.0.0.1:${info.port}/graphql`, close: () => app.close() };
}

const Book = t.object({ id: t.string(), title: t.string(), publishedAt: t.nullable(t.datetime()) }, { name: 'Book' });
const books = new Map<string, { id: string; title: string; publishedAt: Date | null }>([['1', { id: '1', title: 'Dune', publishedAt: new Date('1965-08-01T00:00:00Z') }]]);

/** Answers for the request's `x-user` header (what an authentication middleware would set). */
const appUser: Middleware<RequestContext> = async (ctx, next) => {
  const header = ctx.headers['x-user'];
  if (typeof header === 'string') ctx.user = { id: header };
  await next();
};

const requireUser: Middleware<RequestContext> = async (ctx, next) => {
  if (ctx.user === undefined) throw new HTTPError(401, 'Sign in first');
  await next();
};

const getBook = defineTestOperation({
  name: 'getBook',
  input: t.object({ id: t.string() }),
  output: t.nullable(Book),
  graphql: { type: 'query' },
  handler: ({ id }) => books.get(id as string) ?? null,
});

const addBook = defineTestOperation({
  name: 'addBook',
  input: t.object({ title: t.string(), isbn: t.nullable(t.string()) }),
  output: Book,
  graphql: { type: 'mutation' },
  check: (input) => ((input.title as string).trim() === '' ? [{ field: 'title', message: 'Title must not be blank' }] : []),
  handler: ({ title }) => ({ id: String(books.size + 1), title, publishedAt: null }),
});

const whoAmI = defineTestOperation({
  name: 'whoAmI',
  output: t.object({ user: t.string(), protocol: t.string() }),
  graphql: { type: 'query' },
  middleware: [requireUser],
  handler: (_input, ctx) => ({ user: (ctx.user as { id: string }).id, protocol: ctx.protocol }),
});

const fail = defineTestOperation({
  name: 'fail',
  input: t.object({ status: t.int32() }),
  output: t.string(),
  graphql: { type: 'query' },
  handler: ({ status }) => {
    if (status === 400) throw new HTTPError(400, 'Bad thing');
    throw new HTTPError(status as number, `Failed with ${String(status)}`);
  },
});

const broken = defineTestOperation({
  name: 'broken',
  output: t.object({ count: t.int32() }),
  graphql: { type: 'query' },
  handler: () => ({ count: 'many' }),
});

describe('operations served over GraphQL', () => {
  let served: Awaited<ReturnType<typeof start>>;
  const logs: Array<[string, unknown]> = [];
  beforeAll(async () => {
    served = await start([getBook, addBook, whoAmI, fail, broken], { logs, prepare: (app) => app.use(appUser) });
  });
  afterAll(() => served.close());

  it('answers a query with the handler result, dates as ISO strings', async () => {
    const res = await gql(served.endpoint, { query: '{ getBook(id: "1") { id title publishedAt } }' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { getBook: { id: '1', title: 'Dune', publishedAt: '1965-08-01T00:00:00.000Z' } } });
  });

  it('answers a query over GET, with variables', async () => {
    const res = await gql(served.endpoint, { query: 'query Q($id: String!) { getBook(id: $id) { title } }', variables: { id: '1' } }, { method: 'GET' });
    expect(res.body).toEqual({ data: { getBook: { title: 'Dune' } } });
  });

  it('answers a mutation, the input given as one variable', async () => {
    const res = await gql(served.endpoint, { query: 'mutation M($input: AddBookInput!) { addBook(input: $input) { title publishedAt } }', variables: { input: { title: 'Emma', isbn: null } } });
    expect(res.body).toEqual({ data: { addBook: { title: 'Emma', publishedAt: null } } });
  });

  it('refuses a mutation over GET, as for any schema', async () => {
    const res = await gql(served.endpoint, { query: 'mutation { addBook(input: { title: "x", isbn: null }) { id } }' }, { method: 'GET' });
    expect(res.status).toBe(405);
  });

  it('answers input validation errors with BAD_USER_INPUT, the status and the field errors named by argument path', async () => {
    const blank = await gql(served.endpoint, { query: 'mutation { addBook(input: { title: " ", isbn: null }) { id } }' });
    expect(blank.status).toBe(200);
    expect(blank.body.data).toBeNull();
    expect(blank.body.errors).toEqual([
      {
        message: 'Validation failed',
        locations: [{ line: 1, column: 12 }],
        path: ['addBook'],
        extensions: { code: 'BAD_USER_INPUT', status: 400, details: { errors: [{ field: 'input.title', message: 'Title must not be blank' }] } },
      },
    ]);
    // A nullable field GraphQL lets a client leave out, that the input requires.
    const missing = await gql(served.endpoint, { query: 'mutation { addBook(input: { title: "Emma" }) { id } }' });
    expect(missing.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400, details: { errors: [{ field: 'input.isbn', message: 'Required' }] } });
  });

  it('leaves what GraphQL itself refuses (a missing non-null field) to GraphQL, before the operation runs', async () => {
    const res = await gql(served.endpoint, { query: 'mutation { addBook(input: { isbn: null }) { id } }' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/Field "AddBookInput.title" of required type "String!" was not provided/);
  });

  it.each([
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [429, 'TOO_MANY_REQUESTS'],
    [400, 'BAD_REQUEST'],
  ])('maps an HTTPError %i thrown by the handler to %s, with its message', async (status, code) => {
    const res = await gql(served.endpoint, { query: `{ fail(status: ${status}) }` });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ path: ['fail'], extensions: { code, status } });
    expect(res.body.errors[0].message).toBe(status === 400 ? 'Bad thing' : `Failed with ${status}`);
  });

  it('masks a result that does not match the output as INTERNAL_SERVER_ERROR and logs it through the app log', async () => {
    logs.length = 0;
    const res = await gql(served.endpoint, { query: '{ broken { count } }' });
    expect(res.body).toEqual({
      data: null,
      errors: [{ message: 'Internal server error', locations: [{ line: 1, column: 3 }], path: ['broken'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }],
    });
    expect(res.text).not.toContain('does not match');
    expect(logs.map(([message]) => message)).toEqual([expect.stringMatching(/^GraphQL error at broken: Operation "broken": the handler's result does not match the output at output.count/)]);
  });

  it("runs the operation's middleware: a refusal is the field's error (401)", async () => {
    const res = await gql(served.endpoint, { query: '{ whoAmI { user } }' });
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0]).toMatchObject({ message: 'Sign in first', path: ['whoAmI'], extensions: { code: 'UNAUTHENTICATED', status: 401 } });
  });

  it("gives the handler the request's context: the user the app middleware set, protocol graphql", async () => {
    const res = await gql(served.endpoint, { query: '{ whoAmI { user protocol } }' }, { headers: { 'x-user': 'ada' } });
    expect(res.body).toEqual({ data: { whoAmI: { user: 'ada', protocol: 'graphql' } } });
  });

  it('serves operations beside the introspection and __typename', async () => {
    const res = await gql(served.endpoint, { query: '{ __typename getBook(id: "2") { id } }' });
    expect(res.body).toEqual({ data: { __typename: 'Query', getBook: null } });
  });
});

describe('dates and 32-bit integers', () => {
  const echo = defineTestOperation({
    name: 'echo',
    input: t.object({ at: t.datetime(), n: t.int() }),
    output: t.object({ at: t.datetime(), n: t.int() }),
    graphql: { type: 'query' },
    handler: (input) => input,
  });
  const big = defineTestOperation({ name: 'big', output: t.int(), graphql: { type: 'query' }, handler: () => 3_000_000_000 });
  const late = defineTestOperation({ name: 'late', output: t.object({ at: t.datetime() }), graphql: { type: 'query' }, handler: () => ({ at: 'yesterday' }) });
  let served: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    served = await start([echo, late, big]);
  });
  afterAll(() => served.close());

  it('accepts ISO 8601 date-times as literals and variables, and gives them to the operation as sent', async () => {
    const literal = await gql(served.endpoint, { query: '{ echo(at: "2024-05-01T10:00:00+02:00", n: 1) { at n } }' });
    expect(literal.body).toEqual({ data: { echo: { at: '2024-05-01T10:00:00+02:00', n: 1 } } });
    const variable = await gql(served.endpoint, { query: 'query($at: DateTime!) { echo(at: $at, n: 2) { at } }', variables: { at: '2024-05-01T10:00Z' } });
    expect(variable.body).toEqual({ data: { echo: { at: '2024-05-01T10:00Z' } } });
  });

  it('refuses a date-time that is not ISO 8601, as a literal or a variable', async () => {
    const literal = await gql(served.endpoint, { query: '{ echo(at: "May 1st", n: 1) { at } }' });
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].message).toMatch(/DateTime cannot represent "May 1st": expected an ISO 8601 date-time string/);
    const variable = await gql(served.endpoint, { query: 'query($at: DateTime!) { echo(at: $at, n: 2) { at } }', variables: { at: '2024-02-30T10:00:00Z' } });
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].message).toMatch(/DateTime cannot represent "2024-02-30T10:00:00Z"/);
    const number = await gql(served.endpoint, { query: '{ echo(at: 5, n: 1) { at } }' });
    expect(number.body.errors[0].message).toMatch(/DateTime cannot represent 5/);
  });

  it('refuses a result date that is not ISO 8601 with an error, never sending it', async () => {
    const res = await gql(served.endpoint, { query: '{ late { at } }' });
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].message).toMatch(/DateTime cannot represent "yesterday"/);
  });

  it('refuses an integer beyond 32 bits rather than truncating it', async () => {
    const input = await gql(served.endpoint, { query: '{ echo(at: "2024-05-01T10:00:00Z", n: 3000000000) { n } }' });
    expect(input.status).toBe(400);
    expect(input.body.errors[0].message).toMatch(/Int cannot represent non 32-bit signed integer value: 3000000000/);
    const output = await gql(served.endpoint, { query: '{ big }' });
    expect(output.body).toEqual({ data: null, errors: [expect.objectContaining({ message: 'Int cannot represent non 32-bit signed integer value: 3000000000', path: ['big'] })] });
  });
});

describe('the fw context with a context factory', () => {
  let served: Awaited<ReturnType<typeof start>>;
  const schema = buildSchema('type Query { hello: String, appContext: String }');
  beforeAll(async () => {
    served = await start([whoAmI], {
      prepare: (app) => app.use(appUser),
      config: {
        schema,
        // Resolvers of the user's fields get this; operations still get the request's fw context.
        context: (_req, ctx) => ({ kind: 'app-context', user: ctx.user }),
        rootValue: { hello: () => 'world', appContext: (_args: unknown, context: { kind: string }) => context.kind },
      },
    });
  });
  afterAll(() => served.close());

  it("reaches the operation, while the schema's own resolvers get the factory's value", async () => {
    const res = await gql(served.endpoint, { query: '{ hello appContext whoAmI { user protocol } }' }, { headers: { 'x-user': 'grace' } });
    expect(res.body).toEqual({ data: { hello: 'world', appContext: 'app-context', whoAmI: { user: 'grace', protocol: 'graphql' } } });
  });

  it('is the context of each request, with requests in flight together', async () => {
    const users = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
    const answers = await Promise.all(users.map((user) => gql(served.endpoint, { query: '{ whoAmI { user } }' }, { headers: { 'x-user': user } })));
    expect(answers.map((res) => res.body.data.whoAmI.user)).toEqual(users);
  });
});

describe('a fixed context value', () => {
  it('does not stop the operation getting the fw context', async () => {
    const served = await start([whoAmI], { prepare: (app) => app.use(appUser), config: { context: { shared: true } } });
    try {
      const res = await gql(served.endpoint, { query: '{ whoAmI { user } }' }, { headers: { 'x-user': 'lin' } });
      expect(res.body).toEqual({ data: { whoAmI: { user: 'lin' } } });
    } finally {
      await served.close();
    }
  });
});

describe('the output', () => {
  it('is the result execute shaped, not what the handler returned: keys the output does not name never reach graphql', async () => {
    let reads = 0;
    const raw = {
      id: '7',
      get title(): string {
        reads++;
        return 'Counted';
      },
      secret: 'hunter2',
    };
    const op = defineTestOperation({ name: 'book', output: t.object({ id: t.string(), title: t.string() }), graphql: { type: 'query' }, handler: () => raw });
    const execute = op.execute.bind(op);
    const results: unknown[] = [];
    const spied: Operation = {
      ...op,
      execute: async (...args) => {
        const result = await execute(...args);
        results.push(result);
        return result;
      },
    };
    const served = await start([spied]);
    try {
      const res = await gql(served.endpoint, { query: '{ book { id title } }' });
      expect(res.body).toEqual({ data: { book: { id: '7', title: 'Counted' } } });
      // Read once, by execute's shaping: graphql read the shaped copy, which has no `secret`.
      expect(reads).toBe(1);
      expect(results).toEqual([{ id: '7', title: 'Counted' }]);
    } finally {
      await served.close();
    }
  });
});

describe('with a schema of your own', () => {
  const schema = buildSchema('type Query { hello(name: String): String! } type Mutation { touch: Boolean }');
  let served: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    served = await start([getBook, addBook], { config: { schema, rootValue: { hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}`, touch: () => true } } });
  });
  afterAll(() => served.close());

  it('serves its rootValue resolvers and the operations in one query', async () => {
    const res = await gql(served.endpoint, { query: '{ hello(name: "Ada") getBook(id: "1") { title } }' });
    expect(res.body).toEqual({ data: { hello: 'Hello Ada', getBook: { title: 'Dune' } } });
  });

  it('serves its mutations beside the operations', async () => {
    const res = await gql(served.endpoint, { query: 'mutation { touch addBook(input: { title: "Persuasion", isbn: null }) { title } }' });
    expect(res.body).toEqual({ data: { touch: true, addBook: { title: 'Persuasion' } } });
  });
});

describe('operations registered after the first request', () => {
  it('are served from the next request on; documents validated against the old schema are validated again', async () => {
    const schema = buildSchema('type Query { hello: String }');
    // Counts validations of `{ hello }` (a cache hit skips validation).
    let validations = 0;
    const counting: ValidationRule = (context) => ({
      Document: () => {
        if (context.getDocument().loc?.source.body === '{ hello }') validations++;
      },
    });
    const served = await start([], { config: { schema, rootValue: { hello: () => 'world' }, validationRules: [counting] } });
    try {
      expect((await gql(served.endpoint, { query: '{ hello }' })).body).toEqual({ data: { hello: 'world' } });
      expect((await gql(served.endpoint, { query: '{ hello }' })).body).toEqual({ data: { hello: 'world' } });
      expect(validations).toBe(1);
      const before = await gql(served.endpoint, { query: '{ getBook(id: "1") { title } }' });
      expect(before.body.errors[0].message).toMatch(/Cannot query field "getBook" on type "Query"/);

      served.app.operation(getBook);
      expect((await gql(served.endpoint, { query: '{ getBook(id: "1") { title } }' })).body).toEqual({ data: { getBook: { title: 'Dune' } } });
      expect((await gql(served.endpoint, { query: '{ hello }' })).body).toEqual({ data: { hello: 'world' } });
      expect(validations).toBe(2);
      // An operation that is not served on GraphQL changes nothing.
      served.app.operation(defineTestOperation({ name: 'restOnly', rest: { method: 'GET', path: '/rest-only' }, output: t.string(), handler: () => 'x' }));
      expect((await gql(served.endpoint, { query: '{ hello }' })).body).toEqual({ data: { hello: 'world' } });
      expect(validations).toBe(2);
      const plugin = served.app.getPlugin<ReturnType<typeof graphqlPlugin>>('graphql')!;
      expect(plugin.printSchema()).toContain('getBook(id: String!): Book');
    } finally {
      await served.close();
    }
  });
});

describe('several operations in one query', () => {
  it('each run with their own input and give their own result', async () => {
    // Middleware that waits a turn of the event loop, so that the fields' runs overlap.
    const yieldTurn: Middleware<RequestContext> = async (_ctx, next) => {
      await new Promise((resolve) => setImmediate(resolve));
      await next();
    };
    const echo = (name: string): Operation =>
      defineTestOperation({ name, input: t.object({ value: t.string() }), output: t.string(), graphql: { type: 'query' }, middleware: [yieldTurn], handler: ({ value }) => `${name}:${String(value)}` });
    const served = await start([echo('first'), echo('second'), echo('third')]);
    try {
      const res = await gql(served.endpoint, { query: '{ first(value: "a") second(value: "b") third(value: "c") }' });
      expect(res.body).toEqual({ data: { first: 'first:a', second: 'second:b', third: 'third:c' } });
    } finally {
      await served.close();
    }
  });
});

describe('tracing and logs', () => {
  it('names the operation: a child span per field, and the operation name of an anonymous document', async () => {
    const spans: Array<{ name: string; attributes: unknown; ended: boolean; error: unknown }> = [];
    const names: Array<string | undefined> = [];
    const served = await start([getBook], {
      prepare: (app) =>
        app.use(async (ctx, next) => {
          ctx.startSpan = (name, attributes) => {
            const span = { name, attributes, ended: false, error: undefined as unknown };
            spans.push(span);
            return span as unknown as TraceSpan;
          };
          ctx.endSpan = (span, error) => {
            Object.assign(span as object, { ended: true, error });
          };
          await next();
          names.push(ctx.get(OPERATION_NAME));
        }),
    });
    try {
      await gql(served.endpoint, { query: '{ getBook(id: "1") { id } }' });
      await gql(served.endpoint, { query: 'query Named { getBook(id: "1") { id } }' });
      expect(spans.map(({ name, attributes, ended }) => ({ name, attributes, ended }))).toEqual([
        { name: 'operation getBook', attributes: { 'fw.operation.name': 'getBook' }, ended: true },
        { name: 'operation getBook', attributes: { 'fw.operation.name': 'getBook' }, ended: true },
      ]);
      // The document's own name wins when it has one.
      expect(names).toEqual(['getBook', 'Named']);
    } finally {
      await served.close();
    }
  });
});

describe('graphql-http server audits, on a schema generated from operations', () => {
  let served: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    served = await start([getBook, addBook]);
  });
  afterAll(() => served.close());

  for (const audit of serverAudits({ url: () => served.endpoint })) {
    it(`${audit.id} ${audit.name}`, async () => {
      const result = await audit.fn();
      if (result.status !== 'ok') throw new Error(`${result.status}: ${result.reason}`);
    });
  }
});

describe("documents with operations, run compiled (executor: 'jit')", () => {
  /** whoAmI with a nullable answer: beside other root fields it stays compiled (see compiledFallback). */
  const whoIsIt = defineTestOperation({
    name: 'whoIsIt',
    output: t.nullable(t.object({ user: t.string() })),
    graphql: { type: 'query' },
    middleware: [requireUser],
    handler: (_input, ctx) => ({ user: (ctx.user as { id: string }).id }),
  });

  /** A root value whose method reads a private field: it answers only with the root value itself as `this`. */
  class Root {
    readonly #greeting = 'hi';
    readonly schemas: unknown[] = [];
    hello(): string {
      return this.#greeting;
    }
    engine(_args: unknown, _context: unknown, info: { schema: unknown }): string {
      this.schemas.push(info.schema);
      return 'ok';
    }
  }

  it('are compiled by graphql-jit from their second run on, each request with its own fw context, root value methods called on the root value', async () => {
    const rootValue = new Root();
    const served = await start([whoIsIt, getBook], {
      prepare: (app) => app.use(appUser),
      config: { schema: buildSchema('type Query { hello: String, engine: String }'), rootValue, executor: 'jit' },
    });
    try {
      const query = '{ hello engine whoIsIt { user } getBook(id: "1") { title } }';
      for (const user of ['u1', 'u2', 'u3']) {
        const res = await gql(served.endpoint, { query }, { headers: { 'x-user': user } });
        expect(res.body).toEqual({ data: { hello: 'hi', engine: 'ok', whoIsIt: { user }, getBook: { title: 'Dune' } } });
      }
      // graphql-jit runs against its own copy of the served schema; graphql-js runs the first request.
      expect(rootValue.schemas).toHaveLength(3);
      expect(rootValue.schemas[1]).not.toBe(rootValue.schemas[0]);
      expect(rootValue.schemas[2]).toBe(rootValue.schemas[1]);
    } finally {
      await served.close();
    }
  });

  it('run mutations in order, each operation with the fw context', async () => {
    // Two non-null fields beside each other: graphql-js runs it (see compiledFallback).
    const served = await start([whoAmI, addBook], { prepare: (app) => app.use(appUser), config: { executor: 'jit' } });
    try {
      const query = 'mutation { a: addBook(input: { title: "A", isbn: null }) { title } b: addBook(input: { title: "B", isbn: null }) { title } }';
      for (let i = 0; i < 3; i++) {
        const res = await gql(served.endpoint, { query }, { headers: { 'x-user': 'u' } });
        expect(res.body).toEqual({ data: { a: { title: 'A' }, b: { title: 'B' } } });
      }
    } finally {
      await served.close();
    }
  });
});
