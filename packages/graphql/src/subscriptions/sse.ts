import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { statusText, type Context } from '@fw/core';
import { negotiate, requestIdentity, responseSink, StreamPump, type LogFunction } from '@fw/core/plugin';
import { TOKEN_HEADER_KEY, TOKEN_QUERY_KEY, createHandler, type OperationResult, type Request as SseRequest, type Response as SseResponse } from 'graphql-sse';
import { send, type HandlerResponse } from '../endpoint/answer.js';
import { UNSUPPORTED_MEDIA_TYPE, headerValue, isJsonContentType, prefersEventStream } from '../endpoint/negotiation.js';
import { graphqlErrorCode } from '../internal/errors.js';
import type { StartOperation, StartedOperation } from './operation.js';
import type { SubscriptionResults } from './results.js';
import type { OpenStream as StreamRegistration } from '@fw/core/plugin';
import type { StreamHost } from './streams.js';

/** The GraphQL-over-SSE side of the endpoint (graphql-sse's protocol, both modes). */
export interface SseTransport {
  /** Whether a request to the endpoint is one of the protocol's (`Accept: text/event-stream`, a stream token, a reservation). */
  claims(ctx: Context, method: string): boolean;
  /** Answers such a request; an event stream's promise settles when the stream ends. */
  handle(ctx: Context, method: string): Promise<void>;
  /** Ends every open stream, each operation with `complete`, and waits for them. */
  close(): Promise<void>;
}

/** Bounds of the GraphQL-over-SSE transport. */
export interface SseLimits {
  /** Most operations one single-connection stream carries at once (more: 429). */
  readonly maxPerConnection: number;
  /**
   * How long a reservation (the single-connection mode's PUT) waits for its event stream, in ms.
   * At most the app's `streams.maxPerClient` reservations of one client wait at once (more: 429),
   * and `streams.maxOpen` in all (more: 503).
   */
  readonly reservationTimeout: number;
}

/** One operation running over an event stream. */
interface RunningOperation {
  /** Its id in a single-connection stream (`extensions.operationId`). */
  readonly id: string | undefined;
  results: SubscriptionResults | undefined;
  /** Resolves once graphql-sse has queued the operation's `complete` event. */
  readonly completed: Promise<void>;
  readonly complete: () => void;
}

/** The per-request value graphql-sse carries from `onSubscribe` to `onComplete`. */
interface RequestState {
  operation?: RunningOperation;
  /** A distinct-mode stream's unsettled operation. */
  unsettled?: Set<Promise<void>>;
  /** The reservation this request (a PUT) made, until graphql-sse has answered it. */
  reserved?: Reservation;
}

/** A reservation of the single-connection mode, then its event stream. */
interface Reservation {
  readonly token: string;
  /** Who made it (`requestIdentity`): its event stream and every request with its token must come from them. */
  readonly owner: string;
  /** The client key it counts against (`ctx.ip`) while it waits for its event stream. */
  readonly clientKey: string;
  /** Whether it still counts as waiting for its event stream. */
  pending: boolean;
  connected: boolean;
  /**
   * The fw context of its event stream (the GET), which its operations run with: the app's
   * middleware ran on it with the same headers, and its `signal` aborts when the stream closes.
   */
  stream: Context | undefined;
  readonly operations: Set<RunningOperation>;
  /** The operations whose source has not settled yet (stopped ones included): the stream stays registered until they have. */
  readonly unsettled: Set<Promise<void>>;
  timer: NodeJS.Timeout | undefined;
}

type Request = SseRequest<Context, RequestState>;

/** How long `close()` and an ended stream wait for the operations' `complete` events to be queued. */
const COMPLETE_WAIT = 1000;
/**
 * How long an ended stream stays registered while a resolver has not run its `finally` yet (it
 * does at its next `await` or `yield`; one that watches `ctx.signal` at once).
 */
const SETTLE_WAIT = 5000;

/**
 * GraphQL over server-sent events with graphql-sse's handler: the distinct-connections mode (an
 * event stream per operation: `Accept: text/event-stream` on GET or POST) and the
 * single-connection mode (a reservation `PUT`, its event stream `GET` with the token, operations
 * `POST`ed with it, `DELETE` to stop one). Every request passed the app's middleware (its 401 or
 * 429 is a real status); an event stream is registered with the app (`streams.openStream`, its
 * 429/503 a real status) before anything runs, sends heartbeats, is ended when its consumer stops
 * reading (more than `maxBufferedBytes` unsent) and when the app closes (every operation gets its
 * `complete`). Operations start through `start`, the rules every transport shares.
 */
