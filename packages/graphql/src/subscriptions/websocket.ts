import { setMaxListeners } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { statusText, toHTTPError, type Context } from '@fw/core';
import { isServerFault, StreamPump, withStreamSignal, type LogFunction, type StreamSink } from '@fw/core/plugin';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type OperationResult } from 'graphql-ws';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { requestError } from '../endpoint/answer.js';
import type { Connected } from './connect.js';
import type { StartOperation, StartedOperation } from './operation.js';
import type { SubscriptionResults } from './results.js';
import type { OpenStream as StreamRegistration } from '@fw/core/plugin';
import type { StreamHost } from './streams.js';

/** The graphql-ws side of the endpoint. */
export interface WebSocketTransport {
  /** Takes an `Upgrade: websocket` request on the endpoint path. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every connection (each subscription gets its `complete`, then the socket closes) and waits for them. */
  close(): Promise<void>;
}

/** Bounds of the graphql-ws transport. */
export interface WebSocketLimits {
  /** Most subscriptions one socket carries at once (more: an `error` message for the new one). */
  readonly maxPerConnection: number;
  /** How long a socket may stay open without `connection_init`, in ms (then closed 4408). */
  readonly connectionInitTimeout: number;
  /** The largest message a client may send, in bytes (larger: the socket is closed 1009). */
  readonly maxPayload: () => number;
}

/** What the app admits (core's `host.checkOrigin` and `host.perCall`): the upgrade before its handshake, then each operation. */
export interface WebSocketAdmission {
  /** Throws the `HTTPError` (403) an upgrade from a page of an origin the app does not admit is answered with. */
  checkOrigin(req: IncomingMessage): void;
  /** Runs the app's per-call middleware (`rateLimit()`) for one operation, on the connection's context; rejects with its refusal. */
  perCall(ctx: Context): Promise<void>;
}

/** What graphql-ws keeps per socket (`ctx.extra`). */
interface Extra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
  /** The fw context the app's middleware ran on at `connection_init`. */
  fw: Context | undefined;
  readonly running: Map<string, { results: SubscriptionResults; completed: Promise<void>; complete: () => void }>;
  /** The socket's stream pump: every subscription's source waits on it (back-pressure, fairness). */
  readonly pump: StreamPump<string>;
}

/** How long closing waits for the subscriptions' `complete` messages before it closes the socket. */
const COMPLETE_WAIT = 1000;
/** How long a closed socket stays registered while a resolver has not run its `finally` yet. */
const SETTLE_WAIT = 5000;

/**
 * graphql-ws (the `graphql-transport-ws` subprotocol) over `ws`, on the HTTP port: an upgrade on
 * the endpoint path has its `Origin` admitted and is registered with the app's streams first
 * (refused with a real HTTP 403/429/503 before the handshake), then handed to graphql-ws's server.
 * `connection_init` (its payload an object, or absent: else closed 4400) runs the app's connection
 * middleware (`connect`): a refusal closes the socket 4401/4403/4429 (4400/4500 otherwise) with
 * the reason. Each `subscribe` runs the app's per-call middleware (a refusal, the 429 of a rate
 * limit, is that operation's `error` message), then starts through `start`, the rules every
 * transport shares; a socket carries at most `maxPerConnection` subscriptions. Pings at
 * `streams.heartbeat` (a socket that does not answer within the next interval is cut); a consumer that leaves more than
 * `maxBufferedBytes` unsent is closed 1008; the app closing completes every subscription.
 */
