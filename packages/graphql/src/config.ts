import { checkOptions, type CheckOptionsConfig } from '@fw/core/plugin';
import type { GraphQLSchema, ValidationRule } from 'graphql';
import { graphqlLib } from './internal/graphql-lib.js';
import type { GraphQLConfig, GraphQLContextFactory, GraphQLExecutor, GraphQLLimits, GraphQLLogger, GraphQLSubscriptionsConfig } from './types.js';

/** Default endpoint path. */
export const DEFAULT_GRAPHQL_PATH = '/graphql';

/** Default query limits (see `GraphQLLimits`). */
export const DEFAULT_GRAPHQL_LIMITS: Readonly<Required<GraphQLLimits>> = Object.freeze({
  maxDepth: 15,
  maxAliases: 30,
  maxRootFields: 20,
  maxDocumentSize: 65_536,
  maxTokens: 15_000,
  maxSelections: 2000,
  maxFieldPairs: 5000,
});

const DEFAULT_CACHE = { maxEntries: 1000, maxSize: 4 * 1024 * 1024 };

/** Default subscription settings (see `GraphQLSubscriptionsConfig`). */
export const DEFAULT_GRAPHQL_SUBSCRIPTIONS: Readonly<Required<GraphQLSubscriptionsConfig>> = Object.freeze({
  sse: true,
  websocket: true,
  maxPerConnection: 100,
  connectionInitTimeout: 3000,
});

const HOW_TO_PASS =
  'pass { schema } with a GraphQLSchema from the graphql package, e.g. { schema: buildSchema(`type Query { hello: String }`) } or { schema: new GraphQLSchema({ query }) }, or leave it out to serve the operations that name graphql';

// Every option name, typed: the compiler fails here when an option is added to GraphQLConfig but
// not to this list, so a valid option is never refused.
const CONFIG_KEYS: Record<keyof GraphQLConfig, true> = {
  path: true,
  schema: true,
  context: true,
  playground: true,
  introspection: true,
  rootValue: true,
  maskErrors: true,
  limits: true,
  validationRules: true,
  documentCache: true,
  executor: true,
  persistedQueries: true,
  subscriptions: true,
  onLog: true,
};
const KNOWN_KEYS = Object.keys(CONFIG_KEYS);
const CACHE_KEYS = ['maxEntries', 'maxSize'];
const PLAYGROUND_KEYS: Array<keyof Exclude<NonNullable<GraphQLConfig['playground']>, boolean>> = ['defaultQuery'];
const EXECUTORS: readonly GraphQLExecutor[] = ['graphql-js', 'jit'];
const SUBSCRIPTION_KEYS = Object.keys(DEFAULT_GRAPHQL_SUBSCRIPTIONS);
const LIMIT_KEYS = Object.keys(DEFAULT_GRAPHQL_LIMITS);

/** How this package's messages name an unknown key (`unknown limit "maxDepht"; ... Known limits are ...`). */
const unknownKey = (kind: string, listed: string): CheckOptionsConfig => ({ owner: 'GraphQL config', kind, listing: (names) => `${listed} ${names}.` });
const UNKNOWN_OPTION = unknownKey('option', 'known options are');
const UNKNOWN_LIMIT = unknownKey('limit', 'known limits are');
const UNKNOWN_SUBSCRIPTIONS_OPTION = unknownKey('subscriptions option', 'known are');
const UNKNOWN_CACHE_OPTION = unknownKey('documentCache option', 'known are');
const UNKNOWN_PLAYGROUND_OPTION = unknownKey('playground option', 'known are');

/** The configuration with every default applied (internal). */
export interface ResolvedGraphQLConfig {
  path: string;
  /** Undefined: the schema is generated from the operations. */
  schema: GraphQLSchema | undefined;
  context: GraphQLContextFactory | undefined;
  contextValue: unknown;
  hasContextValue: boolean;
  playground: boolean;
  /** What the playground's editor opens on; undefined: GraphiQL's own welcome text. */
  playgroundQuery: string | undefined;
  introspection: boolean;
  rootValue: unknown;
  maskErrors: boolean;
  limits: Required<GraphQLLimits>;
  validationRules: readonly ValidationRule[];
  documentCache: { maxEntries: number; maxSize: number } | false;
  /** What executes queries and mutations. */
  executor: GraphQLExecutor;
  /** The bounds of the persisted query store (those of the document cache), or false when off. */
  persistedQueries: { maxEntries: number; maxSize: number } | false;
  /** Subscription settings, or false when subscriptions are refused. */
  subscriptions: Required<GraphQLSubscriptionsConfig> | false;
  /** The configuration's own logger; undefined means the app's (or stderr, standalone). */
  onLog: GraphQLLogger | undefined;
}

