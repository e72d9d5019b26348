import { createHash } from 'node:crypto';
import { isHttpContext, OPERATION_NAME, OPERATION_TYPE, statusText, toHTTPError, type Context, type Middleware, type Next, type RequestContext } from '@fw/core';
import { createLogger, parseJSON, type LogFunction, type PluginHost } from '@fw/core/plugin';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  OperationTypeNode,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { createHandler, type OperationArgs, type OperationContext, type Request, type RequestParams } from 'graphql-http';
import { resolveGraphQLConfig, type ResolvedGraphQLConfig } from './config.js';
import {
  MASKED_MESSAGE,
  acceptedMediaType,
  createErrorFormatter,
  errorResponse,
  requestError,
  resultResponse,
  type AcceptedMediaType,
  type HandlerResponse,
} from './internal/errors.js';
import { checkDocumentLimits, oversizeBytes } from './internal/limits.js';
import { createExecutor, type JitModule, type OperationPlan } from './internal/executor.js';
import { LruCache } from './internal/lru.js';
import { createPlayground, type Playground } from './internal/playground.js';
import { fixedSource, type SchemaSource } from './operations/source.js';
import type { GraphQLConfig, GraphQLHandler, GraphQLLimits } from './types.js';

type GraphQLRequest = Request<Context['req'], Context>;

/** The pieces the plugin mounts (internal). */
export interface Endpoint {
  readonly config: ResolvedGraphQLConfig;
  readonly handler: GraphQLHandler;
  /**
   * The outermost wrapper: answers errors thrown on the endpoint path (by middleware too) as
   * GraphQL responses. Every request of the app passes it, gRPC calls included.
   */
  readonly guard: Middleware<RequestContext>;
  /**
   * Adopts the app's JSON depth limit for GET's `variables` and `extensions`, and its logger unless
   * the configuration has an `onLog` of its own (the plugin calls it in setup).
   */
  readonly attach: (host: Pick<PluginHost, 'contextSettings' | 'log'>) => void;
  readonly playground: Playground | undefined;
}

/** A parsed and validated document, with the operations requests picked from it. */
interface PreparedDocument {
  readonly document: DocumentNode;
  /** By `operationName` (undefined: the document's only operation); only names the document defines. */
  readonly operations: Map<string | undefined, OperationPlan>;
}

/** What a request runs, once its document is prepared. */
interface Planned {
  readonly args: OperationArgs<OperationContext>;
  /** Undefined: no operation by the requested name. */
  readonly plan: OperationPlan | undefined;
}

