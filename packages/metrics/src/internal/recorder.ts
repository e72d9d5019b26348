import { createContextKey, errorCodeOf, OPERATION_NAME, OPERATION_TYPE, toHTTPError, type Context, type Operation, type RequestContext } from '@fw/core';
import { isClientGone } from '@fw/core/plugin';
import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import type { HttpDurationHistogram } from './http-duration.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_FW_OPERATION_NAME,
  ATTR_FW_PROTOCOL,
  ATTR_GRAPHQL_OPERATION_NAME,
  ATTR_GRAPHQL_OPERATION_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_RPC_METHOD,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  ATTR_URL_SCHEME,
  DURATION_BUCKETS,
  GRPC_SERVER_ERROR_TYPES,
  GRPC_STATUS_NAMES,
  HTTP_METHOD_OTHER,
  KNOWN_HTTP_METHODS,
  METRIC_FW_OPERATION_CALLS,
  METRIC_GRAPHQL_SERVER_REQUEST_DURATION,
  METRIC_HTTP_SERVER_ACTIVE_REQUESTS,
  METRIC_RPC_SERVER_CALL_DURATION,
  RPC_SYSTEM_NAME_VALUE_GRPC,
  UNIT_SECONDS,
} from '../semconv.js';

/** When an HTTP request's measurement started (`performance.now()`), from the wrapper to the response hook. */
const STARTED = createContextKey<number>('fw.metrics.started');

/** The index of each known method in the active-request counts; the last slot is `_OTHER`. */
const METHOD_INDEX = new Map(KNOWN_HTTP_METHODS.map((method, i) => [method, i]));
const OTHER_INDEX = KNOWN_HTTP_METHODS.length;
const methodIndex = (method: string): number => METHOD_INDEX.get(method) ?? OTHER_INDEX;
/** The `http.request.method` of a method index. */
export const methodName = (index: number): string => KNOWN_HTTP_METHODS[index] ?? HTTP_METHOD_OTHER;

/** What a gRPC call failing with an error its context cannot map is answered with: INTERNAL. */
const GRPC_INTERNAL = 13;
/** What a gRPC call whose client cancelled or left ends with: CANCELLED. */
const GRPC_CANCELLED = 1;

/** The names of the application's operations that ran on a GraphQL request (for its `graphql.operation.name`). */
const RAN = createContextKey<string[]>('fw.metrics.operationsRan');

/**
 * The instruments and the per-request work: an HTTP request is measured from the wrapper to the
 * response hook (the status sent), a call of any other protocol (gRPC) from the wrapper until its
 * chain settles, and each operation call when it ends (core tells of each one that ran). Every
 * attribute value comes from a bounded set: the route template or none, a known method or
 * `_OTHER`, the status, the names of the application's operations as defined, error classes.
 */
export class Recorder {
  readonly #httpDuration: HttpDurationHistogram;
  readonly #rpcDuration: Histogram;
  readonly #graphqlDuration: Histogram;
  readonly #operationCalls: Counter;
  /** HTTP requests in flight, per method index: counted here and observed at collection, so a request costs two increments. */
  readonly #active = new Float64Array(KNOWN_HTTP_METHODS.length + 1);
  readonly #operations: () => readonly Operation[];
  #operationNames: { list: readonly Operation[]; names: ReadonlySet<string> } | undefined;