export function createSseTransport(start: StartOperation, streams: () => StreamHost, limits: SseLimits, log: LogFunction): SseTransport {
  const reservations = new Map<string, Reservation>();
  let pendingReservations = 0;
  /** Reservations waiting for their event stream, by client key (no entry: none). */
  const pendingByClient = new Map<string, number>();
  /** Every open event stream, by the function that ends it. */
  const open = new Set<() => Promise<void>>();

  /** The pump of each event stream (by the context of its GET or POST) and the operations it carries. */
  const eventStreams = new WeakMap<Context, { readonly pump: StreamPump<string>; operations: ReadonlySet<RunningOperation> }>();
  const eventStreamOf = (ctx: Context): { readonly pump: StreamPump<string>; operations: ReadonlySet<RunningOperation> } => {
    let stream = eventStreams.get(ctx);
    if (stream === undefined) {
      const created: { pump: StreamPump<string>; operations: ReadonlySet<RunningOperation> } = { pump: undefined as unknown as StreamPump<string>, operations: new Set() };
      // graphql-sse frames each event itself: the sink writes its text as it is.
      const sink = responseSink<string>(ctx.res, (chunk) => chunk, (chunk) => oversized(String(chunk), created.operations));
      created.pump = new StreamPump(sink, { config: streams().settings, log, where: `GraphQL event stream on ${ctx.path}` });
      eventStreams.set(ctx, created);
      stream = created;
    }
    return stream;
  };
  /** What holds an operation's source back: its event stream's pump (none before the stream exists). */
  const paceOf = (ctx: Context): (() => Promise<void> | undefined) | undefined => {
    const stream = eventStreams.get(ctx);
    return stream === undefined ? undefined : () => stream.pump.ready();
  };

  const refusal = (started: Extract<StartedOperation, { kind: 'refused' }>): SseResponse => [
    JSON.stringify({ errors: started.errors }),
    { status: started.status, statusText: statusText(started.status), headers: { ...started.headers, 'content-type': 'application/json; charset=utf-8' } },
  ];

  const handler = createHandler<Context, RequestState>({
    authenticate(req): SseResponse | string | undefined {
      // A reservation's token is always one of ours, counted and bound to its owner: a PUT naming
      // a token (graphql-sse's client sends its last one again when it reconnects) gets a new one.
      if (req.method === 'PUT') return reserve(req);
      return tokenOfRequest(req);
    },
    async onSubscribe(req, params): Promise<SseResponse | OperationResult> {
      const ctx = req.raw;
      const token = tokenOf(ctx);
      const reservation = token === undefined ? undefined : reservations.get(token);
      if (reservation !== undefined && !reservation.connected) {
        return [JSON.stringify({ errors: [{ message: 'The event stream of this token is not connected: GET it with Accept: text/event-stream first.' }] }), { status: 409, statusText: statusText(409), headers: { 'content-type': 'application/json; charset=utf-8' } }];
      }
      if (reservation !== undefined && reservation.operations.size >= limits.maxPerConnection) {
        return [
          JSON.stringify({ errors: [{ message: `Too many operations on this event stream: at most ${limits.maxPerConnection} at once.`, extensions: { code: 'TOO_MANY_REQUESTS', status: 429 } }] }),
          { status: 429, statusText: statusText(429), headers: { 'content-type': 'application/json; charset=utf-8' } },
        ];
      }
      let complete!: () => void;
      const completed = new Promise<void>((resolve) => (complete = resolve));
      const operationId = params.extensions?.operationId;
      const operation: RunningOperation = { id: typeof operationId === 'string' ? operationId : undefined, results: undefined, completed, complete };
      // Counted from now, so operations sent at once cannot pass the limit together.
      reservation?.operations.add(operation);
      req.context.operation = operation;
      // An operation POSTed to a single-connection stream outlives its request (answered 202).
      const streamCtx = reservation?.stream ?? ctx;
      const started = await start(streamCtx, { query: params.query, variables: params.variables, operationName: params.operationName, extensions: params.extensions }, {
        method: req.method,
        onEnd: () => reservation?.operations.delete(operation),
        pace: paceOf(streamCtx),
      });
      if (started.kind !== 'stream') reservation?.operations.delete(operation);
      if (started.kind === 'refused') return refusal(started);
      if (started.kind === 'result') return single(started.result);
      operation.results = started.results;
      const unsettled = reservation?.unsettled ?? req.context.unsettled;
      if (unsettled !== undefined) {
        const settled = started.results.settled;
        unsettled.add(settled);
        void settled.then(() => unsettled.delete(settled));
      }
      return started.results;
    },
    onComplete(_ctx, req): void {
      req.context.operation?.complete();
    },
  });

  /** Ends the operations of a stream (each queues its `complete`), then the stream itself. */
  const endStream = async (operations: Iterable<RunningOperation>, body: AsyncGenerator<string, void, undefined>): Promise<void> => {
    const running = [...operations];
    for (const operation of running) void operation.results?.return();
    await withTimeout(Promise.all(running.map((operation) => operation.completed)), COMPLETE_WAIT);
    await body.return(undefined);
  };

  /**
   * Writes an event stream until it ends, through the stream's pump (`pumpOf(ctx)`: the shared
   * policy — back-pressure, a client that stops reading cut after `stallTimeout`, heartbeats, event
   * size, fairness). `end` ends it from outside (the app closing, the maximum duration): the
   * operations' `complete` events are written, then the connection is closed rather than ended, so
   * a single-connection client reconnects and `ctx.signal` aborts (a resolver waiting for its next
   * event stops waiting). An event larger than `maxEventBytes` ends its operation with an internal error.
   */
  const pipe = async (
    ctx: Context,
    [body, init]: readonly [AsyncGenerator<string, void, undefined>, SseResponse[1]],
    unsettled: ReadonlySet<Promise<void>>,
    registration: StreamRegistration,
    endedByApp: () => boolean,
  ): Promise<void> => {
    const res = ctx.res;
    const { pump } = eventStreamOf(ctx);
    // `content-encoding: none` is graphql-sse's way to keep proxies from compressing; proxies
    // that buffer (nginx) are told not to.
    res.writeHead(init.status, { ...init.headers, 'x-accel-buffering': 'no' });
    let stopping: Promise<void> | undefined;
    const gone = (): void => {
      pump.stop({ kind: 'client' });
      stopping ??= body.return(undefined).then(() => undefined);
    };
    res.once('close', gone);
    try {
      await pump.run(body);
    } catch (err) {
      log(`GraphQL event stream failed on ${ctx.path}`, err);
    } finally {
      pump.finish();
      res.off('close', gone);
      // A client cut for not reading: its operations stop too.
      if (pump.stopped?.kind === 'slow') gone();
      if (endedByApp() && res.socket !== null) res.socket.end();
      else if (!res.writableEnded && !res.destroyed) res.end();
    }
    await stopping;
    await withTimeout(Promise.all(unsettled), SETTLE_WAIT);
    registration.close();
  };

  const expire = async (token: string): Promise<void> => {
    // graphql-sse drops a reservation when its event stream ends: connect one and end it.
    const [body] = await handler(syntheticStreamRequest(token));
    if (body !== null && typeof body !== 'string') await body.return(undefined);
  };

  return {
    claims(ctx, method) {
      // By the client's preference (q-values), as the endpoint negotiates JSON: a client that
      // lists text/event-stream after JSON gets JSON.
      if (prefersEventStream(ctx)) return true;
      if (ctx.headers[TOKEN_HEADER_KEY] !== undefined) return true;
      // The reservation of the single-connection mode: a PUT without a body.
      return method === 'PUT' && ctx.headers['content-type'] === undefined;
    },

    async handle(ctx, method) {
      // Admission before anything of the request runs. A body must be JSON by the rule every
      // transport shares (graphql-sse takes any type that contains "application/json", such as
      // text/plain;application/json, which a page on another site may send without a preflight).
      if (method === 'POST' && !isJsonContentType(headerValue(ctx.headers['content-type']))) return send(ctx, UNSUPPORTED_MEDIA_TYPE);
      const wantsStream = prefersEventStream(ctx);
      const token = tokenOf(ctx);
      const reservation = token === undefined ? undefined : reservations.get(token);
      // A reservation's stream and operations are its owner's: anyone else holding the token is
      // answered as if it did not exist.
      if (reservation !== undefined && reservation.owner !== requestIdentity(ctx)) return send(ctx, STREAM_NOT_FOUND);
      const accept = wantsStream ? 'text/event-stream' : acceptFor(method, headerValue(ctx.headers.accept));
      let registration: StreamRegistration | undefined;
      let endRequested = false;
      let endNow: () => void = () => {
        endRequested = true;
      };
      // An event stream of its own (distinct mode) or of a reservation: counted before anything runs.
      if (wantsStream && (token === undefined || (reservation !== undefined && !reservation.connected))) {
        registration = streams().openStream({ protocol: 'graphql-sse', clientKey: ctx.ip, end: () => endNow() });
        eventStreamOf(ctx);
      }
      try {
        const body = method === 'POST' ? await ctx.parseBody() : null;
        const req: Request = {
          method,
          url: ctx.url,
          headers: {
            get: (key) => {
              const name = key.toLowerCase();
              if (name === 'accept') return accept;
              // Admitted above: JSON, whatever its spelling (graphql-sse reads it by substring).
              if (name === 'content-type' && method === 'POST') return 'application/json';
              return headerValue(ctx.headers[name]) ?? null;
            },
          },
          body: (body ?? null) as Request['body'],
          raw: ctx,
          context: reservation === undefined && wantsStream ? { unsettled: new Set() } : {},
        };
        const [answer, init] = await handler(req);
        if (answer === null || typeof answer === 'string') {
          registration?.close();
          registration = undefined;
          // A reservation graphql-sse did not take (a 406 for the PUT's Accept) is given back.
          if (req.context.reserved !== undefined && init.status !== 201) drop(req.context.reserved);
          send(ctx, [answer, init]);
          return;
        }
        const operations = reservation?.operations ?? new Set(req.context.operation === undefined ? [] : [req.context.operation]);
        eventStreamOf(ctx).operations = operations;
        if (reservation !== undefined) {
          reservation.connected = true;
          reservation.stream = ctx;
          // Every operation of the stream may watch its signal: no leak warning for them.
          setMaxListeners(limits.maxPerConnection + 10, ctx.signal);
          if (reservation.timer !== undefined) clearTimeout(reservation.timer);
          reservation.timer = undefined;
          settle(reservation);
        }
        let ending: Promise<void> | undefined;
        const end = (): Promise<void> => (ending ??= endStream(operations, answer));
        endNow = () => void end();
        if (endRequested) void end();
        const held = registration ?? NO_REGISTRATION;
        registration = undefined;
        open.add(end);
        try {
          await pipe(ctx, [answer, init], reservation?.unsettled ?? req.context.unsettled ?? new Set(), held, () => ending !== undefined);
        } finally {
          open.delete(end);
          if (token !== undefined) reservations.delete(token);
        }
      } finally {
        registration?.close();
        // A stream refused or answered without one: its pump's clock stops (idempotent after pipe).
        eventStreams.get(ctx)?.pump.finish();
      }
    },

    async close() {
      await Promise.all([...open].map((end) => end()));
      for (const reservation of reservations.values()) if (!reservation.connected) void expire(reservation.token);
    },
  };

  /**
   * Takes a reservation for the PUT `req`, bound to the identity that made it, or refuses: 429 past
   * `streams.maxPerClient` reservations of its client, 503 past `streams.maxOpen` in all. Counted
   * here, with no await between the check and the count, so PUTs that arrive together cannot pass
   * a bound together.
   */
  function reserve(req: Request): SseResponse | string {
    const ctx = req.raw;
    const clientKey = ctx.ip;
    const { maxPerClient, maxOpen } = streams().settings;
    const held = pendingByClient.get(clientKey) ?? 0;
    if (held >= maxPerClient) {
      return reservationRefusal(429, `Too many event streams reserved by this client: at most ${maxPerClient} wait for their event stream at once.`, limits.reservationTimeout);
    }
    if (pendingReservations >= maxOpen) return reservationRefusal(503, 'Too many event streams are being reserved; try again later.', limits.reservationTimeout);
    const token = randomUUID();
    const reservation: Reservation = {
      token,
      owner: requestIdentity(ctx),
      clientKey,
      pending: true,
      connected: false,
      stream: undefined,
      operations: new Set(),
      unsettled: new Set(),
      timer: undefined,
    };
    pendingReservations += 1;
    pendingByClient.set(clientKey, held + 1);
    reservation.timer = setTimeout(() => {
      if (reservation.connected) return;
      reservations.delete(token);
      settle(reservation);
      void expire(token).catch((err: unknown) => log('GraphQL event stream reservation could not be dropped', err));
    }, limits.reservationTimeout);
    reservation.timer.unref();
    reservations.set(token, reservation);
    req.context.reserved = reservation;
    return token;
  }

  /** A reservation stops counting as waiting (its stream connected, or it is dropped); once. */
  function settle(reservation: Reservation): void {
    if (!reservation.pending) return;
    reservation.pending = false;
    pendingReservations -= 1;
    const held = (pendingByClient.get(reservation.clientKey) ?? 1) - 1;
    if (held > 0) pendingByClient.set(reservation.clientKey, held);
    else pendingByClient.delete(reservation.clientKey);
  }

  /** Gives back a reservation that was never answered with its token. */
  function drop(reservation: Reservation): void {
    if (reservation.timer !== undefined) clearTimeout(reservation.timer);
    reservation.timer = undefined;
    reservations.delete(reservation.token);
    settle(reservation);
  }
}

