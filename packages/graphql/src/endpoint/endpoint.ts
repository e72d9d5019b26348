import { OPERATION_NAME, OPERATION_TYPE, type Context, type Middleware } from '@fw/core';
import type { LogFunction } from '@fw/core/plugin';
import { GraphQLError, OperationTypeNode, type ExecutionArgs } from 'graphql';
import type { ResolvedGraphQLConfig } from '../config.js';
import { createErrorFormatter } from '../internal/errors.js';
import { createExecutor, type JitModule } from '../internal/executor.js';
import { loadJit } from '../internal/jit-loader.js';
import { createPlayground, type Playground } from '../internal/playground.js';
import type { SchemaSource } from '../operations/source.js';
import { createOperationStarter, type StartOperation } from '../subscriptions/operation.js';
import { createSseTransport, type SseTransport } from '../subscriptions/sse.js';
import { UNLIMITED_STREAMS, type StreamHost } from '../subscriptions/streams.js';
import type { GraphQLHandler } from '../types.js';
import { errorResponse, isResponse, requestError, requestFailure, resultResponse, send, sendData, type HandlerResponse } from './answer.js';
import { createContextStep } from './context.js';
import { Documents, isPrepared, operationOf } from './documents.js';
import { createErrorGuard } from './guard.js';
import { NOT_ACCEPTABLE, mediaTypeOf, prefersPage } from './negotiation.js';
import { readParams, type GraphQLParams } from './params.js';
import { PersistedQueries } from './persisted.js';

/** What an endpoint takes from the application it serves, or a standalone handler's defaults. */
export interface EndpointHost {
  /** Where unexpected errors go (escaped; a throwing logger never fails a request). */
  readonly log: LogFunction;
  /** The deepest a GET's `variables` and `extensions` may nest: the app's `maxJsonDepth`; undefined for core's default. */
  readonly maxJsonDepth: () => number | undefined;
  /** The app's open-stream registry and stream settings; a standalone handler's limit nothing. */
  readonly streams?: () => StreamHost;
}

/** The pieces the plugin mounts (internal). */
export interface Endpoint {
  readonly config: ResolvedGraphQLConfig;
  readonly handler: GraphQLHandler;
  /** Middleware to run around the app's middleware on the endpoint path only: answers errors thrown there (by middleware too) as GraphQL responses. */
  readonly guard: Middleware<Context>;
  readonly playground: Playground | undefined;
  /** Starts an operation sent over a streaming transport, with the rules queries follow (the WebSocket transport uses it). */
  readonly start: StartOperation;
  /** The GraphQL-over-SSE transport, unless subscriptions or SSE are off. */
  readonly sse: SseTransport | undefined;
}

/**
 * The endpoint of a resolved configuration: the handler, its error guard and the playground.
 * `source` gives the schema for each request; `host` what the endpoint takes from the app.
 *
 * A request takes these steps, each answering in graphql-http's words when it refuses:
 * negotiation (`Accept`, 406), parameters (method 405, body 415/413/400, GET's JSON, persisted
 * queries), the document (cache, limits, validation), the operation (by name; mutations over GET
 * 405; subscriptions refused: they are served over SSE and WebSocket), the context, execution, the
 * answer. Requests of the GraphQL-over-SSE protocol (`Accept: text/event-stream`, stream tokens,
 * reservations) go to the SSE transport, which starts operations with the same steps.
 */