/**
 * Checks a GraphQL configuration and throws a `TypeError` that says what to pass: a schema that
 * is not a `GraphQLSchema`, unknown keys and option values of the wrong type. `true` and a
 * configuration without `schema` are valid: the schema is generated from the operations.
 */
export function validateGraphQLConfig(config: unknown): asserts config is GraphQLConfig | true {
  if (config === true) return;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new TypeError(`GraphQL config must be an object, got ${describe(config)}; ${HOW_TO_PASS}.`);
  }
  const c = config as Record<string, unknown>;
  checkOptions(c, KNOWN_KEYS, UNKNOWN_OPTION);
  if (c.schema !== undefined) {
    // Loaded outside the try: a graphql that is not installed is reported as such (createApp names it).
    const { isSchema } = graphqlLib();
    let schemaOk: boolean;
    try {
      schemaOk = isSchema(c.schema);
    } catch (err) {
      // graphql's instanceOf check throws when the schema was built by another copy of graphql.
      throw new TypeError(
        'GraphQL config: `schema` was built by a different copy of the graphql package than @fw/graphql uses; install a single graphql 16 (it is a peer dependency) and build the schema with it.',
        { cause: err },
      );
    }
    if (!schemaOk) throw new TypeError(`GraphQL config: \`schema\` is not a GraphQLSchema (got ${describe(c.schema)}); ${HOW_TO_PASS}.`);
  }

  if (c.path !== undefined) {
    if (typeof c.path !== 'string' || !c.path.startsWith('/') || /[?#\s]/.test(c.path)) {
      throw new TypeError(`GraphQL config: \`path\` must be a path starting with "/" and without "?", "#" or spaces, got ${describe(c.path)}.`);
    }
  }
  for (const key of ['introspection', 'maskErrors', 'persistedQueries'] as const) {
    if (c[key] !== undefined && typeof c[key] !== 'boolean') throw new TypeError(`GraphQL config: \`${key}\` must be a boolean, got ${describe(c[key])}.`);
  }
  const playground = c.playground;
  if (playground !== undefined && typeof playground !== 'boolean') {
    if (playground === null || typeof playground !== 'object' || Array.isArray(playground)) {
      throw new TypeError(`GraphQL config: \`playground\` must be a boolean or an object { defaultQuery }, got ${describe(playground)}.`);
    }
    checkOptions(playground, PLAYGROUND_KEYS, UNKNOWN_PLAYGROUND_OPTION);
    const { defaultQuery } = playground as { defaultQuery?: unknown };
    if (defaultQuery !== undefined && typeof defaultQuery !== 'string') throw new TypeError(`GraphQL config: \`playground.defaultQuery\` must be a string, got ${describe(defaultQuery)}.`);
  }
  if (c.onLog !== undefined && typeof c.onLog !== 'function') throw new TypeError(`GraphQL config: \`onLog\` must be a function (message, error), got ${describe(c.onLog)}.`);
  if (c.rootValue !== undefined && (c.rootValue === null || typeof c.rootValue !== 'object')) {
    throw new TypeError(`GraphQL config: \`rootValue\` must be an object of resolver functions, got ${describe(c.rootValue)}.`);
  }
  if (c.validationRules !== undefined && (!Array.isArray(c.validationRules) || c.validationRules.some((r) => typeof r !== 'function'))) {
    throw new TypeError('GraphQL config: `validationRules` must be an array of graphql validation rules (functions).');
  }
  if (c.limits !== undefined) {
    if (c.limits === null || typeof c.limits !== 'object' || Array.isArray(c.limits)) throw new TypeError(`GraphQL config: \`limits\` must be an object, got ${describe(c.limits)}.`);
    checkOptions(c.limits, LIMIT_KEYS, UNKNOWN_LIMIT);
    for (const [key, value] of Object.entries(c.limits)) {
      if (value !== undefined && value !== false && !isPositiveInteger(value)) {
        throw new TypeError(`GraphQL config: \`limits.${key}\` must be a positive integer or false, got ${describe(value)}.`);
      }
    }
  }
  if (c.subscriptions !== undefined && c.subscriptions !== false) {
    const subscriptions = c.subscriptions;
    if (subscriptions === null || typeof subscriptions !== 'object' || Array.isArray(subscriptions)) {
      throw new TypeError(`GraphQL config: \`subscriptions\` must be an object or false, got ${describe(subscriptions)}.`);
    }
    checkOptions(subscriptions, SUBSCRIPTION_KEYS, UNKNOWN_SUBSCRIPTIONS_OPTION);
    for (const [key, value] of Object.entries(subscriptions)) {
      if (value === undefined) continue;
      if (key === 'sse' || key === 'websocket') {
        if (typeof value !== 'boolean') throw new TypeError(`GraphQL config: \`subscriptions.${key}\` must be a boolean, got ${describe(value)}.`);
      } else if (!isPositiveInteger(value)) {
        throw new TypeError(`GraphQL config: \`subscriptions.${key}\` must be a positive integer, got ${describe(value)}.`);
      }
    }
  }
  if (c.executor !== undefined && !EXECUTORS.includes(c.executor as GraphQLExecutor)) {
    throw new TypeError(`GraphQL config: \`executor\` must be 'graphql-js' or 'jit', got ${describe(c.executor)}.`);
  }
  if (c.executor === 'jit' && c.documentCache === false) {
    throw new TypeError("GraphQL config: `executor: 'jit'` compiles cached documents and needs the document cache; remove `documentCache: false` or the executor option.");
  }
  if (c.documentCache !== undefined && c.documentCache !== false) {
    const cache = c.documentCache;
    if (cache === null || typeof cache !== 'object' || Array.isArray(cache)) throw new TypeError(`GraphQL config: \`documentCache\` must be an object or false, got ${describe(cache)}.`);
    checkOptions(cache, CACHE_KEYS, UNKNOWN_CACHE_OPTION);
    for (const [key, value] of Object.entries(cache)) {
      if (value !== undefined && !isPositiveInteger(value)) throw new TypeError(`GraphQL config: \`documentCache.${key}\` must be a positive integer, got ${describe(value)}.`);
    }
  }
}

