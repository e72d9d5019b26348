import type { IncomingMessage } from 'node:http';
import type { AnyMiddleware, Context } from '@fw/core';
import type { Plugin } from '@fw/core/plugin';
import type { GraphQLSchema, ValidationRule } from 'graphql';

/**
 * Builds the value resolvers receive as their `context`. Called once per operation with the raw
 * node request (headers readable) and the framework context (`ctx.user` set by middleware,
 * `ctx.state`, `ctx.ip`, ...). May be async. Throw an `HTTPError` to refuse the request.
 * @example
 * context: (req, ctx) => ({ user: ctx.user, auth: req.headers.authorization })
 */
export type GraphQLContextFactory<TContext = unknown> = (req: IncomingMessage, ctx: Context) => TContext | Promise<TContext>;

/** Receives what the GraphQL endpoint logs: unexpected resolver errors (with their stack) and the like. */
export type GraphQLLogger = (message: string, error?: unknown) => void;

/**
 * Limits checked once per distinct document, before validation; exceeding one answers 400 with a
 * GraphQL error naming the limit. `false` turns a limit off.
 */
export interface GraphQLLimits {
  /** Deepest field nesting of an operation (fragments expanded; introspection fields not counted). @default 15 */
  maxDepth?: number | false;
  /** Most aliased fields in an operation (fragments expanded). @default 30 */
  maxAliases?: number | false;
  /** Most fields selected at the root of an operation (fragments expanded). @default 20 */
  maxRootFields?: number | false;
  /** Largest query text, in UTF-8 bytes. @default 65536 */
  maxDocumentSize?: number | false;
  /** Most lexical tokens the parser reads before giving up (graphql's `maxTokens`). @default 15000 */
  maxTokens?: number | false;
  /**
   * Most selections (fields, fragment spreads, inline fragments) in the document, every operation
   * and fragment definition included, a fragment counted again at each place it is spread. @default 2000
   */
  maxSelections?: number | false;
  /**
   * Most pairs of same-named fields at the same place (through inline fragments, spreads and the
   * sub-selections of same-named fields) that validation compares: n repeats make n(n-1)/2 pairs,
   * the cost that grows with the square of the document. A pair whose fields take arguments weighs
   * 1 + 8 per argument and 1 per list or object value on each side, since graphql prints them to
   * compare them. @default 5000
   */
  maxFieldPairs?: number | false;
}

/** Bounds of the parsed-and-validated document cache. */
export interface GraphQLDocumentCacheConfig {
  /** Most documents kept. @default 1000 */
  maxEntries?: number;
  /** Most query text kept, in characters, summed over all entries. @default 4194304 */
  maxSize?: number;
}

/**
 * Subscriptions over GraphQL-over-SSE (graphql-sse's protocol, both modes) and WebSocket (graphql-ws's
 * `graphql-transport-ws`). Heartbeats, per-client and total stream limits and the buffer bound of a
 * slow consumer are the app's (`streams` in the application config).
 */
export interface GraphQLSubscriptionsConfig {
  /** Serve GraphQL over server-sent events on the endpoint path (`Accept: text/event-stream`, stream tokens). @default true */
  sse?: boolean;
  /** Serve graphql-ws over WebSocket on the endpoint path (needs the plugin on an app; `createGraphQLHandler` has no upgrades). @default true */
  websocket?: boolean;
  /** Most subscriptions one connection carries at once: a WebSocket, or a single-connection event stream. More are refused (429). @default 100 */
  maxPerConnection?: number;
  /**
   * How long a WebSocket may stay open before its `connection_init` (closed with 4408 after), and a
   * single-connection reservation (`PUT`) may wait for its event stream (dropped after), in ms. @default 3000
   */
  connectionInitTimeout?: number;
}

/** What executes queries and mutations: graphql-js, or graphql-jit's compiled code where it answers as graphql-js does. */
export type GraphQLExecutor = 'graphql-js' | 'jit';