export function createEndpoint(config: ResolvedGraphQLConfig, source: SchemaSource, host: EndpointHost): Endpoint {
  const { rootValue, maskErrors } = config;
  const { log, maxJsonDepth } = host;
  // graphql-jit is loaded at the first compilation; without it, graphql-js executes everything.
  const executor = createExecutor(config.executor === 'jit' ? () => loadJitOrLog(log) : undefined);
  const documents = new Documents(config, executor);
  const persisted = new PersistedQueries(config.persistedQueries);
  const contextOf = createContextStep(config, log);
  const formatError = createErrorFormatter({ maskErrors, onLog: log, suggestions: config.introspection });
  const playground = config.playground ? createPlayground(config.path, log, config.playgroundQuery) : undefined;
  const start = createOperationStarter(config, source, documents, contextOf, formatError);
  const subscriptions = config.subscriptions;
  const sse =
    subscriptions !== false && subscriptions.sse
      ? createSseTransport(start, host.streams ?? (() => UNLIMITED_STREAMS), { maxPerConnection: subscriptions.maxPerConnection, reservationTimeout: subscriptions.connectionInitTimeout }, log)
      : undefined;

  const answer = async (ctx: Context, method: string): Promise<void> => {
    const mediaType = mediaTypeOf(ctx);
    if (mediaType === undefined) return send(ctx, NOT_ACCEPTABLE);
    let params: GraphQLParams | HandlerResponse;
    try {
      params = await readParams(ctx, method, mediaType, maxJsonDepth, persisted);
    } catch (err) {
      return send(ctx, resultResponse(err, mediaType, formatError));
    }
    if (isResponse(params)) return send(ctx, params);
    const query = params.query;
    const { schema, rootFor } = source.current();
    const prepared = documents.get(query, schema, mediaType);
    if (!isPrepared(prepared)) return send(ctx, isResponse(prepared) ? prepared : resultResponse(prepared, mediaType, formatError));
    if (params.persistAs !== undefined) persisted.remember(params.persistAs, query);
    const operationPlan = operationOf(prepared, params.operationName ?? undefined);
    // No operation by that name: answered as graphql-http answers it.
    if (operationPlan === undefined) return send(ctx, resultResponse(new GraphQLError('Unable to detect operation AST'), mediaType, formatError));
    const operation = operationPlan.operation;
    // For tracing and request logs, read after `await next()`.
    ctx.set(OPERATION_TYPE, operation.operation);
    if (operation.name !== undefined) ctx.set(OPERATION_NAME, operation.name.value);
    // HEAD is answered as GET.
    if (method === 'GET' && operation.operation === OperationTypeNode.MUTATION) {
      return send(ctx, errorResponse(405, [requestError(405, 'Cannot perform mutations over GET')], mediaType, { allow: 'POST' }));
    }
    if (operation.operation === OperationTypeNode.SUBSCRIPTION) return send(ctx, resultResponse(new GraphQLError(SUBSCRIPTION_OVER_HTTP), mediaType, formatError));
    // Built after refusing mutations over GET, so the factory never runs for a request refused anyway.
    const pending = contextOf(ctx, mediaType);
    const contextValue = isPromise(pending) ? await pending : pending;
    if (isResponse(contextValue)) return send(ctx, contextValue);
    const args: ExecutionArgs = {
      schema,
      document: prepared.document,
      rootValue: rootFor === undefined ? rootValue : rootFor(ctx, rootValue),
      contextValue,
      variableValues: params.variables,
      operationName: params.operationName,
    };
    let result = executor.run(operationPlan, args);
    if (isPromise(result)) result = await result;
    const failure = requestFailure(result, mediaType, formatError);
    if (failure !== undefined) return send(ctx, failure);
    if (result.errors === undefined) return sendData(ctx, executor.serialize(operationPlan, args, result), mediaType);
    send(ctx, resultResponse(result, mediaType, formatError));
  };

  const handler: GraphQLHandler = (ctx: Context): Promise<void> => {
    // HEAD is answered as GET; core leaves the body out and keeps its Content-Length.
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    // The page, an event stream or JSON: one negotiation of Accept decides between all three.
    if (playground !== undefined && method === 'GET' && prefersPage(ctx, sse !== undefined)) {
      playground.page(ctx);
      return Promise.resolve();
    }
    if (sse !== undefined && sse.claims(ctx, method)) return sse.handle(ctx, method);
    return answer(ctx, method);
  };

  return { config, handler, guard: createErrorGuard(maskErrors, log), playground, start, sse };
}

/** Why a subscription sent as a plain GraphQL-over-HTTP request is refused. */
const SUBSCRIPTION_OVER_HTTP = 'Subscriptions are served over server-sent events (Accept: text/event-stream) and WebSocket (graphql-transport-ws), not as a single response';

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}


/** graphql-jit, or undefined (logged once) when it cannot be loaded: graphql-js then runs every operation. */
function loadJitOrLog(log: LogFunction): JitModule | undefined {
  try {
    return loadJit();
  } catch (err) {
    log("GraphQL: graphql-jit could not be loaded (executor: 'jit'); graphql-js executes every operation", err);
    return undefined;
  }
}
