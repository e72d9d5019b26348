// The README example, run as written (with a port of 0): it must keep compiling and working.
import { Application, HTTPError } from '@fw/core';
import { buildSchema } from 'graphql';
import { createGraphQLHandler, graphqlPlugin } from '../src/index.js';

const schema = buildSchema(`
  type Query { me: String!, todo(id: ID!): String! }
  type Mutation { addTodo(title: String!): String! }
`);

const todos = new Map<string, string>([['1', 'write the README']]);

interface GraphQLContext {
  userId: string | undefined;
  authorization: string | undefined;
}

function readmeApp(): Application {
  const app = new Application();

  // Global middleware runs on /graphql too: this one sets ctx.user from a bearer token.
  app.use(async (ctx, next) => {
    const header = ctx.headers.authorization;
    if (header?.startsWith('Bearer ')) ctx.user = { id: header.slice(7) };
    await next();
  });

  app.register(
    graphqlPlugin({
      schema,
      // req: the raw request (headers readable); ctx: the framework context (ctx.user from middleware).
      context: (req, ctx): GraphQLContext => ({
        userId: (ctx.user as { id: string } | undefined)?.id,
        authorization: req.headers.authorization,
      }),
      rootValue: {
        me: (_args: unknown, context: GraphQLContext) => {
          if (context.userId === undefined) throw new HTTPError(401, 'Sign in first');
          return context.userId;
        },
        todo: ({ id }: { id: string }) => {
          const todo = todos.get(id);
          if (todo === undefined) throw new HTTPError(404, `Todo ${id} not found`);
          return todo;
        },
        addTodo: ({ title }: { title: string }) => {
          todos.set(String(todos.size + 1), title);
          return title;
        },
      },
      limits: { maxDepth: 10 },
    }),
  );
  return app;
}

describe('the README example', () => {
  const app = readmeApp();
  let endpoint: string;

  beforeAll(async () => {
    const { port } = await app.listen(0, '127.0.0.1');
    endpoint = `http://127.0.0.1:${port}/graphql`;
  });
  afterAll(() => app.close());

  it('answers the curl commands shown in the README', async () => {
    const post = async (query: string, headers: Record<string, string> = {}) =>
      (await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) })).json();
    expect(await post('{ me }', { authorization: 'Bearer ada' })).toEqual({ data: { me: 'ada' } });
    expect(await post('{ todo(id: "7") }')).toEqual({
      errors: [{ message: 'Todo 7 not found', locations: [{ line: 1, column: 3 }], path: ['todo'], extensions: { code: 'NOT_FOUND', status: 404 } }],
      data: null,
    });
    expect(await post('mutation { addTodo(title: "ship it") }')).toEqual({ data: { addTodo: 'ship it' } });
  });

  it('mounts the same endpoint by hand with createGraphQLHandler', async () => {
    const manual = new Application();
    const handler = createGraphQLHandler({ schema, rootValue: { me: () => 'manual' }, playground: false });
    manual.register({ name: 'manual-graphql', setup: (host) => void host.claimPath('/gql', handler, { protocol: 'graphql' }) });
    const { port } = await manual.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/gql?query=${encodeURIComponent('{ me }')}`);
      expect(await res.json()).toEqual({ data: { me: 'manual' } });
    } finally {
      await manual.close();
    }
  });
});
