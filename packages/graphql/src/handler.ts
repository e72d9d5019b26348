import { toHTTPError, type Context } from '@fw/core';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type ValidationRule,
} from 'graphql';
import { createHandler, type OperationArgs, type OperationContext, type Request, type RequestParams } from 'graphql-http';
import { resolveGraphQLConfig, type ResolvedGraphQLConfig } from './config.js';
import { ATTR_GRAPHQL_OPERATION_NAME, ATTR_GRAPHQL_OPERATION_TYPE } from './internal/attributes.js';
import {
  MASKED_MESSAGE,
  acceptedMediaType,
  createErrorFormatter,
  errorResponse,
  requestError,
  type AcceptedMediaType,
  type HandlerResponse,
} from './internal/errors.js';
import { checkDocumentLimits, oversizeBytes } from './internal/limits.js';
import { LruCache } from './internal/lru.js';
import { createPlayground, type Playground } from './internal/playground.js';
import type { GraphQLConfig, GraphQLHandler, GraphQLLimits } from './types.js';

type GraphQLRequest = Request<Context['req'], Context>;

/** The tracing helper the tracing package adds to contexts (optional, like every tracing member). */
interface TracedContext {
  setAttributes?: (attributes: Record<string, string>) => void;
}

/** The pieces the plugin mounts (internal). */
export interface Endpoint {
  config: ResolvedGraphQLConfig;
  handler: GraphQLHandler;
  playground: Playground | undefined;
}

/**
 * Creates the GraphQL-over-HTTP request handler for a configuration: a middleware to mount on the
 * endpoint path yourself (the plugin does this with `claimPath`).
 * @example
 * app.claimPath('/graphql', createGraphQLHandler({ schema }), { protocol: 'graphql' });
 */
export function createGraphQLHandler<TContext = unknown>(config: GraphQLConfig<TContext>): GraphQLHandler {
  return createEndpoint(resolveGraphQLConfig(config)).handler;
}

