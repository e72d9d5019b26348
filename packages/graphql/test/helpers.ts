import { Application, type ApplicationConfig } from '@fw/core';
import { buildSchema } from 'graphql';
import { graphqlPlugin } from '../src/index.js';
import type { GraphQLConfig } from '../src/index.js';

/** The schema most tests serve; resolvers live in `rootValue`, called with (args, context). */
export const schema = buildSchema(/* GraphQL */ `
  type Query {
    hello(name: String): String!
    whoami: String
    auth: String
    protocol: String
    user(id: ID!): User
    boom: String
    fail(status: Int!, message: String): String
    node: Node
  }
  type Mutation {
    addTodo(title: String!, done: Boolean): Todo!
  }
  type User {
    id: ID!
    name: String!
    friends: [User!]!
  }
  type Todo {
    id: ID!
    title: String!
    done: Boolean!
  }
  type Node {
    child: Node
    value: Int
  }
`);

/** A running app with the GraphQL plugin registered; close it in afterAll. */
export interface Served {
  app: Application;
  url: string;
  endpoint: string;
  close(): Promise<void>;
}

/** Starts an app on 127.0.0.1:0 with `graphqlPlugin(config)`; `prepare` adds middleware first. */
export async function serve(config: GraphQLConfig, prepare?: (app: Application) => void, appConfig: ApplicationConfig = {}): Promise<Served> {
  const app = new Application({ onLog: () => undefined, ...appConfig });
  prepare?.(app);
  app.register(graphqlPlugin(config));
  const info = await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${info.port}`;
  return { app, url, endpoint: `${url}${config.path ?? '/graphql'}`, close: () => app.close() };
}

/** What a GraphQL response looked like on the wire. */
export interface GqlResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** Sends a GraphQL request over a real socket. */
export async function gql(
  endpoint: string,
  payload: { query: string; variables?: Record<string, unknown>; operationName?: string },
  options: { method?: 'GET' | 'POST'; accept?: string; headers?: Record<string, string> } = {},
): Promise<GqlResponse> {
  const method = options.method ?? 'POST';
  const headers: Record<string, string> = { accept: options.accept ?? 'application/graphql-response+json', ...options.headers };
  let target = endpoint;
  let body: string | undefined;
  if (method === 'GET') {
    const url = new URL(endpoint);
    url.searchParams.set('query', payload.query);
    if (payload.variables !== undefined) url.searchParams.set('variables', JSON.stringify(payload.variables));
    if (payload.operationName !== undefined) url.searchParams.set('operationName', payload.operationName);
    target = url.toString();
  } else {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(payload);
  }
  const res = await fetch(target, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A selection `depth` fields deep: `child { child { ... value } }`. */
export function chain(depth: number): string {
  let inner = 'value';
  for (let i = 1; i < depth; i++) inner = `child { ${inner} }`;
  return inner;
}

/** A query `depth` fields deep: `{ node { child { ... value } } }`. */
export function nestedQuery(depth: number): string {
  return `{ node { ${chain(depth - 1)} } }`;
}
