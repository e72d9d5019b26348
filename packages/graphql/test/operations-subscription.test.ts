import { Application, HTTPError, tracked, ValidationError, type Middleware, type Operation, type RequestContext } from '@fw/core';
import { ContextVariables } from '@fw/core/plugin';
import { buildSchema, parse, subscribe, type ExecutionResult } from 'graphql';
import { graphqlPlugin, type GraphQLConfig } from '../src/index.js';
import { OperationSchemas } from '../src/operations/source.js';
import { defineTestOperation, defineTestStreamOperation, t } from './fixtures/operation.js';

// Streaming operations (stream: true, graphql: { type: 'subscription' }) are fields of the
// generated Subscription type, run with graphql-js's subscribe() on the generated schema: the
// operation opens through runStreamOperation, each event's data is the field's value.

const Genre = t.enum(['FICTION', 'SCIENCE'], { name: 'Genre' });
const BookEvent = t.object({ id: t.id(), title: t.string(), genre: Genre }, { name: 'BookEvent' });

/** What the handlers saw, for the tests to read. */
const seen = { started: 0, finished: 0, inputs: [] as unknown[] };

const bookAdded = defineTestStreamOperation({
  name: 'bookAdded',
  description: 'Books as they are added',
  input: t.object({ genre: t.optional(Genre), limit: { type: t.int32(), optional: true, default: { value: 3 } } }),
  output: BookEvent,
  graphql: { type: 'subscription' },
  async *handler(input) {
    seen.started++;
    seen.inputs.push(input);
    try {
      yield tracked('1', { id: '1', title: 'Dune', genre: 'FICTION', secret: 'x' });
      yield { id: '2', title: 'Cosmos', genre: 'SCIENCE' };
      yield { id: '3', title: 'Emma', genre: 'FICTION' };
    } finally {
      seen.finished++;
    }
  },
});

const ping = defineTestOperation({ name: 'ping', output: t.string(), graphql: { type: 'query' }, handler: () => 'pong' });

function context(): RequestContext {
  const variables = new ContextVariables();
  return {
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
}

/** graphql-js's subscribe() on the schema served for `ops`, with one request's root value. */
async function subscribeTo(ops: readonly Operation[], document: string, variables?: Record<string, unknown>): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const { schema, rootFor } = new OperationSchemas(undefined, () => ops).current();
  return subscribe({ schema, document: parse(document), rootValue: rootFor!(context(), undefined), variableValues: variables });
}

function isStream(result: AsyncGenerator<ExecutionResult> | ExecutionResult): result is AsyncGenerator<ExecutionResult> {
  return Symbol.asyncIterator in result;
}

function sdl(ops: readonly Operation[], config: GraphQLConfig = {}): string {
  const app = new Application();
  const plugin = graphqlPlugin(config);
  app.register(plugin);
  for (const op of ops) app.operation(op);
  return plugin.printSchema();
}

beforeEach(() => {
  seen.started = 0;
  seen.finished = 0;
  seen.inputs = [];
});

describe('the Subscription type', () => {
  it('has a field per streaming operation, with flat arguments, its defaults and description', () => {
    const out = sdl([ping, bookAdded]);
    expect(out).toContain('type Subscription {\n  """Books as they are added"""\n  bookAdded(genre: Genre, limit: Int = 3): BookEvent!\n}');
    expect(out).toContain('type BookEvent {\n  id: ID!\n  title: String!\n  genre: Genre!\n}');
  });

  it('is added to a schema of your own, beside its own subscription fields', () => {
    const user = buildSchema('type Query { hello: String } type Subscription { tick: Int }');
    expect(sdl([bookAdded], { schema: user })).toContain('type Subscription {\n  tick: Int\n\n  """Books as they are added"""\n  bookAdded(genre: Genre, limit: Int = 3): BookEvent!\n}');
    const noSubscriptions = buildSchema('type Query { hello: String }');
    expect(sdl([bookAdded], { schema: noSubscriptions })).toContain('type Subscription {');
  });

  it('refuses a streaming operation on Query or Mutation, and a unary one on Subscription', () => {
    const app = new Application();
    app.register(graphqlPlugin({}));
    const streamAsQuery = defineTestStreamOperation({ name: 'ticks', output: t.int32(), graphql: { type: 'query' }, async *handler() {} });
    expect(() => app.operation(streamAsQuery)).toThrow(`Operation "ticks": graphql.type: a streaming operation is a field of Subscription: graphql: { type: 'subscription' }, not "query"`);
    const unaryAsSubscription = defineTestOperation({ name: 'once', output: t.int32(), graphql: { type: 'subscription' }, handler: () => 1 });
    expect(() => app.operation(unaryAsSubscription)).toThrow('Operation "once": graphql.type: only a streaming operation (stream: true) can be a subscription');
  });
});