/** Builds the handler and the playground for a resolved configuration (internal). */
export function createEndpoint(config: ResolvedGraphQLConfig): Endpoint {
  const { schema, rootValue, limits, maskErrors, onLog } = config;
  const rules: readonly ValidationRule[] = [
    ...specifiedRules,
    ...(config.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
    ...config.validationRules,
  ];
  const cache = config.documentCache === false ? undefined : new LruCache<string, DocumentNode>(config.documentCache.maxEntries, config.documentCache.maxSize);
  const parseOptions = limits.maxTokens === false ? undefined : { maxTokens: limits.maxTokens };
  const formatError = createErrorFormatter({ maskErrors, onLog });
  const playground = config.playground ? createPlayground(config.path, onLog) : undefined;

  const mediaTypeOf = (ctx: Context): AcceptedMediaType | undefined => acceptedMediaType(headerValue(ctx.headers.accept));
  const limitResponse = (ctx: Context, limit: keyof GraphQLLimits, message: string): HandlerResponse =>
    errorResponse(400, [requestError(400, message, { limit })], mediaTypeOf(ctx));

  /** Parses, checks the limits of and validates a document not in the cache. */
  const prepare = (ctx: Context, query: string): DocumentNode | HandlerResponse | readonly GraphQLError[] => {
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
    cache?.set(query, document, query.length);
    return document;
  };

  const handle = createHandler<Context['req'], Context, OperationContext>({
    schema,
    rootValue,
    formatError,

    // Reads the body with core's parser (size limit, one read even if middleware read it first)
    // and refuses batches; graphql-http's own parser then checks the fields.
    async parseRequestParams(req: GraphQLRequest): Promise<HandlerResponse | undefined> {
      if (req.method !== 'POST') return undefined;
      const ctx = req.context;
      const [type, charset = 'charset=utf-8'] = (headerValue(ctx.headers['content-type']) ?? '').replace(/\s/g, '').toLowerCase().split(';');
      if (type !== 'application/json' || charset !== 'charset=utf-8') return undefined;
      let body: unknown;
      try {
        body = await ctx.parseBody();
      } catch (err) {
        const error = toHTTPError(err);
        return errorResponse(error.statusCode, [requestError(error.statusCode, error.expose ? error.message : MASKED_MESSAGE)], 'application/json', error.headers);
      }
      if (Array.isArray(body)) {
        return errorResponse(400, [requestError(400, 'Batched requests are not supported: send one operation per request, as a JSON object.')], 'application/json');
      }
      if (body === undefined) {
        return errorResponse(400, [requestError(400, 'Missing request body: POST a JSON object such as {"query": "{ __typename }"}.')], 'application/json');
      }
      if (body === null || typeof body !== 'object') {
        return errorResponse(400, [requestError(400, 'The request body must be a JSON object with a "query" string.')], 'application/json');
      }
      return undefined;
    },

    onSubscribe(req: GraphQLRequest, params: RequestParams) {
      const ctx = req.context;
      const query = params.query;
      let document = cache?.get(query);
      if (document === undefined) {
        const prepared = prepare(ctx, query);
        if (!isDocument(prepared)) return prepared;
        document = prepared;
      }
      const traced = ctx as Context & TracedContext;
      if (traced.setAttributes !== undefined) {
        const operation = getOperationAST(document, params.operationName);
        if (operation != null) {
          const attributes: Record<string, string> = { [ATTR_GRAPHQL_OPERATION_TYPE]: operation.operation };
          if (operation.name !== undefined) attributes[ATTR_GRAPHQL_OPERATION_NAME] = operation.name.value;
          traced.setAttributes(attributes);
        }
      }
      // No contextValue here: graphql-http builds it through `context` below, after refusing
      // mutations over GET, so the factory never runs for a request that is refused anyway.
      const args: OperationArgs<OperationContext> = {
        schema,
        document,
        rootValue,
        variableValues: params.variables,
        operationName: params.operationName,
      };
      return args;
    },

    async context(req: GraphQLRequest): Promise<OperationContext | HandlerResponse> {
      const ctx = req.context;
      if (config.context === undefined) return (config.hasContextValue ? config.contextValue : ctx) as OperationContext;
      try {
        return (await config.context(ctx.req, ctx)) as OperationContext;
      } catch (err) {
        const error = toHTTPError(err);
        if (error.statusCode >= 500) onLog(`GraphQL context factory failed on ${ctx.method} ${ctx.path}`, err);
        const message = error.expose || !maskErrors ? (err instanceof Error ? err.message : error.message) : MASKED_MESSAGE;
        const extra = error.expose && error.details !== undefined ? { details: error.details } : undefined;
        return errorResponse(error.statusCode, [requestError(error.statusCode, message, extra)], mediaTypeOf(ctx), error.headers);
      }
    },

    // A result with errors and no `data` is a request error (variables that do not coerce): the
    // GraphQL-over-HTTP spec wants 400 for it under application/graphql-response+json.
    onOperation(req: GraphQLRequest, _args, result: ExecutionResult): HandlerResponse | undefined {
      if ('data' in result || result.errors === undefined || result.errors.length === 0) return undefined;
      const mediaType = mediaTypeOf(req.context);
      if (mediaType !== 'application/graphql-response+json') return undefined;
      return errorResponse(400, result.errors.map((error) => formatError(error)) as GraphQLError[], mediaType);
    },
  });

  const handler: GraphQLHandler = async (ctx: Context): Promise<void> => {
    if (playground !== undefined && ctx.method === 'GET' && acceptsHtml(headerValue(ctx.headers.accept))) {
      playground.page(ctx);
      return;
    }
    const [body, init] = await handle({
      method: ctx.method,
      url: ctx.url,
      headers: ctx.headers,
      body: () => ctx.parseBody() as Promise<Record<string, unknown> | null>,
      raw: ctx.req,
      context: ctx,
    });
    const headers = init.headers;
    if (headers !== undefined) for (const key of Object.keys(headers)) ctx.setHeader(key, headers[key]!);
    ctx.send(body ?? '', init.status);
  };

  return { config, handler, playground };
}

function isDocument(value: unknown): value is DocumentNode {
  return !Array.isArray(value) && (value as { kind?: unknown }).kind === 'Document';
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** A browser navigating to the endpoint asks for HTML; GraphQL clients never do. */
function acceptsHtml(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('text/html');
}
