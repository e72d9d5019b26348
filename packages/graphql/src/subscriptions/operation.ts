import { OPERATION_NAME, OPERATION_TYPE, toHTTPError, type Context } from '@fw/core';
import { GraphQLError, OperationTypeNode, execute, subscribe, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { ResolvedGraphQLConfig } from '../config.js';
import { requestError, type HandlerResponse } from '../endpoint/answer.js';
import type { ContextStep } from '../endpoint/context.js';
import { isPrepared, operationOf, type Documents } from '../endpoint/documents.js';
import type { ErrorFormatter } from '../internal/errors.js';
import type { SchemaSource } from '../operations/source.js';
import { formatResult, guardResults, wireError, type SubscriptionResults, type WireResult } from './results.js';

/** The parameters of one operation sent over a streaming transport (a graphql-sse request, a graphql-ws `subscribe`). */
export interface StreamParams {
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>> | null | undefined;
  readonly operationName?: string | null | undefined;
  readonly extensions?: Readonly<Record<string, unknown>> | null | undefined;
}

/** How an operation sent over a streaming transport starts. */
export type StartedOperation =
  /** Refused before anything was sent: the status an HTTP transport answers with, and the errors (formatted). */
  | { readonly kind: 'refused'; readonly status: number; readonly errors: readonly GraphQLError[]; readonly headers?: Readonly<Record<string, string>> }
  /** A subscription: its results until it ends (`args`: what it runs with). */
  | { readonly kind: 'stream'; readonly results: SubscriptionResults; readonly args: ExecutionArgs }
  /** A query or mutation: its one result. */
  | { readonly kind: 'result'; readonly result: WireResult; readonly args: ExecutionArgs };

/** Starts one operation for a request or connection: `ctx` is its fw context; `onEnd` runs once when a started stream ends. */
export type StartOperation = (
  ctx: Context,
  params: StreamParams,
  options: { readonly method: string; readonly onEnd?: () => void; readonly pace?: () => Promise<void> | undefined },
) => Promise<StartedOperation>;

/**
 * The one way the streaming transports start an operation, with the rules queries follow: the
 * document cache, limits and validation rules of the endpoint (`documents`), the same context
 * (`contextOf`: the user's `context` factory, whose throw refuses with its status), the same
 * root value (with the request's fw context for operation fields), and errors through the same
 * formatter (masked). Subscriptions run on graphql-js's `subscribe()` (the compiled path is for
 * queries and mutations over HTTP); queries and mutations sent this way on graphql-js's `execute()`.
 * An error before the stream opens (the subscribe resolver threw, an operation's middleware
 * refused with 401) is a refusal, so an HTTP transport can answer it with its status.
 */
export function createOperationStarter(
  config: Pick<ResolvedGraphQLConfig, 'rootValue'>,
  source: SchemaSource,
  documents: Documents,
  contextOf: ContextStep,
  formatError: ErrorFormatter,
): StartOperation {
  const refuse = (status: number, errors: ReadonlyArray<GraphQLError | Error>, headers?: Readonly<Record<string, string>>): StartedOperation => ({
    kind: 'refused',
    status,
    errors: errors.map((error) => wireError(formatError(error))),
    ...(headers === undefined ? {} : { headers }),
  });

  return async (ctx, params, { method, onEnd, pace }) => {
    const { schema, rootFor } = source.current();
    const prepared = documents.get(params.query, schema, 'application/json');
    if (!isPrepared(prepared)) return isAnswer(prepared) ? refusedAnswer(prepared) : refuse(400, prepared);
    const plan = operationOf(prepared, params.operationName ?? undefined);
    if (plan === undefined) return refuse(400, [requestError(400, 'Unable to detect operation AST')]);
    const operation = plan.operation;
    ctx.set(OPERATION_TYPE, operation.operation);
    if (operation.name !== undefined) ctx.set(OPERATION_NAME, operation.name.value);
    if (method === 'GET' && operation.operation === OperationTypeNode.MUTATION) {
      return refuse(405, [requestError(405, 'Cannot perform mutations over GET')], { allow: 'POST' });
    }
    const pending = contextOf(ctx, 'application/json');
    const contextValue: unknown = pending instanceof Promise ? await pending : pending;
    if (isAnswer(contextValue)) return refusedAnswer(contextValue);
    const args: ExecutionArgs = {
      schema,
      document: prepared.document,
      rootValue: rootFor === undefined ? config.rootValue : rootFor(ctx, config.rootValue),
      contextValue,
      variableValues: params.variables,
      operationName: params.operationName,
    };
    if (operation.operation !== OperationTypeNode.SUBSCRIPTION) {
      const result = await execute(args);
      // No data: the variables did not coerce, a request error.
      if (!('data' in result) && result.errors !== undefined) return refuse(400, result.errors);
      return { kind: 'result', result: formatResult(result, formatError), args };
    }
    let subscribed: AsyncGenerator<ExecutionResult, void, void> | ExecutionResult;
    try {
      subscribed = await subscribe(args);
    } catch (err) {
      return refuse(500, [err instanceof Error ? err : new Error(String(err))]);
    }
    if (!isAsyncIterator(subscribed)) {
      const errors = subscribed.errors ?? [];
      // The status of what the subscribe resolver (or an operation's middleware) threw; variables
      // that do not coerce are a 400.
      const original = errors.find((error) => error.originalError !== undefined)?.originalError;
      return refuse(original === undefined ? 400 : toHTTPError(original).statusCode, errors);
    }
    const field = rootFieldOf(operation.selectionSet.selections);
    return { kind: 'stream', results: guardResults(subscribed, field, formatError, onEnd ?? noop, pace), args };
  };
}

function noop(): void {}

function isAsyncIterator<T>(value: AsyncGenerator<T, void, void> | ExecutionResult): value is AsyncGenerator<T, void, void> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/** The response key of a subscription's one root field (the path of an error thrown mid-stream). */
function rootFieldOf(selections: readonly { kind: string; alias?: { value: string }; name?: { value: string } }[]): string {
  const first = selections[0];
  return first?.alias?.value ?? first?.name?.value ?? 'subscription';
}

/** A refusal the endpoint's steps answered with (a limit, the context factory): its status, headers and errors. */
function refusedAnswer([body, init]: HandlerResponse): StartedOperation {
  let errors: GraphQLError[] = [];
  try {
    const parsed = JSON.parse(body ?? '{}') as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
    errors = (parsed.errors ?? []).map((error) => new GraphQLError(error.message, { extensions: error.extensions }));
  } catch {
    errors = [new GraphQLError(init.statusText)];
  }
  const headers = { ...init.headers };
  delete headers['content-type'];
  return { kind: 'refused', status: init.status, errors, headers };
}

function isAnswer(value: unknown): value is HandlerResponse {
  return Array.isArray(value) && value.length === 2 && (typeof value[0] === 'string' || value[0] === null) && typeof value[1] === 'object';
}