describe('subscribing with graphql-js subscribe() on the generated schema', () => {
  it("gives each event's data as the field's value, in order, shaped by the output", async () => {
    const result = await subscribeTo([ping, bookAdded], 'subscription { bookAdded(genre: FICTION) { id title } }');
    if (!isStream(result)) throw new Error(JSON.stringify(result));
    const values: unknown[] = [];
    for await (const next of result) values.push(next);
    expect(values).toEqual([
      { data: { bookAdded: { id: '1', title: 'Dune' } } },
      { data: { bookAdded: { id: '2', title: 'Cosmos' } } },
      { data: { bookAdded: { id: '3', title: 'Emma' } } },
    ]);
    // The flat arguments are the input, with GraphQL's defaults.
    expect(seen.inputs).toEqual([{ genre: 'FICTION', limit: 3 }]);
    expect(seen.finished).toBe(1);
  });

  it('answers a validation error before the first event, without starting the handler', async () => {
    const strict = defineTestStreamOperation({
      name: 'orderEvents',
      input: t.object({ orderId: t.id() }),
      output: t.string(),
      graphql: { type: 'subscription' },
      check: (input) => ((input.orderId as string).startsWith('o-') ? [] : [{ field: 'orderId', message: 'Not an order id' }]),
      async *handler() {
        seen.started++;
        yield 'never';
      },
    });
    const result = await subscribeTo([ping, strict], 'subscription { orderEvents(orderId: "x") }');
    expect(isStream(result)).toBe(false);
    const { errors } = result as ExecutionResult;
    expect(errors).toHaveLength(1);
    expect(errors![0]!.originalError).toBeInstanceOf(ValidationError);
    expect((errors![0]!.originalError as ValidationError).details).toEqual({ errors: [{ field: 'orderId', message: 'Not an order id' }] });
    expect(seen.started).toBe(0);
  });

  it("runs the operation's middleware once, when the subscription opens, and answers its refusal before any event", async () => {
    let runs = 0;
    const guard: Middleware<RequestContext> = async (_ctx, next) => {
      runs++;
      if (runs > 1) throw new HTTPError(401, 'Sign in first');
      await next();
    };
    const guarded = defineTestStreamOperation({ ...bookAddedDefinition(), name: 'guarded', middleware: [guard] });
    const first = await subscribeTo([ping, guarded], 'subscription { guarded { id } }');
    if (!isStream(first)) throw new Error(JSON.stringify(first));
    for await (const _ of first) void _;
    expect(runs).toBe(1);
    const refused = (await subscribeTo([ping, guarded], 'subscription { guarded { id } }')) as ExecutionResult;
    expect(refused.errors?.[0]?.originalError).toBeInstanceOf(HTTPError);
    expect((refused.errors![0]!.originalError as HTTPError).statusCode).toBe(401);
  });

  it("runs the handler's finally when the client leaves: return() on the subscription's iterator", async () => {
    const result = await subscribeTo([ping, bookAdded], 'subscription { bookAdded { title } }');
    if (!isStream(result)) throw new Error(JSON.stringify(result));
    expect(await result.next()).toEqual({ done: false, value: { data: { bookAdded: { title: 'Dune' } } } });
    expect(seen.finished).toBe(0);
    await result.return(undefined);
    expect(seen.finished).toBe(1);
    expect(await result.next()).toEqual({ done: true, value: undefined });
  });
});

/** bookAdded's definition, to make variants of it. */
function bookAddedDefinition(): Parameters<typeof defineTestStreamOperation>[0] {
  return {
    name: 'bookAdded',
    output: BookEvent,
    graphql: { type: 'subscription' },
    async *handler() {
      yield { id: '1', title: 'Dune', genre: 'FICTION' };
    },
  };
}