/** Configuration of the GraphQL endpoint (`GraphQLConfig`, with production options). */
export interface GraphQLConfig<TContext = unknown> {
  /** The endpoint path (exact match). @default '/graphql' */
  path?: string;
  /**
   * The schema to serve. The fields of the operations that name `graphql` are added to it (to its
   * query and mutation types). Without one, the schema is generated from those operations alone.
   * @default undefined (generated from the operations)
   */
  schema?: GraphQLSchema;
  /**
   * The value resolvers get as `context`: a factory `(req, ctx) => value` (may be async), or a
   * fixed value. @default the framework `Context` of the request (so `context.user` works)
   */
  context?: GraphQLContextFactory<TContext> | (TContext & object);
  /**
   * Serve GraphiQL (bundled, works offline) for a GET that accepts `text/html`. An object serves it
   * too, with `defaultQuery`: what the editor opens on (instead of GraphiQL's welcome text) when
   * the URL has no `?query=` and the browser kept no editor of its own. @default true
   */
  playground?: boolean | { defaultQuery?: string };
  /** Allow `__schema` / `__type` introspection queries. @default true */
  introspection?: boolean;
  /** The root value; its functions are resolvers called with `(args, context, info)`. @default undefined */
  rootValue?: unknown;
  /** Replace the message of unexpected resolver errors with "Internal server error". @default true */
  maskErrors?: boolean;
  /** Query limits; see {@link GraphQLLimits} for each default. */
  limits?: GraphQLLimits;
  /** Extra validation rules, run after graphql's specified rules (results are cached with the document). @default [] */
  validationRules?: readonly ValidationRule[];
  /** Bounds of the document cache, or `false` to parse and validate every request. @default { maxEntries: 1000, maxSize: 4194304 } */
  documentCache?: GraphQLDocumentCacheConfig | false;
  /**
   * What executes queries and mutations. `'graphql-js'`: graphql-js's `execute`, for every request.
   * `'jit'`: a cached document is compiled by graphql-jit from its second request, when its
   * operation has none of the shapes graphql-jit answers differently (those keep running on
   * graphql-js; the README lists them). Needs the document cache. @default 'graphql-js'
   */
  executor?: GraphQLExecutor;
  /**
   * Automatic persisted queries (Apollo's APQ): a request may send `extensions.persistedQuery.sha256Hash`
   * instead of the query once the query was sent with its hash. The store has the bounds of
   * `documentCache`. With `false`, such requests get `PERSISTED_QUERY_NOT_SUPPORTED` and clients
   * fall back to sending the query. @default true
   */
  persistedQueries?: boolean;
  /**
   * Subscriptions over server-sent events and WebSocket (see {@link GraphQLSubscriptionsConfig}), or
   * `false` to refuse subscription operations. @default { sse: true, websocket: true, maxPerConnection: 100, connectionInitTimeout: 3000 }
   */
  subscriptions?: GraphQLSubscriptionsConfig | false;
  /**
   * Where unexpected errors are logged, with their stack (the message with control characters
   * escaped). @default the app's logger (its `onLog`) under `graphqlPlugin`; stderr for a standalone `createGraphQLHandler`
   */
  onLog?: GraphQLLogger;
}

/** The request handler of the endpoint: a middleware answering GraphQL over HTTP (and the playground page). */
export type GraphQLHandler = AnyMiddleware;

/** The GraphQL protocol plugin: register it with `app.register(graphqlPlugin(config))`. */
export interface GraphQLPlugin extends Plugin {
  /** Always `graphql`. */
  readonly name: 'graphql';
  /** The endpoint path. */
  readonly path: string;
  /** The handler mounted on `path` (exposed for custom mounting and benchmarks). */
  readonly handler: GraphQLHandler;
  /**
   * The schema being served: the configured one with the fields of the operations that name
   * `graphql`, or the one generated from them. Throws when there is neither a schema nor a GraphQL
   * operation (nor a query among them).
   */
  getSchema(): GraphQLSchema;
  /** The SDL of the served schema (graphql's `printSchema`), as `fw emit` writes it to `schema.graphql`. Throws as `getSchema` does. */
  printSchema(): string;
}