/** What `parseRequestParams` reads from a request before graphql-http's own checks. */
interface RawParams {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/**
 * Creates the GraphQL-over-HTTP request handler for a configuration: a middleware to mount on the
 * endpoint path yourself, from a plugin of your own (`graphqlPlugin` does this with `claimPath`).
 * Without `onLog` it logs to stderr, as core's default log does.
 * @example
 * app.register({ name: 'api', setup: (host) => host.claimPath('/api/graphql', createGraphQLHandler({ schema }), { protocol: 'graphql' }) });
 */
export function createGraphQLHandler<TContext = unknown>(config: GraphQLConfig<TContext>): GraphQLHandler {
  const resolved = resolveGraphQLConfig(config);
  if (resolved.schema === undefined) {
    throw new TypeError('createGraphQLHandler: `schema` is required (a GraphQLSchema); a schema generated from operations is served by graphqlPlugin.');
  }
  return createEndpoint(resolved, fixedSource(resolved.schema)).handler;
}

/**
 * Builds the handler and the playground for a resolved configuration (internal); `source` gives
 * the schema for each request.
 */
export function createEndpoint(config: ResolvedGraphQLConfig, source: SchemaSource): Endpoint {
  const { rootValue, limits, maskErrors } = config;
  // Escaped, and safe to call: a throwing onLog never fails a request. The plugin switches to the
  // app's logger when the configuration names none.
  let log: LogFunction = createLogger(config.onLog);
  const onLog: LogFunction = (message, error) => log(message, error);
  const rules: readonly ValidationRule[] = [
    ...specifiedRules,
    ...(config.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
    ...config.validationRules,
  ];
  const executor = createExecutor();
  // graphql-jit is optional: until it has loaded, or without it, graphql-js executes everything.
  import('graphql-jit').then(
    (module: JitModule) => executor.setJit(module),
    () => undefined,
  );
  // A document leaving the cache takes its compiled operations with it.
  const cache =
    config.documentCache === false
      ? undefined
      : new LruCache<string, PreparedDocument>(config.documentCache.maxEntries, config.documentCache.maxSize, (prepared) => {
          for (const operationPlan of prepared.operations.values()) executor.forget(operationPlan);
        });
  // The schema the cached documents were validated against: a new schema empties the cache.
  let cachedFor: GraphQLSchema | undefined;
  const parseOptions = limits.maxTokens === false ? undefined : { maxTokens: limits.maxTokens };
  const formatError = createErrorFormatter({ maskErrors, onLog, suggestions: config.introspection });
  const playground = config.playground ? createPlayground(config.path, onLog) : undefined;

  const persisted = config.persistedQueries === false ? undefined : new LruCache<string, string>(config.persistedQueries.maxEntries, config.persistedQueries.maxSize);
  const toPersist = new WeakMap<RequestParams, string>();
  // core's default until the plugin passes the app's `maxJsonDepth`.
  let maxJsonDepth = 64;

  const mediaTypeOf = (ctx: Context): AcceptedMediaType | undefined => acceptedMediaType(headerValue(ctx.headers.accept));
  const badRequest = (message: string): HandlerResponse => errorResponse(400, [requestError(400, message)], 'application/json');
  // Exactly what Apollo's persisted-query link looks for; 200, as Apollo Server answers.
  const persistedQueryError = (ctx: Context, message: string, code: string): HandlerResponse => [
    JSON.stringify({ errors: [{ message, extensions: { code } }] }),
    { status: 200, statusText: 'OK', headers: { 'content-type': `${mediaTypeOf(ctx) ?? 'application/json'}; charset=utf-8` } },
  ];
  const limitResponse = (ctx: Context, limit: keyof GraphQLLimits, message: string): HandlerResponse =>
    errorResponse(400, [requestError(400, message, { limit })], mediaTypeOf(ctx));

  /** Parses, checks the limits of and validates a document not in the cache. */
  const prepare = (ctx: Context, query: string, schema: GraphQLSchema): PreparedDocument | HandlerResponse | readonly GraphQLError[] => {
    if (limits.maxDocumentSize !== false) {
      const bytes = oversizeBytes(query, limits.maxDocumentSize);
      if (bytes !== undefined) {
        return limitResponse(ctx, 'maxDocumentSize', `The query is too large: ${bytes} bytes exceeds the maximum of ${limits.maxDocumentSize} bytes.`);
      }
    }
    let document: DocumentNode;
    try {
      document = parse(query, parseOptions);
      const violation = checkDocumentLimits(document, limits);
      if (violation !== undefined) return limitResponse(ctx, violation.limit, violation.message);
      const errors = validate(schema, document, rules);
      if (errors.length > 0) return errors;
    } catch (err) {
      if (err instanceof GraphQLError) {
        // graphql reports its token limit as a syntax error; it is a size limit like the others.
        if (limits.maxTokens !== false && err.message.includes('tokens. Parsing aborted')) {
          return limitResponse(ctx, 'maxTokens', `The query is too large: it has more than ${limits.maxTokens} tokens, the maximum.`);
        }
        return [err];
      }
      // The parser and some validation rules recurse: absurd nesting runs out of stack.
      if (err instanceof RangeError) return limitResponse(ctx, 'maxDepth', 'The query is nested too deeply to be parsed.');
      throw err;
    }
    const prepared: PreparedDocument = { document, operations: new Map() };
    cache?.set(query, prepared, documentWeight(query, document));
    return prepared;
  };

  // Reads the parameters itself: the body with core's parser (size limit, one read even if
  // middleware read it first), GET's `variables` and `extensions` with core's JSON rules (the
  // forbidden-key walk and the depth limit a body gets), and the persisted query extension.
  // Undefined: a POST that is not JSON, left to graphql-http (415).
  const readParams = async (ctx: Context, method: string): Promise<HandlerResponse | RequestParams | undefined> => {
    let raw: RawParams;
    if (method === 'GET') {
      const url = ctx.url;
      const at = url.indexOf('?');
      const search = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
      raw = { query: search.get('query') ?? undefined, operationName: search.get('operationName') ?? undefined };
      for (const key of ['variables', 'extensions'] as const) {
        const text = search.get(key);
        if (text === null || text === '') continue;
        try {
          raw[key] = parseJSON(text, { maxDepth: maxJsonDepth });
        } catch (err) {
          const error = toHTTPError(err);
          return errorResponse(400, [requestError(400, `The "${key}" parameter is not valid: ${error.expose ? error.message : 'unreadable JSON'}.`)], mediaTypeOf(ctx));
        }
      }
    } else if (method === 'POST') {
      if (!isJsonContentType(headerValue(ctx.headers['content-type']))) return undefined;
      let body: unknown;
      try {
        body = await ctx.parseBody();
      } catch (err) {
        const error = toHTTPError(err);
        return errorResponse(error.statusCode, [requestError(error.statusCode, error.expose ? error.message : MASKED_MESSAGE)], 'application/json', error.headers);
      }
      if (Array.isArray(body)) return badRequest('Batched requests are not supported: send one operation per request, as a JSON object.');
      if (body === undefined) return badRequest('Missing request body: POST a JSON object such as {"query": "{ __typename }"}.');
      if (body === null || typeof body !== 'object') return badRequest('The request body must be a JSON object with a "query" string.');
      raw = body;
    } else {
      return [null, { status: 405, statusText: statusText(405), headers: { allow: 'GET, HEAD, POST' } }];
    }
    const { variables, operationName, extensions } = raw;
    let query = raw.query;
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return badRequest('Invalid variables');
    if (operationName != null && typeof operationName !== 'string') return badRequest('Invalid operationName');
    if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) return badRequest('Invalid extensions');
    let hash: string | undefined;
    const persistedQuery = (extensions as { persistedQuery?: unknown } | null | undefined)?.persistedQuery;
    if (persistedQuery !== undefined) {
      if (persisted === undefined) return persistedQueryError(ctx, 'PersistedQueryNotSupported', 'PERSISTED_QUERY_NOT_SUPPORTED');
      const { version, sha256Hash } = (persistedQuery ?? {}) as { version?: unknown; sha256Hash?: unknown };
      if (version !== 1) return badRequest('Unsupported persisted query version');
      if (typeof sha256Hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256Hash)) return badRequest('Invalid persisted query hash: expected the SHA-256 of the query, in hex');
      hash = sha256Hash.toLowerCase();
      if (query == null) {
        query = persisted.get(hash);
        if (query === undefined) return persistedQueryError(ctx, 'PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND');
        hash = undefined;
      } else if (typeof query === 'string' && createHash('sha256').update(query).digest('hex') !== hash) {
        return badRequest('provided sha does not match query');
      }
    }
    if (query == null) return badRequest('Missing query');
    if (typeof query !== 'string') return badRequest('Invalid query');
    const params = { query, variables, operationName, extensions } as RequestParams;
    // Stored once the document has passed the limits and validation (in plan).
    if (hash !== undefined) toPersist.set(params, hash);
    return params;
  };

