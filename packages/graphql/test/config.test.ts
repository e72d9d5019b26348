import { Application } from '@fw/core';
import type { PluginHost } from '@fw/core/plugin';
import { GraphQLObjectType, GraphQLSchema, GraphQLString, buildSchema } from 'graphql';
import { DEFAULT_GRAPHQL_LIMITS, DEFAULT_GRAPHQL_PATH, DEFAULT_GRAPHQL_SUBSCRIPTIONS, graphqlPlugin, validateGraphQLConfig } from '../src/index.js';

const schema = buildSchema('type Query { hello: String }');

describe('validateGraphQLConfig', () => {
  it('accepts true and a configuration without a schema: the schema is generated from the operations', () => {
    expect(() => validateGraphQLConfig(true)).not.toThrow();
    expect(() => validateGraphQLConfig({})).not.toThrow();
    expect(() => validateGraphQLConfig({ path: '/gql' })).not.toThrow();
  });

  it('refuses a schema that is not a GraphQLSchema, naming what it got', () => {
    expect(() => validateGraphQLConfig({ schema: 'type Query { hello: String }' })).toThrow(/`schema` is not a GraphQLSchema \(got the string "type Query/);
    expect(() => validateGraphQLConfig({ schema: { query: {} } })).toThrow(/not a GraphQLSchema \(got a plain object\); pass \{ schema \} with a GraphQLSchema.*buildSchema.*or leave it out/);
    expect(() => validateGraphQLConfig({ schema: null })).toThrow(/not a GraphQLSchema \(got null\)/);
  });

  it('refuses values that are not a config object', () => {
    expect(() => validateGraphQLConfig(null)).toThrow(/must be an object, got null/);
    expect(() => validateGraphQLConfig(false)).toThrow(/must be an object, got boolean false/);
  });

  it('refuses unknown options so that typos do not pass silently', () => {
    expect(() => validateGraphQLConfig({ schema, introspecton: false })).toThrow(/unknown option "introspecton"; did you mean "introspection"\? Known options are .*introspection/);
    expect(() => validateGraphQLConfig({ schema, colour: 'blue' })).toThrow(/unknown option "colour"; known options are path, schema/);
    expect(() => validateGraphQLConfig({ schema, limits: { depth: 3 } })).toThrow(/unknown limit "depth"; known limits are maxDepth/);
    expect(() => validateGraphQLConfig({ schema, limits: { maxDepht: 3 } })).toThrow(/unknown limit "maxDepht"; did you mean "maxDepth"\? Known limits are maxDepth/);
    expect(() => validateGraphQLConfig({ schema, documentCache: { maxEntires: 5 } })).toThrow(/unknown documentCache option "maxEntires"; did you mean "maxEntries"\? Known are maxEntries, maxSize/);
  });

  it('refuses an array where limits or documentCache take an object', () => {
    expect(() => validateGraphQLConfig({ schema, limits: [5] })).toThrow(/`limits` must be an object, got an array/);
    expect(() => validateGraphQLConfig({ schema, documentCache: [] })).toThrow(/`documentCache` must be an object or false, got an array/);
  });

  it('checks the type of every option', () => {
    expect(() => validateGraphQLConfig({ schema, path: 'graphql' })).toThrow(/`path` must be a path starting with "\/"/);
    expect(() => validateGraphQLConfig({ schema, path: '/graphql?x' })).toThrow(/`path`/);
    expect(() => validateGraphQLConfig({ schema, playground: 'yes' })).toThrow(/`playground` must be a boolean or an object \{ defaultQuery \}/);
    expect(() => validateGraphQLConfig({ schema, playground: { defaultQuery: 1 } })).toThrow(/`playground.defaultQuery` must be a string, got/);
    expect(() => validateGraphQLConfig({ schema, playground: { defaultQuerry: '{ a }' } })).toThrow(/playground option "defaultQuerry"/);
    expect(() => validateGraphQLConfig({ schema, playground: { defaultQuery: '{ hello }' } })).not.toThrow();
    expect(() => validateGraphQLConfig({ schema, introspection: 1 })).toThrow(/`introspection` must be a boolean/);
    expect(() => validateGraphQLConfig({ schema, maskErrors: 'no' })).toThrow(/`maskErrors` must be a boolean/);
    expect(() => validateGraphQLConfig({ schema, rootValue: 5 })).toThrow(/`rootValue` must be an object/);
    expect(() => validateGraphQLConfig({ schema, onLog: 'console' })).toThrow(/`onLog` must be a function/);
    expect(() => validateGraphQLConfig({ schema, limits: { maxDepth: 0 } })).toThrow(/`limits.maxDepth` must be a positive integer or false/);
    expect(() => validateGraphQLConfig({ schema, limits: { maxAliases: 2.5 } })).toThrow(/`limits.maxAliases`/);
    expect(() => validateGraphQLConfig({ schema, documentCache: { maxEntries: -1 } })).toThrow(/`documentCache.maxEntries` must be a positive integer/);
    expect(() => validateGraphQLConfig({ schema, validationRules: ['x'] })).toThrow(/`validationRules` must be an array/);
    expect(() => validateGraphQLConfig({ schema, executor: 'graphql-jit' })).toThrow(/`executor` must be 'graphql-js' or 'jit', got the string "graphql-jit"/);
  });

  it('refuses the compiled executor without the document cache it compiles from', () => {
    expect(() => validateGraphQLConfig({ schema, executor: 'jit', documentCache: false })).toThrow(/`executor: 'jit'` compiles cached documents and needs the document cache/);
    expect(() => validateGraphQLConfig({ schema, executor: 'graphql-js', documentCache: false })).not.toThrow();
  });

  it('accepts a schema built with new GraphQLSchema and every documented option', () => {
    const built = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { hello: { type: GraphQLString } } }) });
    expect(() =>
      validateGraphQLConfig({
        schema: built,
        path: '/api/graphql',
        context: () => ({}),
        playground: false,
        introspection: false,
        rootValue: {},
        maskErrors: false,
        limits: { maxDepth: 5, maxAliases: false, maxRootFields: 3, maxDocumentSize: 1000, maxTokens: 100 },
        validationRules: [],
        documentCache: { maxEntries: 10, maxSize: 1000 },
        executor: 'jit',
        onLog: () => undefined,
      }),
    ).not.toThrow();
  });
});

