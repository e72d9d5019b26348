import { CLIENT_CLOSED_REQUEST, isClientGone, markClientGone } from './client-gone.js';
import { toHTTPError } from './http-error.js';
import { ContextVariables, type RequestContext } from './request-context.js';

/** A protocol-neutral context whose signal is `signal`. */
function context(signal: AbortSignal): RequestContext {
  const variables = new ContextVariables();
  return {
    protocol: 'grpc',
    method: 'POST',
    path: '/shop.Items/Get',
    headers: {},
    ip: '127.0.0.1',
    state: {},
    statusCode: 0,
    signal,
    setHeader: () => undefined,
    get: (key) => variables.get(key),
    set: (key, value) => variables.set(key, value),
  };
}

/** A signal aborted with `reason`. */
function aborted(reason: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

/** What node's `timers/promises` and `events.once` reject with when their signal aborts. */
function abortError(cause: unknown): Error {
  const error = new Error('The operation was aborted', { cause });
  error.name = 'AbortError';
  return error;
}

describe('markClientGone() and isClientGone()', () => {
  it('recognises a marked reason, and any error that wraps it as its cause', () => {
    const reason = markClientGone(new Error('The client closed the connection'));
    expect(isClientGone(reason)).toBe(true);
    expect(isClientGone(abortError(reason))).toBe(true);
    expect(isClientGone(new Error('outer', { cause: abortError(reason) }))).toBe(true);
    expect(isClientGone(toHTTPError(abortError(reason)))).toBe(true);
  });

  it('gives the marked reason status 499, so that toHTTPError (and error middleware) sees no server error', () => {
    const reason = markClientGone(new Error('Call cancelled'));
    expect((reason as Error & { statusCode?: number }).statusCode).toBe(CLIENT_CLOSED_REQUEST);
    expect(toHTTPError(reason).statusCode).toBe(499);
    // An error that carries a status of its own keeps it.
    const http = Object.assign(new Error('gone'), { statusCode: 503 });
    expect(toHTTPError(markClientGone(http)).statusCode).toBe(503);
  });

  it("counts an abort error as the client's leaving only while that request's client is gone", () => {
    const gone = context(aborted(markClientGone(new Error('The client closed the connection'))));
    const plain = abortError(undefined);
    expect(isClientGone(plain, gone)).toBe(true);
    expect(isClientGone(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), gone)).toBe(true);
    expect(isClientGone(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }), gone)).toBe(true);
    // Without the request, an unmarked abort error says nothing about the client.
    expect(isClientGone(plain)).toBe(false);
    // The signal aborted for another reason (a deadline, the app closing, a stream's time up).
    expect(isClientGone(plain, context(aborted(new Error('Deadline exceeded'))))).toBe(false);
    expect(isClientGone(plain, context(new AbortController().signal))).toBe(false);
  });

  it('keeps every other error a server error, even after the client left', () => {
    const gone = context(aborted(markClientGone(new Error('The client closed the connection'))));
    expect(isClientGone(new TypeError('undefined is not a function'), gone)).toBe(false);
    expect(isClientGone(toHTTPError(new Error('database down')), gone)).toBe(false);
    expect(isClientGone(undefined, gone)).toBe(false);
    expect(isClientGone('AbortError', gone)).toBe(false);
  });

  it('never throws, and ends on a cycle of causes', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(isClientGone(hostile)).toBe(false);
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(isClientGone(a)).toBe(false);
  });
});