  /** The document (from the cache, or prepared now) and operation a request runs, or its refusal. */
  const plan = (ctx: Context, method: string, params: RequestParams): Planned | HandlerResponse | readonly GraphQLError[] => {
    const query = params.query;
    const { schema, rootFor } = source.current();
    if (schema !== cachedFor) {
      cache?.clear();
      executor.clear();
      cachedFor = schema;
    }
    let prepared = cache?.get(query);
    if (prepared === undefined) {
      const result = prepare(ctx, query, schema);
      if (!isPrepared(result)) return result;
      prepared = result;
    }
    if (persisted !== undefined && params.extensions != null) {
      const hash = toPersist.get(params);
      if (hash !== undefined) persisted.set(hash, query, query.length);
    }
    // No operation by that name: answered as graphql-http answers it.
    const operationPlan = operationOf(prepared, params.operationName ?? undefined);
    if (operationPlan !== undefined) {
      const operation = operationPlan.operation;
      // For tracing and request logs, read after `await next()`.
      ctx.set(OPERATION_TYPE, operation.operation);
      if (operation.name !== undefined) ctx.set(OPERATION_NAME, operation.name.value);
      // HEAD is answered as GET.
      if (method === 'GET' && operation.operation === OperationTypeNode.MUTATION) {
        return errorResponse(405, [requestError(405, 'Cannot perform mutations over GET')], mediaTypeOf(ctx), { allow: 'POST' });
      }
    }
    // No contextValue yet: it is built after refusing mutations over GET, so the factory never
    // runs for a request that is refused anyway.
    const args: OperationArgs<OperationContext> = {
      schema,
      document: prepared.document,
      rootValue: rootFor === undefined ? rootValue : rootFor(ctx, rootValue),
      variableValues: params.variables,
      operationName: params.operationName,
    };
    return { args, plan: operationPlan };
  };