/** graphql-sse's answer for a token it does not know, given to a request with a token that is not its own. */
const STREAM_NOT_FOUND: HandlerResponse = [JSON.stringify({ errors: [{ message: 'Stream not found' }] }), { status: 404, statusText: statusText(404), headers: { 'content-type': 'application/json; charset=utf-8' } }];

/** A reservation refused (429, 503): retry once the waiting ones have connected or expired. */
function reservationRefusal(status: number, message: string, reservationTimeout: number): SseResponse {
  return [
    JSON.stringify({ errors: [{ message, extensions: { code: graphqlErrorCode(status), status } }] }),
    {
      status,
      statusText: statusText(status),
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(Math.max(1, Math.ceil(reservationTimeout / 1000))) },
    },
  ];
}

/** What graphql-sse answers each request without an event stream in: the token of a reservation (PUT), else JSON. */
const TOKEN_TYPE: readonly string[] = Object.freeze(['text/plain; charset=utf-8']);
const JSON_TYPE: readonly string[] = Object.freeze(['application/json; charset=utf-8']);

/**
 * The Accept header graphql-sse is handed for a request that does not want an event stream:
 * graphql-sse compares it whole (`*\/*`, `application/json`), so the endpoint's negotiation decides
 * and graphql-sse is told `*\/*` when what it answers is acceptable, a type it refuses (406) when not.
 */
