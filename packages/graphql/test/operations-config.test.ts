import { Application } from '@fw/core';
import { GraphQLError, Kind, buildSchema } from 'graphql';
import { createGraphQLHandler, graphqlPlugin } from '../src/index.js';
import { GraphQLDateTime } from '../src/operations/datetime.js';
import { defineTestOperation, t } from './fixtures/operation.js';
import { gql } from './helpers.js';

const NOTHING = /^GraphQL is enabled without a schema and no operation names graphql: pass \{ schema \}.*or register an operation with graphql: \{ type: "query" \}/;

const ping = defineTestOperation({ name: 'ping', output: t.string(), graphql: { type: 'query' }, handler: () => 'pong' });
const touch = defineTestOperation({ name: 'touch', output: t.boolean(), graphql: { type: 'mutation' }, handler: () => true });

describe('GraphQL without a schema', () => {
  it('serves the operations that name graphql, from graphqlPlugin({}) or graphqlPlugin(true)', async () => {
    for (const config of [{}, true] as const) {
      const app = new Application();
      app.register(graphqlPlugin(config)).operation(ping);
      const res = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ ping }' }) });
      expect(JSON.parse(res.body)).toEqual({ data: { ping: 'pong' } });
    }
  });

  it('throws from getSchema() and printSchema() while no operation names graphql', () => {
    const plugin = graphqlPlugin({});
    expect(() => plugin.getSchema()).toThrow(NOTHING);
    new Application().register(plugin);
    expect(() => plugin.getSchema()).toThrow(NOTHING);
    expect(() => plugin.printSchema()).toThrow(NOTHING);
  });

  it('fails listen() with that error, and leaves no server behind', async () => {
    const app = new Application({ onLog: () => undefined });
    app.register(graphqlPlugin({}));
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(NOTHING);
    expect(app.server?.listening ?? false).toBe(false);
  });

  it('answers a request in the meantime with a masked 500 GraphQL error, and logs why', async () => {
    const logs: string[] = [];
    const app = new Application({ onLog: (message) => void logs.push(message) });
    app.register(graphqlPlugin({}));
    const res = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ ping }' }) });
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] });
    expect(logs).toEqual([expect.stringMatching(/^GraphQL request failed on POST \/graphql: GraphQL is enabled without a schema and no operation names graphql/)]);
  });

  it('says a query is needed when every operation is a mutation', async () => {
    const app = new Application({ onLog: () => undefined });
    const plugin = graphqlPlugin({});
    app.register(plugin).operation(touch);
    expect(() => plugin.getSchema()).toThrow(/no operation is a query \(only mutations or subscriptions: "touch"\): GraphQL needs a query type/);
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(/no operation is a query/);
  });

  it('listens once an operation names graphql', async () => {
    const app = new Application();
    app.register(graphqlPlugin({})).operation(ping).operation(touch);
    const info = await app.listen(0, '127.0.0.1');
    try {
      const res = await gql(`${info.url.replace('localhost', '127.0.0.1')}/graphql`, { query: 'mutation { touch }' });
      expect(res.body).toEqual({ data: { touch: true } });
    } finally {
      await app.close();
    }
  });

  it('is refused by createGraphQLHandler, which serves one schema and no operations', () => {
    expect(() => createGraphQLHandler({})).toThrow(/createGraphQLHandler: `schema` is required.*generated from operations is served by graphqlPlugin/);
  });
});

describe('one plugin, one application', () => {
  it('refuses to be registered on a second application', () => {
    const plugin = graphqlPlugin({ schema: buildSchema('type Query { a: Int }') });
    new Application().register(plugin);
    expect(() => new Application().register(plugin)).toThrow(/already registered on an application/);
  });
});

describe('the DateTime scalar', () => {
  it('sends a Date as its ISO string and an ISO string as it is', () => {
    expect(GraphQLDateTime.serialize(new Date('2024-05-01T10:00:00Z'))).toBe('2024-05-01T10:00:00.000Z');
    expect(GraphQLDateTime.serialize('2024-05-01T10:00:00+02:00')).toBe('2024-05-01T10:00:00+02:00');
    expect(GraphQLDateTime.serialize('2024-05-01T10:00:00.123456Z')).toBe('2024-05-01T10:00:00.123456Z');
  });

  it.each([['an invalid Date', new Date('nope')], ['a date without time', '2024-05-01'], ['no offset', '2024-05-01T10:00:00'], ['31 April', '2024-04-31T10:00:00Z'], ['hour 24', '2024-05-01T24:00:00Z'], ['a number', 1714557600000], ['null', null]])(
    'refuses %s with a GraphQL error',
    (_what, value) => {
      expect(() => GraphQLDateTime.serialize(value)).toThrow(GraphQLError);
      expect(() => GraphQLDateTime.parseValue(value)).toThrow(/DateTime cannot represent/);
    },
  );

  it('parses ISO strings given as values and literals, and refuses other literals', () => {
    expect(GraphQLDateTime.parseValue('2024-02-29T23:59:59Z')).toBe('2024-02-29T23:59:59Z');
    expect(GraphQLDateTime.parseLiteral({ kind: Kind.STRING, value: '2024-05-01T10:00Z' })).toBe('2024-05-01T10:00Z');
    expect(() => GraphQLDateTime.parseLiteral({ kind: Kind.INT, value: '5' })).toThrow(/DateTime cannot represent 5/);
    expect(() => GraphQLDateTime.parseLiteral({ kind: Kind.STRING, value: '2023-02-29T10:00:00Z' })).toThrow(/DateTime cannot represent "2023-02-29T10:00:00Z"/);
  });
});