export function createWebSocketTransport(
  start: StartOperation,
  connect: (req: IncomingMessage, payload: Readonly<Record<string, unknown>> | undefined) => Promise<Connected>,
  streams: () => StreamHost,
  clientKey: (req: IncomingMessage) => string,
  limits: WebSocketLimits,
  log: LogFunction,
  admission: WebSocketAdmission,
): WebSocketTransport {
  const wss = new WebSocketServer({ noServer: true, handleProtocols, maxPayload: limits.maxPayload(), perMessageDeflate: false });
  /** Every open socket, by the function that ends it. */
  const open = new Set<() => Promise<void>>();
  const started = new WeakMap<ExecutionArgs, StartedOperation>();

  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    connectionInitWaitTimeout: limits.connectionInitTimeout,
    async onConnect(ctx) {
      const { socket, request } = ctx.extra;
      const connected = await connect(request, ctx.connectionParams);
      if ('ctx' in connected) {
        ctx.extra.fw = connected.ctx;
        // Every subscription of the socket may watch the connection's signal: no leak warning for them.
        setMaxListeners(limits.maxPerConnection + 10, connected.ctx.signal);
        return true;
      }
      closeSocket(socket, closeCodeOf(connected.status), connected.message);
      return false;
    },
    async onSubscribe(ctx, id, payload) {
      const fw = ctx.extra.fw;
      if (fw === undefined) return [requestError(401, 'Unauthorized')];
      // The new subscription is already counted among graphql-ws's.
      if (Object.keys(ctx.subscriptions).length > limits.maxPerConnection) {
        return [requestError(429, `Too many subscriptions on this connection: at most ${limits.maxPerConnection} at once.`)];
      }
      // Every operation is a call of its own (a rate limit counts each), not the connection once.
      try {
        await admission.perCall(fw);
      } catch (err) {
        return [callRefusal(err, log)];
      }
      let complete!: () => void;
      const completed = new Promise<void>((resolve) => (complete = resolve));
      // Each subscription sees the connection's context with a signal of its own, aborted as soon as
      // its stream ends (the client's `complete` included): a resolver waiting for an event stops
      // waiting and runs its `finally`, while the connection's other subscriptions go on.
      const stop = new AbortController();
      const pump = ctx.extra.pump;
      const operation = await start(withStreamSignal(fw, stop.signal), payload, { method: 'POST', onEnd: () => stop.abort(), pace: () => pump.ready() });
      if (operation.kind === 'refused') return operation.errors.length > 0 ? operation.errors : [new GraphQLError(statusText(operation.status))];
      if (operation.kind === 'stream') ctx.extra.running.set(id, { results: operation.results, completed, complete });
      // graphql-ws runs what it is given: the args carry the started operation to `execute`/`subscribe` below.
      const args = { ...operation.args };
      started.set(args, operation);
      return args;
    },
    execute: (args) => resultOf(started.get(args)),
    subscribe: (args) => resultOf(started.get(args)),
    onComplete(ctx, id) {
      // After a stopped subscription's last message too: closing waits for it.
      ctx.extra.running.get(id)?.complete();
      ctx.extra.running.delete(id);
    },
  });

  const onConnection = (socket: WebSocket, request: IncomingMessage, registration: StreamRegistration): (() => Promise<void>) => {
    const settings = streams().settings;
    let alive = true;
    socket.on('pong', () => {
      alive = true;
    });
    const pump = new StreamPump(
      socketSink(socket, () => {
        // No pong since the last ping: the peer is gone without closing.
        if (!alive) return socket.terminate();
        alive = false;
        socket.ping();
      }, (message) => oversized(String(message), extra)),
      { config: settings, log, where: `GraphQL WebSocket on ${request.url ?? '/'}` },
    );
    const extra: Extra = { socket, request, fw: undefined, running: new Map(), pump };
    socket.once('error', (err) => {
      log('GraphQL WebSocket error', err);
      closeSocket(socket, CloseCode.InternalServerError, 'Internal server error');
    });
    let ending: Promise<void> | undefined;
    const end = (): Promise<void> =>
      (ending ??= (async () => {
        const running = [...extra.running.values()];
        for (const { results } of running) void results.return();
        await withTimeout(Promise.all(running.map(({ completed }) => completed)), COMPLETE_WAIT);
        closeSocket(socket, 1001, 'Going away');
      })());
    open.add(end);
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (message) => {
          // Closed (or closing): nothing to send. Settled on a later turn, so a subscription whose
          // source never waits for I/O cannot keep the event loop from seeing the close.
          if (socket.readyState !== socket.OPEN) return new Promise<void>((resolve) => setImmediate(resolve));
          // Back-pressure and fairness are the pump's, before each source pulls its next result.
          pump.writeEncoded(message);
          return Promise.resolve();
        },
        close: (code, reason) => closeSocket(socket, code ?? 1000, reason ?? ''),
        onMessage: (cb) =>
          socket.on('message', (data, isBinary) => {
            if (isBinary) return closeSocket(socket, CloseCode.BadRequest, 'Binary messages are not part of graphql-transport-ws');
            cb(textOf(data)).catch((err: unknown) => {
              log('GraphQL WebSocket message failed', err);
              closeSocket(socket, CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      extra,
    );
    socket.once('close', (code, reason) => {
      pump.stop({ kind: 'client' });
      pump.finish();
      open.delete(end);
      // The connection's fw context: its `signal` aborts now (resolvers waiting for an event stop
      // waiting). Its response stands for the connection and was never written.
      extra.fw?.res.emit('close');
      // graphql-ws returns every subscription's iterator (the resolvers' `finally`) before this
      // settles; the socket stays registered until then (bounded).
      void withTimeout(
        closed(code, reason.toString()).catch((err: unknown) => log('GraphQL WebSocket close failed', err)),
        SETTLE_WAIT,
      ).then(() => registration.close());
    });
    return end;
  };

  return {
    upgrade(req, socket, head) {
      let registration: StreamRegistration;
      let end: (() => Promise<void>) | undefined;
      let endRequested = false;
      try {
        // Before anything is held for it: a page of an origin the app does not admit gets a plain 403.
        admission.checkOrigin(req);
        registration = streams().openStream({
          protocol: 'graphql-ws',
          clientKey: clientKey(req),
          end: () => {
            if (end === undefined) endRequested = true;
            else void end();
          },
        });
      } catch (err) {
        const error = toHTTPError(err);
        refuseUpgrade(socket, error.statusCode, error.headers);
        return;
      }
      // ws answers a bad handshake itself (400) and destroys the socket: no connection then.
      socket.once('close', () => {
        if (end === undefined) registration.close();
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        guardInitPayload(ws);
        end = onConnection(ws, req, registration);
        if (endRequested) void end();
      });
    },

    async close() {
      await Promise.all([...open].map((end) => end()));
    },
  };
}

/** How much a socket holds unsent before its subscriptions wait for the client (as a node stream's high-water mark). */
const HIGH_WATER_MARK = 16_384;

/**
 * A WebSocket as a stream sink: unsent bytes are `bufferedAmount`, the pump waits past a
 * high-water mark until the writes' callbacks say the client took them, a heartbeat is a ping
 * (`ping`, which also notices a peer gone without closing), and a client that stopped reading is
 * terminated (a close frame would wait behind what it does not read).
 */
function socketSink(socket: WebSocket, ping: () => void, oversize: (message: string | Uint8Array) => string): StreamSink<string> {
  const waiting = new Set<() => void>();
  const written = (): void => {
    if (waiting.size === 0 || socket.bufferedAmount > HIGH_WATER_MARK) return;
    for (const listener of [...waiting]) listener();
  };
  socket.once('close', () => {
    for (const listener of [...waiting]) listener();
  });
  return {
    encode: (message) => message,
    write(chunk) {
      socket.send(chunk, written);
    },
    buffered: () => socket.bufferedAmount,
    needsDrain: () => socket.bufferedAmount > HIGH_WATER_MARK,
    onDrain(listener) {
      const once = (): void => {
        waiting.delete(once);
        listener();
      };
      waiting.add(once);
      return () => waiting.delete(once);
    },
    heartbeat: ping,
    cut() {
      socket.terminate();
    },
    oversized: oversize,
  };
}

/**
 * What is sent instead of a message larger than `maxEventBytes`: a `next` with an internal error
 * for its subscription, which is stopped (graphql-ws sends its `complete`).
 */
function oversized(message: string, extra: Extra): string {
  let id: unknown;
  try {
    id = (JSON.parse(message) as { id?: unknown }).id;
  } catch {
    id = undefined;
  }
  if (typeof id !== 'string') return JSON.stringify({ type: 'error', payload: [TOO_LARGE] });
  void extra.running.get(id)?.results.return();
  return JSON.stringify({ id, type: 'next', payload: { errors: [TOO_LARGE] } });
}

const TOO_LARGE = { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } };

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

function resultOf(operation: StartedOperation | undefined): OperationResult {
  if (operation === undefined) throw new Error('A GraphQL WebSocket operation ran without being started');
  if (operation.kind === 'stream') return operation.results;
  if (operation.kind === 'result') return operation.result;
  return { errors: [...operation.errors] };
}

/** The error an operation the app's per-call middleware refused gets: its status, and its message unless it is unexpected. */
function callRefusal(err: unknown, log: LogFunction): GraphQLError {
  const error = toHTTPError(err);
  if (isServerFault(error)) log('GraphQL WebSocket operation refused by middleware', err);
  const details = error.expose && error.details !== undefined ? { details: error.details } : undefined;
  return requestError(error.statusCode, error.expose ? error.message : 'Internal server error', details);
}

/**
 * Closes a socket whose `connection_init` payload is neither an object nor absent (an array, a
 * string, a number) with 4400 and a reason saying so: graphql-ws refuses it too, but only as an
 * "Invalid message received". Registered before graphql-ws's listener, so it closes first; it
 * stops listening once the init came.
 */
function guardInitPayload(socket: WebSocket): void {
  const check = (data: RawData, isBinary: boolean): void => {
    if (isBinary) return;
    const text = textOf(data);
    // Only a message that may be the init is parsed twice.
    if (!text.includes('connection_init')) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      // graphql-ws closes it as an invalid message.
      return;
    }
    if (!isRecord(message) || message.type !== 'connection_init') return;
    socket.off('message', check);
    if (message.payload !== undefined && message.payload !== null && !isRecord(message.payload)) {
      closeSocket(socket, CloseCode.BadRequest, 'Invalid connection_init: its payload must be a JSON object');
    }
  };
  socket.on('message', check);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** graphql-ws's close code for a refusal with HTTP status `status`. */
function closeCodeOf(status: number): number {
  if (status === 401) return CloseCode.Unauthorized;
  if (status === 403) return CloseCode.Forbidden;
  if (status === 429) return CloseCode.TooManyInitialisationRequests;
  if (status === 503) return 1013;
  return status < 500 ? CloseCode.BadRequest : CloseCode.InternalServerError;
}

/** Closes `socket` once; a reason is cut to the 123 bytes a close frame allows. */
function closeSocket(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState !== socket.OPEN && socket.readyState !== socket.CONNECTING) return;
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  socket.close(code, text);
}

/** Answers an upgrade the app refused (429, 503) with that status, before any handshake. */
function refuseUpgrade(socket: Duplex, status: number, headers: Readonly<Record<string, string>> | undefined): void {
  if (!socket.writable) return void socket.destroy();
  const lines = [`HTTP/1.1 ${status} ${statusText(status)}`, 'Connection: close', 'Content-Length: 0'];
  for (const [name, value] of Object.entries(headers ?? {})) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n`);
}


function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    void promise.then(done, done);
  });
}