describe('graphqlPlugin', () => {
  it('checks its configuration when it is created', () => {
    // @ts-expect-error path must be a string
    expect(() => graphqlPlugin({ path: 5 })).toThrow(/`path` must be a path/);
  });

  it('is a plugin named graphql that reports its schema and the default path', () => {
    const plugin = graphqlPlugin({ schema });
    expect(plugin.name).toBe('graphql');
    expect(plugin.path).toBe(DEFAULT_GRAPHQL_PATH);
    expect(DEFAULT_GRAPHQL_PATH).toBe('/graphql');
    expect(plugin.getSchema()).toBe(schema);
    const app = new Application();
    app.register(plugin);
    expect(app.getPlugin('graphql')).toBe(plugin);
  });

  it('refuses to claim a path twice on one app', () => {
    const app = new Application();
    app.register(graphqlPlugin({ schema }));
    const probe = { name: 'probe', setup: (host: PluginHost) => host.claimPath('/graphql', () => undefined) };
    expect(() => app.register(probe)).toThrow(/already claimed/);
  });

  it('publishes safe default limits', () => {
    expect(DEFAULT_GRAPHQL_LIMITS).toEqual({ maxDepth: 15, maxAliases: 30, maxRootFields: 20, maxDocumentSize: 65536, maxTokens: 15000, maxSelections: 2000, maxFieldPairs: 5000 });
    expect(Object.isFrozen(DEFAULT_GRAPHQL_LIMITS)).toBe(true);
  });

  it('publishes the subscription defaults', () => {
    expect(DEFAULT_GRAPHQL_SUBSCRIPTIONS).toEqual({ sse: true, websocket: true, maxPerConnection: 100, connectionInitTimeout: 3000 });
    expect(Object.isFrozen(DEFAULT_GRAPHQL_SUBSCRIPTIONS)).toBe(true);
  });
});

describe('the subscriptions option', () => {
  it('accepts false and every documented setting', () => {
    expect(() => validateGraphQLConfig({ subscriptions: false })).not.toThrow();
    expect(() => validateGraphQLConfig({ subscriptions: { sse: false, websocket: true, maxPerConnection: 5, connectionInitTimeout: 1000 } })).not.toThrow();
  });

  it('refuses unknown settings with the one meant, and values of the wrong type', () => {
    expect(() => validateGraphQLConfig({ subscriptions: { maxPerConnexion: 5 } })).toThrow('unknown subscriptions option "maxPerConnexion"; did you mean "maxPerConnection"?');
    expect(() => validateGraphQLConfig({ subscriptions: { sse: 'yes' } })).toThrow('`subscriptions.sse` must be a boolean, got the string "yes"');
    expect(() => validateGraphQLConfig({ subscriptions: { connectionInitTimeout: 0 } })).toThrow('`subscriptions.connectionInitTimeout` must be a positive integer, got number 0');
    expect(() => validateGraphQLConfig({ subscriptions: true })).toThrow('`subscriptions` must be an object or false, got boolean true');
  });
});
