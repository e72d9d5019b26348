import type { DescMessage } from '@bufbuild/protobuf';
import { HTTPError, type Context, type RequestContext, type StreamEvent } from '@fw/core';
import { armDeadline, readRawBody, responseSink, runOperation, runStreamOperation, StreamPump, withDeadline, withStreamSignal, type LogFunction, type PluginHost, type StreamSink } from '@fw/core/plugin';
import type { DescribedMethod } from '@fw/grpc';
import { ACCEPTED_TYPES, callKindOf, checkProtocolVersion, deadlineOf, getQuery, type CallKind } from './call.js';
import { connectErrorJson, connectStatus, endStreamJson, grpcWebTrailers, trailerBlock, wireError, type WireError } from './errors.js';
import { decodeRequest, encodeResponse } from './messages.js';
import { compress, decodeBase64Text, decompress, envelope, FLAG_COMPRESSED, FLAG_END_STREAM, FLAG_TRAILERS, readEnvelope, readRequest, requestEncoding, responseEncoding, tooLarge, type Encoding } from './wire.js';

/** One RPC as served here: the generated method, its messages' descriptors, and whether GET may call it. */
export interface ServedMethod {
  readonly described: DescribedMethod;
  readonly input: DescMessage;
  readonly output: DescMessage;
  /** Bound as a GraphQL query or a REST GET: without side effects, so Connect GET may call it. */
  readonly readOnly: boolean;
}

/** What every call needs from the plugin. */
export interface ServeOptions {
  readonly host: Pick<PluginHost, 'openStream' | 'streams'>;
  readonly log: LogFunction;
  readonly maxMessageBytes: number;
  readonly maxJsonDepth: number;
  readonly compressMinBytes: number | false;
}

/** A refusal with a status of its own (a 405, a 415): Connect sends that status, not its code's. */
class StatusRefusal extends HTTPError {}

/** A failure already in the wire's terms (a hand-written method's status, mapped and logged where it was made). */
export class WireFailure extends Error {
  constructor(readonly wire: WireError) {
    super(wire.message);
    this.name = 'WireFailure';
  }
}

/** Answers an error before anything was sent, in the form the request's protocol expects. */
export function answerError(ctx: Context, thrown: unknown, log: LogFunction): void {
  const kind = callKindOf(ctx);
  const error = thrown instanceof WireFailure ? thrown.wire : wireError(thrown, log, ctx.path);
  const res = ctx.res;
  // What middleware set for an answer of its own no longer describes this one.
  res.removeHeader('content-length');
  res.removeHeader('content-encoding');
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  // A refusal of the request's form (its HTTP method, its Content-Type) is an HTTP status, whatever protocol it claims to speak.
  if (thrown instanceof StatusRefusal) ctx.send(JSON.stringify(connectErrorJson(error)), thrown.statusCode, 'application/json');
  else if (kind === undefined || kind.protocol === 'connect') {
    ctx.send(JSON.stringify(connectErrorJson(error)), connectStatus(error), 'application/json');
  } else if (kind.protocol === 'connect-stream') {
    ctx.send(envelope(FLAG_END_STREAM, endStreamJson(error)), 200, kind.contentType);
  } else {
    ctx.send(grpcWebBody(kind, envelope(FLAG_TRAILERS, trailerBlock(grpcWebTrailers(error)))), 200, kind.contentType);
  }
}

function grpcWebBody(kind: CallKind, bytes: Buffer): Buffer {
  return kind.text ? Buffer.from(bytes.toString('base64')) : bytes;
}

/**
 * The request body. When middleware read it already (`await ctx.parseBody()` in a global
 * middleware), a JSON body is taken as it was parsed; any other is gone: a 500 rather than a wait
 * for an end that already happened.
 */
async function bodyOf(ctx: Context, kind: CallKind, limit: number): Promise<Buffer> {
  // Someone read from the stream before the call did: what it held is no longer there.
  if (!ctx.req.readableDidRead && !ctx.req.readableEnded) return readRequest(ctx.req, limit);
  // Middleware that needed the bytes themselves (an idempotency fingerprint) kept them.
  const raw = await readRawBody(ctx);
  if (raw !== undefined) {
    if (raw.length > limit) throw tooLarge(limit, 'The request body');
    return raw;
  }
  if (kind.protocol === 'connect' && kind.codec === 'json') return Buffer.from(JSON.stringify((await ctx.parseBody()) ?? {}));
  throw new HTTPError(500, `The request body was read by middleware before the ${kind.protocol} call could read it`);
}