function acceptFor(method: string, accept: string | undefined): string {
  return negotiate(accept, method === 'PUT' ? TOKEN_TYPE : JSON_TYPE) === undefined ? 'application/x-unacceptable' : '*/*';
}

/** The error an event too large to send is replaced with. */
const TOO_LARGE = { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } };

/**
 * What is sent instead of an event larger than `maxEventBytes`: a `next` with an internal error for
 * its operation, which is stopped (its `complete` follows).
 */
function oversized(chunk: string, operations: ReadonlySet<RunningOperation>): string {
  const at = chunk.indexOf('data: ');
  let id: string | undefined;
  try {
    const data = JSON.parse(chunk.slice(at + 6)) as { id?: unknown };
    id = typeof data.id === 'string' ? data.id : undefined;
  } catch {
    id = undefined;
  }
  for (const operation of operations) if (operation.id === id) void operation.results?.return();
  return `event: next\ndata: ${JSON.stringify(id === undefined ? { errors: [TOO_LARGE] } : { id, payload: { errors: [TOO_LARGE] } })}\n\n`;
}

const NO_REGISTRATION: StreamRegistration = { signal: new AbortController().signal, close: () => undefined };

/** The stream token a request carries (header, or `?token=` for an EventSource that cannot set headers). */
function tokenOf(ctx: Context): string | undefined {
  const header = headerValue(ctx.headers[TOKEN_HEADER_KEY]);
  if (header !== undefined && header !== '') return header;
  const at = ctx.url.indexOf('?');
  if (at === -1) return undefined;
  return new URLSearchParams(ctx.url.slice(at + 1)).get(TOKEN_QUERY_KEY) ?? undefined;
}

function tokenOfRequest(req: Request): string | undefined {
  const header = req.headers.get(TOKEN_HEADER_KEY);
  if (header != null && header !== '') return header;
  const at = req.url.indexOf('?');
  return at === -1 ? undefined : (new URLSearchParams(req.url.slice(at + 1)).get(TOKEN_QUERY_KEY) ?? undefined);
}

/** A result graphql-sse sends as one `next` and a `complete`: an iterable of one. */
function single(result: StartedOperation & { kind: 'result' } extends { result: infer R } ? R : never): OperationResult {
  // graphql-sse takes a result with `data` as it is; one without (errors only) as an iterable.
  return 'data' in result ? (result as OperationResult) : (async function* once() {
    yield result;
  })();
}

function syntheticStreamRequest(token: string): Request {
  return {
    method: 'GET',
    url: '/',
    headers: { get: (key) => (key === 'accept' ? 'text/event-stream' : key === TOKEN_HEADER_KEY ? token : null) },
    body: null,
    raw: undefined as unknown as Context,
    context: {},
  };
}

function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}