/** Validates the configuration and applies the defaults (internal). */
export function resolveGraphQLConfig(value: unknown): ResolvedGraphQLConfig {
  validateGraphQLConfig(value);
  const config: GraphQLConfig = value === true ? {} : value;
  const limits = { ...DEFAULT_GRAPHQL_LIMITS };
  for (const [key, value] of Object.entries(config.limits ?? {}) as Array<[keyof GraphQLLimits, number | false | undefined]>) {
    if (value !== undefined) limits[key] = value;
  }
  const cache = config.documentCache === false ? false : { ...DEFAULT_CACHE, ...stripUndefined(config.documentCache ?? {}) };
  const isFactory = typeof config.context === 'function';
  return {
    path: config.path ?? DEFAULT_GRAPHQL_PATH,
    schema: config.schema,
    context: isFactory ? (config.context as GraphQLContextFactory) : undefined,
    contextValue: isFactory ? undefined : config.context,
    hasContextValue: !isFactory && config.context !== undefined,
    playground: config.playground !== false,
    playgroundQuery: typeof config.playground === 'object' ? config.playground.defaultQuery : undefined,
    introspection: config.introspection ?? true,
    rootValue: config.rootValue,
    maskErrors: config.maskErrors ?? true,
    limits,
    validationRules: config.validationRules ?? [],
    documentCache: cache,
    executor: config.executor ?? 'graphql-js',
    persistedQueries: config.persistedQueries === false ? false : cache === false ? { ...DEFAULT_CACHE } : { ...cache },
    subscriptions: config.subscriptions === false ? false : { ...DEFAULT_GRAPHQL_SUBSCRIPTIONS, ...stripUndefined(config.subscriptions ?? {}) },
    onLog: config.onLog,
  };
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `an instance of ${name}` : 'a plain object';
  }
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value)}`;
    case 'function':
      return 'a function';
    case 'symbol':
      return `symbol ${value.description ?? ''}`;
    case 'number':
    case 'bigint':
    case 'boolean':
      return `${typeof value} ${String(value)}`;
    default:
      return 'undefined';
  }
}