/** The request message's bytes, read, decoded from base64 and decompressed as the protocol says. */
async function requestBytes(ctx: Context, kind: CallKind, query: URLSearchParams | undefined, limit: number): Promise<Uint8Array> {
  if (query !== undefined) {
    const message = query.get('message') ?? '';
    const raw = query.get('base64') === '1' ? Buffer.from(message, 'base64url') : Buffer.from(message, 'utf8');
    if (raw.length > limit) throw new HTTPError(429, `The request message is larger than ${limit} bytes`, undefined, { code: 'resource_exhausted' });
    return decompress(raw, requestEncoding(query.get('compression') ?? undefined), limit);
  }
  const header = (name: string): string | undefined => {
    const value = ctx.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  if (kind.protocol === 'connect') {
    const encoding = requestEncoding(header('content-encoding'));
    return decompress(await bodyOf(ctx, kind, limit), encoding, limit);
  }
  const encoding: Encoding = requestEncoding(header(kind.protocol === 'connect-stream' ? 'connect-content-encoding' : 'grpc-encoding'));
  // The envelope's prefix; base64 is four characters for three bytes.
  const enveloped = limit + 5;
  const body = await bodyOf(ctx, kind, kind.text ? Math.ceil(enveloped / 3) * 4 + 1024 : enveloped);
  return readEnvelope(kind.text ? decodeBase64Text(body.toString('latin1')) : body, encoding, limit);
}

/** What a path serves, as the checks before the request is read need it. */
export interface CallShape {
  /** `/<package>.<Service>/<Method>`. */
  readonly path: string;
  /** Without side effects: Connect GET may call it. */
  readonly readOnly: boolean;
  /** A server stream. */
  readonly stream: boolean;
}

/** A call whose request passed the checks: its protocol, deadline and request message's bytes. */
export interface PreparedCall {
  readonly kind: CallKind;
  /** The client's timeout in ms, if it sent one. */
  readonly deadline: number | undefined;
  readonly bytes: Uint8Array;
}

/**
 * Refuses what the method or protocol does not allow (the HTTP method, the Content-Type, the
 * protocol version, a malformed timeout), then reads the request message's bytes within the limits.
 */
export async function prepareCall(ctx: Context, shape: CallShape, options: ServeOptions): Promise<PreparedCall> {
  const query = getQuery(ctx);
  const { path, stream, readOnly } = shape;
  if (query !== undefined && (!readOnly || stream)) {
    throw new StatusRefusal(405, `${path} has side effects${stream ? ' (or streams)' : ''}: call it with POST`, undefined, { code: 'method_not_allowed', headers: { allow: 'POST' } });
  }
  if (query === undefined && ctx.method !== 'POST') {
    throw new StatusRefusal(405, `${ctx.method} is not served on ${path}: Connect and gRPC-Web calls are POST`, undefined, { code: 'method_not_allowed', headers: { allow: readOnly && !stream ? 'GET, POST' : 'POST' } });
  }
  const kind = callKindOf(ctx);
  if (kind === undefined) {
    throw new StatusRefusal(415, `Unsupported Content-Type "${String(ctx.headers['content-type'])}": send one of ${ACCEPTED_TYPES}`, undefined, { code: 'unsupported_media_type', headers: { 'accept-post': ACCEPTED_TYPES } });
  }
  if ((kind.protocol === 'connect' && stream) || (kind.protocol === 'connect-stream' && !stream)) {
    const wanted = stream ? 'application/connect+json or application/connect+proto' : 'application/json or application/proto';
    throw new StatusRefusal(415, `${path} is a ${stream ? 'server stream' : 'unary method'}: send ${wanted}`, undefined, { code: 'unsupported_media_type', headers: { 'accept-post': wanted } });
  }
  checkProtocolVersion(kind, ctx.headers, query);
  const deadline = deadlineOf(kind, ctx.headers);
  const bytes = await requestBytes(ctx, kind, query, options.maxMessageBytes);
  return { kind, deadline, bytes };
}

/**
 * Serves one call of `method`: refuses what the method or protocol does not allow, decodes the
 * request, runs the operation (its middleware, validation and handler; the app's global middleware
 * ran already, once for the call) with the deadline behind `ctx.signal`, and writes the answer.
 * Throws what happens before anything is sent: the plugin's guard answers it.
 */
export async function serveCall(ctx: Context, method: ServedMethod, options: ServeOptions): Promise<void> {
  const stream = method.described.stream;
  const { kind, deadline, bytes } = await prepareCall(ctx, { path: method.described.path, readOnly: method.readOnly, stream }, options);
  const input = method.described.request(decodeRequest(method.input, kind.codec, bytes, options.maxJsonDepth));
  if (stream) return serveOperationStream(ctx, method, kind, input, deadline, options);
  const operation = method.described.operation;
  // The client's deadline, by core's one rule; the operation's own `timeout` tightens it inside.
  const result: unknown = await (deadline === undefined
    ? runOperation(operation, ctx, input)
    : withDeadline<RequestContext, unknown>(ctx, deadline, (scoped) => runOperation(operation, scoped, input)));
  sendUnary(ctx, kind, encodeResponse(method.output, kind.codec, method.described.response(result)), options);
}

/**
 * Writes a unary call's answer: the message, compressed as the client accepts, enveloped with
 * gRPC-Web's trailers (`trailers` among them) or as Connect's body (`trailers` as `trailer-` headers).
 */
export function sendUnary(ctx: Context, kind: CallKind, message: Uint8Array, options: ServeOptions, trailers?: Readonly<Record<string, string>>): void {
  const min = options.compressMinBytes;
  if (kind.protocol === 'grpc-web') {
    // The message compressed as grpc-accept-encoding allows (its flag set, grpc-encoding said); the trailers never are.
    const encoding = min === false || message.byteLength < min ? 'identity' : responseEncoding(ctx.headers['grpc-accept-encoding']);
    const data = encoding === 'identity' ? envelope(0, message) : envelope(FLAG_COMPRESSED, compress(message, encoding));
    if (encoding !== 'identity') ctx.res.setHeader('grpc-encoding', encoding);
    const frames = Buffer.concat([data, envelope(FLAG_TRAILERS, trailerBlock({ ...trailers, ...grpcWebTrailers(undefined) }))]);
    ctx.send(grpcWebBody(kind, frames), 200, kind.contentType);
    return;
  }
  for (const [name, value] of Object.entries(trailers ?? {})) ctx.res.setHeader(`trailer-${name}`, value);
  const encoding = min === false || message.byteLength < min ? 'identity' : responseEncoding(ctx.headers['accept-encoding']);
  if (encoding !== 'identity') {
    ctx.res.setHeader('content-encoding', encoding);
    ctx.res.setHeader('vary', 'Accept-Encoding');
    ctx.send(compress(message, encoding), 200, kind.contentType);
    return;
  }
  ctx.send(Buffer.from(message.buffer, message.byteOffset, message.byteLength), 200, kind.contentType);
}

/** A server stream's operation: its events, encoded as the response messages. */
function serveOperationStream(ctx: Context, method: ServedMethod, kind: CallKind, input: unknown, deadline: number | undefined, options: ServeOptions): Promise<void> {
  return serveStream<StreamEvent<unknown>>(ctx, kind, deadline, options, {
    open: (callCtx) => runStreamOperation(method.described.operation, callCtx, input),
    encode: (event) => encodeResponse(method.output, kind.codec, method.described.response(event.data)),
  });
}

/** Where a server stream's messages come from. */
export interface StreamSource<T> {
  /** Starts the source for the call's context (its signal aborts when the stream is over); a refusal throws, answered as a unary error. */
  open(callCtx: Context): Promise<AsyncIterator<T>>;
  /** One item as a message in the call's codec. */
  encode(item: T): Uint8Array;
  /** Response headers the source sends with the first message (or the end): the head is written then, not when the source opens. */
  headers?(): Readonly<Record<string, string>>;
  /** The error the source failed with, in the wire's terms, when it knows it better than the error table. */
  failure?(thrown: unknown): WireError | undefined;
  /** Trailing metadata the source ended with, as headers: in Connect's end-of-stream `metadata`, in gRPC-Web's trailers frame. */
  trailers?(): Readonly<Record<string, string>>;
}

/**
 * A server stream (Connect or gRPC-Web): registered with the app's stream registry, opened through
 * `runStreamOperation` (a refusal is an error answer, as for a unary call), then pumped by the
 * shared stream policy (`StreamPump`) into the response, each event one enveloped message, and
 * ended with Connect's end-of-stream message or gRPC-Web's trailers: the error's code when the
 * source failed, the registry ended it (the app closing, `streams.maxDuration`) or its deadline
 * passed. A client that left or was cut gets nothing more.
 */
export async function serveStream<T>(ctx: Context, kind: CallKind, deadline: number | undefined, options: ServeOptions, source: StreamSource<T>): Promise<void> {
  const { host, log } = options;
  const res = ctx.res;
  const slot = host.openStream({ protocol: kind.protocol, clientKey: ctx.ip, end: () => undefined });
  const controller = new AbortController();
  const at = deadline === undefined ? undefined : Date.now() + deadline;
  const callCtx = withStreamSignal(ctx, controller.signal, at);
  // Messages are compressed as the client accepts (Connect-Accept-Encoding, grpc-accept-encoding),
  // each one past compressMinBytes with the compressed flag; the end of the stream never is.
  const min = options.compressMinBytes;
  const encoding = min === false ? 'identity' : responseEncoding(ctx.headers[kind.protocol === 'connect-stream' ? 'connect-accept-encoding' : 'grpc-accept-encoding']);
  const encode = (item: T): Buffer => {
    const message = source.encode(item);
    const frame = encoding !== 'identity' && message.byteLength >= (min as number) ? envelope(FLAG_COMPRESSED, compress(message, encoding)) : envelope(0, message);
    return grpcWebBody(kind, frame);
  };
  const headers: Record<string, string> = { 'content-type': kind.contentType };
  if (encoding !== 'identity') headers[kind.protocol === 'connect-stream' ? 'connect-content-encoding' : 'grpc-encoding'] = encoding;
  const writeHead = (): void => {
    if (!res.headersSent) res.writeHead(200, { ...source.headers?.(), ...headers });
  };
  const response = responseSink(res, encode);
  // The pump's heartbeat is an SSE comment, which an envelope stream cannot carry: none here.
  const sink: StreamSink<T> = {
    ...response,
    heartbeat: undefined,
    write: (chunk) => {
      writeHead();
      response.write(chunk);
    },
  };
  const pump = new StreamPump<T>(sink, { config: host.streams, log, where: ctx.path, slot });
  const clearDeadline = at === undefined ? undefined : armDeadline(at, deadline!, (reason) => pump.stop({ kind: 'end', reason }));
  let events: AsyncIterator<T>;
  try {
    events = await source.open(callCtx);
  } catch (err) {
    clearDeadline?.();
    pump.finish();
    slot.close();
    throw err;
  }
  const onClose = (): void => {
    if (!res.writableFinished) pump.stop({ kind: 'client' });
  };
  res.once('close', onClose);
  if (source.headers === undefined) writeHead();
  let failure: unknown = undefined;
  let failed = false;
  try {
    if (!res.destroyed) await pump.run(events);
    else pump.stop({ kind: 'client' });
  } catch (err) {
    failed = true;
    failure = err;
  } finally {
    clearDeadline?.();
    res.off('close', onClose);
  }
  const stop = pump.stopped;
  // The handler learns through ctx.signal that its stream is over, whatever the reason.
  controller.abort(stop?.kind === 'end' ? stop.reason : new HTTPError(499, 'The stream ended', undefined, { code: 'cancelled' }));
  let error: WireError | undefined;
  if (failed) error = source.failure?.(failure) ?? wireError(failure, log, ctx.path);
  else if (stop?.kind === 'end') error = wireError(stop.reason, () => undefined, ctx.path);
  pump.finish();
  pump.release(events);
  if (stop?.kind === 'client' || stop?.kind === 'slow' || res.destroyed) return;
  writeHead();
  const trailers = source.trailers?.();
  const end = kind.protocol === 'connect-stream'
    ? envelope(FLAG_END_STREAM, endStreamJson(error, trailers))
    : grpcWebBody(kind, envelope(FLAG_TRAILERS, trailerBlock({ ...trailers, ...grpcWebTrailers(error) })));
  res.end(end);
}