  const contextFor = (ctx: Context): OperationContext | Promise<OperationContext | HandlerResponse> => {
    if (config.context === undefined) return (config.hasContextValue ? config.contextValue : ctx) as OperationContext;
    return contextFromFactory(ctx, config.context);
  };

  const contextFromFactory = async (ctx: Context, factory: NonNullable<ResolvedGraphQLConfig['context']>): Promise<OperationContext | HandlerResponse> => {
    try {
      return (await factory(ctx.req, ctx)) as OperationContext;
    } catch (err) {
      const error = toHTTPError(err);
      if (error.statusCode >= 500) onLog(`GraphQL context factory failed on ${ctx.method} ${ctx.path}`, err);
      const message = error.expose || !maskErrors ? (err instanceof Error ? err.message : error.message) : MASKED_MESSAGE;
      const extra = error.expose && error.details !== undefined ? { details: error.details } : undefined;
      return errorResponse(error.statusCode, [requestError(error.statusCode, message, extra)], mediaTypeOf(ctx), error.headers);
    }
  };

  // A result with errors and no `data` is a request error (variables that do not coerce): the
  // GraphQL-over-HTTP spec wants 400 for it under application/graphql-response+json.
  const requestFailure = (mediaType: AcceptedMediaType | undefined, result: ExecutionResult): HandlerResponse | undefined => {
    if ('data' in result || result.errors === undefined || result.errors.length === 0) return undefined;
    if (mediaType !== 'application/graphql-response+json') return undefined;
    return errorResponse(400, result.errors.map((error) => formatError(error)), mediaType);
  };

  // graphql-http answers what the request path below leaves to it: an Accept header nothing
  // acceptable is in (406) and a POST body that is not JSON (415); its hooks are the same steps.
  const handle = createHandler<Context['req'], Context, OperationContext>({
    rootValue,
    formatError,
    parseRequestParams: (req: GraphQLRequest) => readParams(req.context, req.method),
    onSubscribe(req: GraphQLRequest, params: RequestParams) {
      const planned = plan(req.context, req.method, params);
      return isPlanned(planned) ? planned.args : planned;
    },
    context: (req: GraphQLRequest) => contextFor(req.context),
    execute: (args: ExecutionArgs) => executor.run(undefined, args),
    onOperation: (req: GraphQLRequest, _args, result: ExecutionResult) => requestFailure(mediaTypeOf(req.context), result),
  });