  constructor(meter: Meter, httpDuration: HttpDurationHistogram, operations: () => readonly Operation[]) {
    this.#operations = operations;
    const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS] };
    this.#httpDuration = httpDuration;
    this.#rpcDuration = meter.createHistogram(METRIC_RPC_SERVER_CALL_DURATION, { unit: UNIT_SECONDS, description: 'Measures the duration of an incoming Remote Procedure Call (RPC).', advice });
    this.#graphqlDuration = meter.createHistogram(METRIC_GRAPHQL_SERVER_REQUEST_DURATION, { unit: UNIT_SECONDS, description: 'Duration of GraphQL server requests (one operation each).', advice });
    this.#operationCalls = meter.createCounter(METRIC_FW_OPERATION_CALLS, { unit: '{call}', description: "Calls of the application's operations." });
    const active = meter.createObservableUpDownCounter(METRIC_HTTP_SERVER_ACTIVE_REQUESTS, { unit: '{request}', description: 'Number of active HTTP server requests.' });
    active.addCallback((result) => {
      this.#active.forEach((count, i) => {
        // Methods never seen are left out rather than reported as 0.
        if (count !== 0 || this.#seen[i]) {
          this.#seen[i] = true;
          result.observe(count, { [ATTR_HTTP_REQUEST_METHOD]: methodName(i), [ATTR_URL_SCHEME]: 'http' });
        }
      });
    });
  }

  readonly #seen: boolean[] = [];

  /** The request hook: starts measuring an HTTP request, which `endHttp` ends with the status sent. */
  readonly startHttp = (ctx: Context): void => {
    this.#active[methodIndex(ctx.method)]!++;
    ctx.set(STARTED, performance.now());
  };

  /** Measures a call of another protocol (gRPC) until `run` settles. */
  measure(ctx: RequestContext, run: () => Promise<void>): Promise<void> {
    const start = performance.now();
    let pending: Promise<void>;
    try {
      pending = run();
    } catch (err) {
      this.#endCall(ctx, start, true, err);
      throw err;
    }
    return pending.then(
      () => this.#endCall(ctx, start, false, undefined),
      (err: unknown) => {
        this.#endCall(ctx, start, true, err);
        throw err;
      },
    );
  }

  /** The response hook: ends an HTTP request's measurement with the status sent. */
  readonly endHttp = (ctx: Context, status: number): void => {
    const start = ctx.get(STARTED);
    // Requests answered before the chain ran (414, 503 while closing) and ignored ones have none.
    if (start === undefined) return;
    ctx.set(STARTED, undefined);
    const index = methodIndex(ctx.method);
    this.#active[index]!--;
    this.#record(ctx, index, status, (performance.now() - start) / 1000);
  };

  /** Records a finished HTTP request that took `seconds` (one measured before the SDK had started: it was never counted as active). */
  recordHttp(ctx: Context, status: number, seconds: number): void {
    this.#record(ctx, methodIndex(ctx.method), status, seconds);
  }

  #record(ctx: Context, index: number, status: number, seconds: number): void {
    const graphql = ctx.protocol === 'graphql';
    // A claimed path (the GraphQL endpoint) is exact, so the path is its route template; a request
    // no route matched has no route (its raw path would make a series per path).
    const route = graphql ? ctx.path : (ctx.route?.path ?? '');
    const errorType = status >= 500 ? errorCodeOf(status) : undefined;
    this.#httpDuration.record(route, index, status, errorType, seconds);
    if (graphql) {
      const graphqlAttributes: Attributes = {};
      const type = ctx.get(OPERATION_TYPE);
      if (type !== undefined) graphqlAttributes[ATTR_GRAPHQL_OPERATION_TYPE] = type;
      // The document's name only when it is the name of an operation that ran: a name the client
      // chose for a document running something else (or nothing) is never a label.
      const named = ctx.get(OPERATION_NAME);
      if (named !== undefined && ctx.get(RAN)?.includes(named) === true) graphqlAttributes[ATTR_GRAPHQL_OPERATION_NAME] = named;
      if (errorType !== undefined) graphqlAttributes[ATTR_ERROR_TYPE] = errorType;
      this.#graphqlDuration.record(seconds, graphqlAttributes);
    }
  }

  /**
   * Counts an operation call that ran and has ended (core's operation observer), by the name of
   * the operation's definition and the request's protocol; `error.type` when it failed by the
   * server's fault (as its protocol answers the error), none when its client cancelled or left.
   */
  countOperation(op: Operation, ctx: RequestContext, failed: boolean, error: unknown): void {
    if (!this.#isAppOperation(op)) return;
    const name = op.name;
    const protocol = ctx.protocol;
    const attributes: Attributes = { [ATTR_FW_OPERATION_NAME]: name, [ATTR_FW_PROTOCOL]: protocol };
    const errorType = failed ? serverErrorType(ctx, error) : undefined;
    if (errorType !== undefined) attributes[ATTR_ERROR_TYPE] = errorType;
    this.#operationCalls.add(1, attributes);
    if (protocol === 'graphql') {
      const ran = ctx.get(RAN);
      if (ran === undefined) ctx.set(RAN, [name]);
      else if (!ran.includes(name)) ran.push(name);
    }
  }

  #endCall(ctx: RequestContext, start: number, failed: boolean, error: unknown): void {
    const seconds = (performance.now() - start) / 1000;
    const code = ctx.protocolStatus ?? (failed ? (isClientGone(error, ctx) ? GRPC_CANCELLED : (ctx.protocolStatusOf?.(error) ?? GRPC_INTERNAL)) : 0);
    const procedure = ctx.procedure;
    const attributes: Attributes = {
      [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_GRPC,
      // The server routes only the methods it serves, so the set of values is the served methods.
      [ATTR_RPC_METHOD]: procedure === undefined ? ctx.path.replace(/^\//, '') : `${procedure.service}/${procedure.method}`,
      [ATTR_RPC_STATUS_CODE]: GRPC_STATUS_NAMES[code] ?? String(code),
    };
    const errorType = GRPC_SERVER_ERROR_TYPES.get(code);
    if (errorType !== undefined) attributes[ATTR_ERROR_TYPE] = errorType;
    this.#rpcDuration.record(seconds, attributes);
  }

  /** Whether `op` is one of the application's operations (`app.operation()`), so that its name is a bounded label. */
  #isAppOperation(op: Operation): boolean {
    const list = this.#operations();
    let known = this.#operationNames;
    if (known === undefined || known.list !== list) {
      known = { list, names: new Set(list.map((registered) => registered.name)) };
      this.#operationNames = known;
    }
    return known.names.has(op.name);
  }
}

/**
 * The `error.type` of a failed call: the row of core's error table of a server error, as the
 * request's protocol answers it (a gRPC status on gRPC, the HTTP status elsewhere); none for the
 * client's own errors (4xx) and for a client that cancelled or left.
 */
function serverErrorType(ctx: RequestContext, error: unknown): string | undefined {
  if (isClientGone(error, ctx)) return undefined;
  if (ctx.protocolStatusOf !== undefined) return GRPC_SERVER_ERROR_TYPES.get(ctx.protocolStatusOf(error));
  const status = toHTTPError(error).statusCode;
  return status >= 500 ? errorCodeOf(status) : undefined;
}
