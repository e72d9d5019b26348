import { toHTTPError } from '@fw/core';
import { StreamStop, STOPPED } from '@fw/core/plugin';
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import { graphqlErrorCode, type ErrorFormatter } from '../internal/errors.js';

/** One result as it goes on the wire: errors already formatted (masked) and JSON-ready. */
export type WireResult = ExecutionResult;

/** The results of one subscription: an async iterator whose `return()` stops the source. */
export interface SubscriptionResults extends AsyncIterableIterator<WireResult> {
  next(): Promise<IteratorResult<WireResult, void>>;
  return(): Promise<IteratorReturnResult<void>>;
  throw(): Promise<IteratorReturnResult<void>>;
  /** Settles once the source is done: it ended, threw, or its `return()` (the resolver's `finally`) settled. */
  readonly settled: Promise<void>;
}

/**
 * The results of one subscription, as the transports send them, over graphql-js's `subscribe()`
 * iterator:
 * - each result's errors go through the endpoint's formatter (masked as queries mask them);
 * - an error thrown by the source stream after it opened (the resolver's generator) is not a
 *   broken connection: it becomes one last result `{ errors }` for the root field, then the end
 *   (graphql-ws sends `next` then `complete`, graphql-sse the same events);
 * - `return()` reaches the source at once, even while it waits for its next event (a plain
 *   iterator object, not an async generator whose `return()` would queue behind that wait), so
 *   the resolver's generator runs its `finally` when the client leaves;
 * - `onEnd` runs once, however the stream ended;
 * - `pace`, when given, is asked before each result is pulled from the source: a promise it
 *   returns holds the source back (a connection whose unsent bytes are past its high-water mark).
 */
export function guardResults(source: AsyncIterator<ExecutionResult>, field: string, formatError: ErrorFormatter, onEnd: () => void, pace?: () => Promise<void> | undefined): SubscriptionResults {
  let done = false;
  // Settles a `next()` that waits for the source when the stream is stopped: the transport sends
  // its `complete` now, while the source stops when it can (its `finally` runs at its next
  // `await` or `yield`; `ctx.signal` lets it stop waiting).
  const stopping = new StreamStop();
  const end = (): void => {
    if (done) return;
    done = true;
    stopping.stop();
    onEnd();
  };
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const finished = (): IteratorReturnResult<void> => ({ done: true, value: undefined });
  const stop = async (): Promise<IteratorReturnResult<void>> => {
    if (done) return finished();
    end();
    try {
      await source.return?.();
    } catch {
      // The source failing while it stops changes nothing for the client, which has left.
    } finally {
      settle();
    }
    return finished();
  };
  const iterator: SubscriptionResults = {
    async next(): Promise<IteratorResult<WireResult, void>> {
      if (done) return finished();
      // The transport's back-pressure: wait while its connection has too much unsent.
      const wait = pace?.();
      if (wait !== undefined) await stopping.race(wait);
      if (done) return finished();
      let step: IteratorResult<ExecutionResult> | IteratorReturnResult<void>;
      try {
        const next = await stopping.race(source.next());
        if (next === STOPPED) return finished();
        step = next;
      } catch (err) {
        if (done) return finished();
        end();
        settle();
        const error = err instanceof GraphQLError ? err : new GraphQLError(messageOf(err), { path: [field], originalError: err instanceof Error ? err : new Error(messageOf(err)) });
        return { done: false, value: { errors: [wireError(formatError(error))] } };
      }
      // Stopped while the source was producing this one: the client is gone.
      if (done) return finished();
      if (step.done === true) {
        end();
        settle();
        return finished();
      }
      return { done: false, value: formatResult(step.value, formatError) };
    },
    return: stop,
    throw: stop,
    settled,
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** `result` with each error through `formatError`, every one a GraphQLError (graphql-ws sends `toJSON()`). */
export function formatResult(result: ExecutionResult, formatError: ErrorFormatter): WireResult {
  if (result.errors === undefined || result.errors.length === 0) return result;
  return { ...result, errors: result.errors.map((error) => wireError(formatError(error))) };
}

/** A formatted error as a GraphQLError: one that is not (an HTTPError that may be shown) gets its code and status. */
export function wireError(error: GraphQLError | Error): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const http = toHTTPError(error);
  return new GraphQLError(error.message, { originalError: error, extensions: { code: graphqlErrorCode(http), status: http.statusCode } });
}

/** The JSON of errors (graphql's formatted form), for a body of our own. */
export function formattedErrors(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  return errors.map((error) => error.toJSON());
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