  const send = (ctx: Context, [body, init]: HandlerResponse): void => {
    const headers = init.headers;
    if (headers !== undefined) for (const key of Object.keys(headers)) ctx.setHeader(key, headers[key]!);
    ctx.send(body ?? '', init.status);
  };

  /**
   * The request path: the steps graphql-http takes with the hooks above, in its order and with its
   * answers, without its per-request overhead (a re-read Accept header, a JSON replacer walking
   * every result, an await per step).
   */
  const answer = async (ctx: Context, method: string): Promise<void> => {
    const mediaType = mediaTypeOf(ctx);
    if (mediaType === undefined) return delegate(ctx, method);
    let params: HandlerResponse | RequestParams | undefined;
    try {
      params = await readParams(ctx, method);
    } catch (err) {
      return send(ctx, resultResponse(err, mediaType, formatError));
    }
    if (params === undefined) return delegate(ctx, method);
    if (Array.isArray(params)) return send(ctx, params as HandlerResponse);
    const planned = plan(ctx, method, params as RequestParams);
    if (!isPlanned(planned)) return send(ctx, isResponse(planned) ? planned : resultResponse(planned, mediaType, formatError));
    const { args, plan: operationPlan } = planned;
    if (operationPlan === undefined) return send(ctx, resultResponse(new GraphQLError('Unable to detect operation AST'), mediaType, formatError));
    if (operationPlan.operation.operation === OperationTypeNode.SUBSCRIPTION) {
      return send(ctx, resultResponse(new GraphQLError('Subscriptions are not supported'), mediaType, formatError));
    }
    const pending = contextFor(ctx);
    const contextValue: OperationContext | HandlerResponse = isPromise(pending) ? await pending : pending;
    if (isResponse(contextValue)) return send(ctx, contextValue);
    args.contextValue = contextValue;
    let result = executor.run(operationPlan, args);
    if (isPromise(result)) result = await result;
    const failure = requestFailure(mediaType, result);
    if (failure !== undefined) return send(ctx, failure);
    if (result.errors === undefined) {
      // Nothing but data: no replacer needed, and no response object to build.
      const type = mediaType === 'application/json' ? 'application/json; charset=utf-8' : 'application/graphql-response+json; charset=utf-8';
      ctx.send(executor.serialize(operationPlan, args, result), 200, type);
      return;
    }
    send(ctx, resultResponse(result, mediaType, formatError));
  };

  const delegate = async (ctx: Context, method: string): Promise<void> => {
    send(
      ctx,
      await handle({
        method,
        url: ctx.url,
        headers: ctx.headers,
        body: () => ctx.parseBody() as Promise<Record<string, unknown> | null>,
        raw: ctx.req,
        context: ctx,
      }),
    );
  };

  const handler: GraphQLHandler = (ctx: Context): Promise<void> => {
    // HEAD is answered as GET; core leaves the body out and keeps its Content-Length.
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    if (playground !== undefined && method === 'GET' && acceptsHtml(headerValue(ctx.headers.accept))) {
      playground.page(ctx);
      return Promise.resolve();
    }
    return answer(ctx, method);
  };

  /** Answers what was thrown on the endpoint path (by middleware, or the handler) as a GraphQL response. */
  const answerError = (ctx: Context, thrown: unknown): void => {
    // Too late for an answer of our own: core cuts the response short.
    if (ctx.res.headersSent || ctx.res.writableEnded) throw thrown;
    const error = toHTTPError(thrown);
    const status = error.statusCode;
    if (status >= 500) onLog(`GraphQL request failed on ${ctx.method} ${ctx.path}: ${thrown instanceof Error ? thrown.message : String(thrown)}`, thrown);
    const message = error.expose || !maskErrors ? (thrown instanceof Error ? thrown.message : error.message) : MASKED_MESSAGE;
    const extra = error.expose && error.details !== undefined ? { details: error.details } : undefined;
    const [body, init] = errorResponse(status, [requestError(status, message, extra)], mediaTypeOf(ctx), error.headers);
    ctx.res.removeHeader('content-length');
    const headers = init.headers!;
    for (const key of Object.keys(headers)) ctx.setHeader(key, headers[key]!);
    ctx.send(body!, status);
  };

  // Without an async function around it: one promise less per request on the endpoint.
  const answerErrors = (ctx: Context, next: Next): Promise<void> => {
    let pending: Promise<void>;
    try {
      pending = next();
    } catch (err) {
      answerError(ctx, err);
      return Promise.resolve();
    }
    return pending.then(undefined, (err: unknown) => answerError(ctx, err));
  };

  const { path } = config;
  const guard: Middleware<RequestContext> = (ctx, next) => {
    // The first comparison sends every other request (REST, gRPC) on: only the claimed path says
    // `graphql`. The path tells this endpoint from another mounted with that protocol, and only an
    // HTTP context has a response to answer on.
    if (ctx.protocol !== 'graphql' || ctx.path !== path || !isHttpContext(ctx)) return next();
    return answerErrors(ctx, next);
  };

  const attach = (host: Pick<PluginHost, 'contextSettings' | 'log'>): void => {
    maxJsonDepth = host.contextSettings.maxJsonDepth;
    if (config.onLog === undefined) log = (message, error) => host.log(message, error);
  };

  return { config, handler, guard, attach, playground };
}

/**
 * What a cached document weighs against `documentCache.maxSize`: its characters, or
 * `TOKEN_WEIGHT` per lexical token when that is more. A parsed document keeps about 450 bytes of
 * heap per token at most (a dense `{ a b c … }`), so the cache holds at most about 8 bytes of heap per unit.
 */
const TOKEN_WEIGHT = 64;

function documentWeight(query: string, document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken ?? null; token !== null; token = token.next) tokens += 1;
  return Math.max(query.length, tokens * TOKEN_WEIGHT);
}

function isPrepared(value: PreparedDocument | HandlerResponse | readonly GraphQLError[]): value is PreparedDocument {
  return !Array.isArray(value);
}

function isPlanned(value: Planned | HandlerResponse | readonly GraphQLError[]): value is Planned {
  return !Array.isArray(value);
}

/** A response tuple (body, init), by graphql-http's own test (a context value passing it is answered as one). */
function isResponse(value: unknown): value is HandlerResponse {
  if (!Array.isArray(value) || (typeof value[0] !== 'string' && value[0] !== null)) return false;
  const init = value[1] as { status?: unknown; statusText?: unknown; headers?: unknown } | null;
  if (typeof init !== 'object' || init === null) return false;
  if (init.status && typeof init.status !== 'number') return false;
  if (init.statusText && typeof init.statusText !== 'string') return false;
  return !init.headers || typeof init.headers === 'object';
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The operation a request runs, looked up once per document and name. */
function operationOf(prepared: PreparedDocument, name: string | undefined): OperationPlan | undefined {
  const plan = prepared.operations.get(name);
  if (plan === undefined) {
    const operation = getOperationAST(prepared.document, name);
    if (operation == null) return undefined;
    const created: OperationPlan = { operation, runs: 0, compiled: undefined };
    // Only names the document defines are kept, so a client cannot grow the map.
    prepared.operations.set(name, created);
    return created;
  }
  return plan;
}

/** `application/json`, with no charset or UTF-8; graphql-http answers other content types with 415. */
function isJsonContentType(value: string | undefined): boolean {
  if (value === 'application/json') return true;
  const [type, charset = 'charset=utf-8'] = (value ?? '').replace(/\s/g, '').toLowerCase().split(';');
  return type === 'application/json' && charset === 'charset=utf-8';
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** A browser navigating to the endpoint asks for HTML; GraphQL clients never do. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('text/html');
}
