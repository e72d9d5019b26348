import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { markClientGone } from './client-gone.js';
import { bodyKind, decodeBody, hasBody, isEncoded, parseBody, readBody } from './internal/body.js';
import { MultipartReader } from './internal/multipart.js';
import { readForm } from './internal/multipart-form.js';
import { MULTIPART_DEFAULTS, resolveMultipart, type MultipartConfig, type MultipartForm, type MultipartPart, type ResolvedMultipartConfig } from './multipart.js';
import { parseQuery } from './internal/query.js';
import { clientIp, forwardedHttps, type TrustProxy } from './internal/client-ip.js';
import { streamHostOf } from './internal/stream-host.js';
import { ABORT, FLUSH, SSE_STREAM, NEEDS_BODY, NOT_FOUND, RAW_BODY, RAW_IN_USE, RESET_RESPONSE, SET_DEADLINE, SETTLE, UNANSWERED } from './internal/symbols.js';
import { SseStream, type SSEOptions } from './sse.js';
import { toStreamEvent, type StreamEvent, type Tracked } from './stream.js';
import { decodeUnreserved, originForm } from './internal/target.js';
import { ContextVariables, type ContextKey, type RequestContext, type TraceAttributes, type TraceInfo, type TraceSpan } from './request-context.js';
import type { HTTPMethod, Route } from './types.js';

/** Per-application settings a context needs; owned by the application. */
export interface ContextSettings {
  bodyLimit: number;
  maxKeys: number;
  /** Deepest nesting of objects and arrays a JSON body may have. */
  maxJsonDepth: number;
  trustProxy: TrustProxy;
  /** Limits of multipart bodies (`ApplicationConfig.multipart`). @default MULTIPART_DEFAULTS */
  multipart?: ResolvedMultipartConfig;
  /** Decompress request bodies sent with `Content-Encoding: gzip`, `deflate` or `br`; undefined is true. */
  decompressBody?: boolean;
}

export type { TrustProxy };

const NO_BODY = Symbol('no-body');
/** The standard 404 body: `{ error: true, message: 'Not Found', code: 404 }`. */
const NOT_FOUND_TEXT = JSON.stringify({ error: true, message: 'Not Found', code: 404 });
const JSON_TYPE = 'application/json; charset=utf-8';
type Pending = string | Buffer | typeof NO_BODY;

/**
 * The per-request context passed to middleware and handlers.
 * Response methods record what to send; the framework writes it once the chain has finished,
 * so middleware can still change status and headers after `await next()`.
 */
export class Context<TBody = unknown, TQuery = unknown, TParams = unknown> implements RequestContext {
  /** The raw node request. */
  readonly req: IncomingMessage;
  /** The raw node response; writing to it directly takes over the response. */
  readonly res: ServerResponse;
  /** The request method, upper case. */
  readonly method: HTTPMethod;
  /** The request URL: path and query string (the origin form, also for an absolute-form request target). */
  readonly url: string;
  /** The path without the query string; percent-encoded unreserved characters (`%61` → `a`) are decoded. */
  readonly path: string;
  /** Request headers with lower-case names. */
  readonly headers: IncomingHttpHeaders;
  /** Route params (strings unless replaced by validation). */
  params: TParams;
  /** The user set by authentication middleware. */
  user?: unknown;
  /** The matched route, once routing has run; undefined for unmatched requests and claimed paths. */
  route: Route | undefined = undefined;
  /** The protocol serving this request: `http`, or the protocol of a plugin that claimed the path (`ProtocolName`). */
  protocol: string = 'http';
  /** The request's trace and span IDs (present while tracing is on). */
  declare trace?: TraceInfo;
  /** Starts a child span of the request span (present while tracing is on). */
  declare startSpan?: (name: string, attributes?: TraceAttributes) => TraceSpan | undefined;
  /** Ends a span; with an error, records it and marks the span failed (present while tracing is on). */
  declare endSpan?: (span: TraceSpan | undefined, error?: unknown) => void;
  /** Adds a named event to the request span (present while tracing is on). */
  declare addEvent?: (name: string, attributes?: TraceAttributes) => void;
  /** Sets attributes on the request span (present while tracing is on). */
  declare setAttributes?: (attributes: TraceAttributes) => void;

  /** The status recorded with `status()` or a body; 0 while none was. */
  #status = 0;
  /** Whether `#status` is the framework's not-found default, which a body set later replaces with 200. */
  #defaultStatus = false;
  #payload: Pending = NO_BODY;
  /** The Content-Type json()/text() chose; written at flush unless the handler set its own. */
  #contentType: string | undefined = undefined;
  readonly #settings: ContextSettings;
  #query: TQuery | undefined = undefined;
  #body: TBody | undefined = undefined;
  #bodyRead = false;
  /** The body's bytes once read (by `parseBody`, or as sent by `RAW_BODY`), kept for a fingerprint and for parsing. */
  #raw: Buffer | Promise<Buffer | undefined> | undefined = undefined;
  #state: Record<string, unknown> | undefined = undefined;
  #variables: ContextVariables | undefined = undefined;
  /** Made when `signal` is first read (or a stream ends): a request that never reads it pays nothing. */
  #abort: AbortController | undefined = undefined;
  /** The request's deadline (epoch ms), set by the pipeline when the route or the app has a `timeout`. */
  #deadline: number | undefined = undefined;
  readonly #queryStart: number;

  constructor(req: IncomingMessage, res: ServerResponse, settings: ContextSettings) {
    this.req = req;
    this.res = res;
    this.#settings = settings;
    this.method = req.method as HTTPMethod;
    const url = originForm(req.url ?? '/');
    this.url = url;
    const q = url.indexOf('?');
    this.#queryStart = q;
    this.path = decodeUnreserved(q === -1 ? url : url.slice(0, q));
    this.headers = req.headers;
    this.params = {} as TParams;
  }

  /** The parsed query string, parsed on first access. Invalid encoding throws a 400. */
  get query(): TQuery {
    if (this.#query === undefined) {
      this.#query = (this.#queryStart === -1
        ? Object.create(null)
        : parseQuery(this.url.slice(this.#queryStart + 1), this.#settings.maxKeys)) as TQuery;
    }
    return this.#query;
  }

  set query(value: TQuery) {
    this.#query = value;
  }

  /** The parsed request body (JSON, URL-encoded or text); undefined until read or for other types. */
  get body(): TBody {
    return this.#body as TBody;
  }

  set body(value: TBody) {
    this.#body = value;
    this.#bodyRead = true;
  }

  /** Scratch storage shared by middleware and handlers of one request. */
  get state(): Record<string, unknown> {
    return (this.#state ??= {});
  }

  set state(value: Record<string, unknown>) {
    this.#state = value;
  }

  /** The client address: the socket's, or from `X-Forwarded-For` as far as `trustProxy` allows. */
  get ip(): string {
    const header = this.headers['x-forwarded-for'];
    return clientIp(this.req.socket?.remoteAddress ?? '', Array.isArray(header) ? header.join(',') : header, this.#settings.trustProxy);
  }

  /**
   * Whether the request came over TLS: on a TLS socket (an `https` server made with `app.handler`),
   * or through proxies that `trustProxy` trusts, the front-most of which says `X-Forwarded-Proto: https`.
   */
  get secure(): boolean {
    const socket = this.req.socket as { encrypted?: boolean } | undefined;
    if (socket?.encrypted === true) return true;
    const proto = this.headers['x-forwarded-proto'];
    if (proto === undefined) return false;
    const forwardedFor = this.headers['x-forwarded-for'];
    return forwardedHttps(
      this.req.socket?.remoteAddress ?? '',
      Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor,
      Array.isArray(proto) ? proto.join(',') : proto,
      this.#settings.trustProxy,
    );
  }

  /** The value of a per-request variable (declared with `createContextKey`) on this request, else the key's default. */
  get<T>(key: ContextKey<T>): T {
    const variables = this.#variables;
    return variables === undefined ? key.defaultValue : variables.get(key);
  }

  /** Sets a per-request variable for the rest of this request. Chainable. */
  set<T>(key: ContextKey<T>, value: NoInfer<T>): this {
    (this.#variables ??= new ContextVariables()).set(key, value);
    return this;
  }

  /**
   * When the request must be answered, in ms since the epoch: set by the route's `timeout` (or the
   * app's default); undefined without one. When it passes, `signal` aborts and the answer is 504.
   * @example
   * client.getStock({ sku }, { deadline: ctx.deadline ?? Infinity }, callback);
   */
  get deadline(): number | undefined {
    return this.#deadline;
  }

  /** Milliseconds left until `deadline`: 0 once it passed, `Infinity` without one. */
  timeRemaining(): number {
    const at = this.#deadline;
    return at === undefined ? Infinity : Math.max(0, at - Date.now());
  }

  /** @internal Sets the request's deadline; the pipeline enforces it. */
  [SET_DEADLINE](at: number): void {
    this.#deadline = at;
  }

  /**
   * Aborts when the client leaves before the response is complete, when the request's `deadline`
   * passes (with the `deadline_exceeded` error as its reason), when a stream served from this
   * request ends (its client left, the app closed, `streams.maxDuration` passed), so that work done
   * for the request stops. Made on first read.
   * @example
   * for await (const e of bus.subscribe('orders', { signal: ctx.signal })) yield e;
   */
  get signal(): AbortSignal {
    let controller = this.#abort;
    if (controller === undefined) {
      controller = new AbortController();
      this.#abort = controller;
      const res = this.res;
      if (res.destroyed && !res.writableFinished) controller.abort(clientLeft());
      else if (typeof res.once === 'function') {
        res.once('close', () => {
          if (!res.writableFinished) this[ABORT](clientLeft());
        });
      }
    }
    return controller.signal;
  }

  /** @internal Aborts `signal` with `reason` (made now if it was never read, so a later read sees it aborted). */
  [ABORT](reason: unknown): void {
    const controller = (this.#abort ??= new AbortController());
    if (!controller.signal.aborted) controller.abort(reason);
  }

  /** @internal A server-sent events stream for this request, registered with the app's limits (throws 429/503). */
  [SSE_STREAM](options?: SSEOptions): SseStream {
    return new SseStream(this, streamHostOf(this.#settings), options);
  }

  /** The `Last-Event-ID` request header: the id of the last event a reconnecting server-sent events client saw. */
  get lastEventId(): string | undefined {
    const value = this.headers['last-event-id'];
    return typeof value === 'string' ? value : undefined;
  }

  /**
   * Answers with server-sent events (`text/event-stream`): each value `events` yields is one event
   * (`data:` its JSON; `id:` when yielded as `tracked(id, value)`), with a `retry:` hint, comment
   * heartbeats and back-pressure as `streams` configures. The status line and headers go out at
   * once, so a client sees the stream open before the first event; what middleware refused before
   * `sse()` is still a real status. Resolves when the stream is over. When the client leaves,
   * `ctx.signal` aborts and the generator's `return()` runs. A throw from the source is an
   * `event: error` with the JSON error body, then the end. Past `streams.maxPerClient` or `maxOpen`: 429.
   * @example
   * app.get('/ticks', (ctx) => ctx.sse((async function* () {
   *   for (let i = 0; !ctx.signal.aborted; i++) { yield tracked(String(i), { i }); await sleep(1000); }
   * })()));
   */
  sse<T>(events: AsyncIterable<T | Tracked<T>>, options?: SSEOptions): Promise<void> {
    let iterator: AsyncIterator<T | Tracked<T>>;
    let stream: SseStream;
    try {
      if (typeof events?.[Symbol.asyncIterator] !== 'function') throw new TypeError('ctx.sse() expects an async iterable (an async generator, a subscription)');
      iterator = events[Symbol.asyncIterator]();
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
      return Promise.reject(err);
    }
    try {
      stream = this[SSE_STREAM](options);
    } catch (err) {
      // Refused (a limit, the app closing): the source never runs.
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what was thrown, as thrown
      return Promise.reject(err);
    }
    return stream.run(eventsOf(iterator));
  }

  /**
   * Reads and parses the body now (the framework does this before route middleware runs;
   * global middleware that needs the body can await it). Idempotent.
   */
  async parseBody(): Promise<TBody> {
    if (this.#bodyRead) return this.#body as TBody;
    this.#bodyRead = true;
    if (!hasBody(this.req)) return this.#body as TBody;
    const kind = bodyKind(this.headers['content-type']);
    if (kind === undefined) return this.#body as TBody;
    // Middleware that read the raw stream itself (a webhook signature check) leaves nothing to
    // parse: waiting for an 'end' that already happened would hang the request.
    let raw: Buffer | undefined;
    const decode = this.#settings.decompressBody !== false;
    if (this.#raw !== undefined) {
      // Read as sent already (RAW_BODY): decoded here by the same rules as a body read now.
      const sent = await this.#raw;
      if (sent === undefined) return this.#body as TBody;
      raw = await decodeBody(sent, this.headers['content-encoding'], this.#settings.bodyLimit, decode);
    } else {
      if (this.req.readableEnded) return this.#body as TBody;
      const read = readBody(this.req, this.#settings.bodyLimit, decode ? 'decode' : 'refuse');
      raw = read instanceof Buffer ? read : await read;
      // The bytes as sent, for RAW_BODY afterwards; a body decoded as it arrived no longer has them.
      if (!isEncoded(this.headers['content-encoding'])) this.#raw = raw;
    }
    this.#body = parseBody(kind, raw, this.#settings.maxKeys, this.#settings.maxJsonDepth) as TBody;
    return this.#body;
  }

  /**
   * The parts of a `multipart/form-data` body, in order, as they arrive: fields (`type: 'field'`,
   * `fieldname`, `value`) and files (`type: 'file'`, `fieldname`, `filename`, `mimeType`, `encoding`
   * and a `stream` to read before the next part). Calling it is the route's opt-in: the framework
   * never reads a multipart body by itself. `options` tightens or widens the app's
   * `multipart` limits for this call. Past a limit: 413 naming it; a malformed body: 400; another
   * Content-Type: 415.
   * @example
   * for await (const part of ctx.multipart({ fileSize: 10 * 1024 * 1024 })) {
   *   if (part.type === 'file') await pipeline(part.stream, createWriteStream(storagePathFor(part)));
   *   else fields[part.fieldname] = part.value;
   * }
   */
  multipart(options?: MultipartConfig): AsyncIterableIterator<MultipartPart> {
    return new MultipartReader(this.req, this.#multipartLimits(options));
  }

  /**
   * Reads a whole `multipart/form-data` body: the fields (a repeated name gives an array) and the
   * files, each saved to a temporary file with a random name in `multipart.tmpDir` (`os.tmpdir()`)
   * that is removed once the response is over. Limits and errors as `multipart()`.
   * @example
   * const { fields, files } = await ctx.formData();
   * await copyFile(files[0].path, storagePathFor(files[0]));
   */
  async formData(options?: MultipartConfig): Promise<MultipartForm> {
    const limits = this.#multipartLimits(options);
    return readForm(new MultipartReader(this.req, limits), this.res, limits);
  }

  #multipartLimits(options: MultipartConfig | undefined): ResolvedMultipartConfig {
    return resolveMultipart(options, this.#settings.multipart ?? MULTIPART_DEFAULTS);
  }

  /**
   * @internal The body's bytes as sent (any Content-Type and Content-Encoding, within `bodyLimit`),
   * read once: what `parseBody` read, or read now and kept for it. Undefined without a body, or when
   * the raw stream was read by someone else.
   */
  [RAW_BODY](): Promise<Buffer | undefined> {
    if (this.#raw === undefined) {
      if (!hasBody(this.req) || this.req.readableEnded) return Promise.resolve(undefined);
      this.#raw = readBody(this.req, this.#settings.bodyLimit, 'as-sent');
    }
    return Promise.resolve(this.#raw);
  }

  /** @internal Whether the body still has to be read. */
  get [NEEDS_BODY](): boolean {
    return !this.#bodyRead && hasBody(this.req);
  }

  /**
   * Sends `data` as JSON with `status` (default: the status set with `status()`, else 200).
   * A Content-Type the handler set itself is kept. Ignored once the response has been sent.
   */
  json(data: unknown, status?: number): void {
    if (this.#sent()) return;
    this.#bodyStatus(status);
    const text = JSON.stringify(data);
    this.#payload = text === undefined ? 'null' : text;
    this.#type(JSON_TYPE);
  }

  /** Sends plain text with `status` (default: the status set with `status()`, else 200). Ignored once sent. */
  text(data: string, status?: number): void {
    if (this.#sent()) return;
    this.#bodyStatus(status);
    this.#payload = String(data);
    this.#type('text/plain; charset=utf-8');
  }

  /**
   * Sends a string or Buffer as it is, with `status` (default: the status set with `status()`,
   * else 200) and, when given, `type` as its Content-Type (written with the other headers in one
   * go; a Content-Type the handler set itself is kept). Ignored once sent.
   * @example
   * ctx.send(csv, 200, 'text/csv; charset=utf-8');
   */
  send(data: string | Buffer, status?: number, type?: string): void {
    if (this.#sent()) return;
    this.#bodyStatus(status);
    this.#payload = data;
    if (type !== undefined) this.#type(type);
  }

  /**
   * Sets the response status. Chainable; 204 and 304 send no body. The raw response carries it at
   * once, so a handler that then uses `ctx.res` directly sends this status.
   */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 999) throw new TypeError(`Invalid status code: ${code}`);
    this.#status = code;
    this.#defaultStatus = false;
    if (!this.res.headersSent) this.res.statusCode = code;
    return this;
  }

  /** The status of a body: the one given, else the one set, else 200 (also over the not-found default, as in Koa). */
  #bodyStatus(status: number | undefined): void {
    if (status !== undefined) this.status(status);
    else if (this.#defaultStatus) {
      this.#status = 0;
      this.#defaultStatus = false;
      if (!this.res.headersSent) this.res.statusCode = 200;
    }
  }

  /** Sets a response header. Chainable. Ignored once the headers have been sent (as in Koa). */
  setHeader(key: string, value: string | number | readonly string[]): this {
    if (this.res.headersSent) return this;
    this.res.setHeader(key, value);
    return this;
  }

  /** Whether the raw response has gone out (written directly, or flushed by the framework). */
  #sent(): boolean {
    return this.res.headersSent || this.res.writableEnded;
  }

  /**
   * Records the content type of json()/text(). It is written with the other headers in one
   * writeHead() at flush (measured: setting headers one by one cost 8-16% of a static route's
   * CPU), and only when the handler did not set a Content-Type of its own.
   */
  #type(value: string): void {
    this.#contentType = value;
  }

  /** The status the response has or will have (0 while nothing has been decided). */
  get statusCode(): number {
    if (this.res.headersSent) return this.res.statusCode;
    if (this.#status !== 0) return this.#status;
    if (this.#payload !== NO_BODY) return 200;
    // A handler streaming into the raw response sends the status it gave the raw response.
    return this[RAW_IN_USE]() ? this.res.statusCode : 0;
  }

  /**
   * The body recorded with `json()`, `text()` or `send()`, which is written once the chain has
   * finished: middleware reads it after `await next()` (to hash it for an ETag). `undefined` when
   * no body was recorded, or when the raw response was taken over (a stream piped into `ctx.res`,
   * server-sent events), whose bytes never pass through the context.
   */
  get responseBody(): string | Buffer | undefined {
    const payload = this.#payload;
    return payload === NO_BODY || this[RAW_IN_USE]() ? undefined : payload;
  }

  /**
   * The Content-Type `json()`, `text()` or `send()` chose for `responseBody` (a Content-Type the
   * handler set itself is on `ctx.res`, and wins when the response is written); `undefined` when
   * none was chosen or the raw response was taken over.
   */
  get responseType(): string | undefined {
    return this[RAW_IN_USE]() ? undefined : this.#contentType;
  }

  /** Whether a response has been decided (a body or status set, or the raw response written). */
  get responded(): boolean {
    return this.#status !== 0 || this.#payload !== NO_BODY || this[RAW_IN_USE]();
  }

  /**
   * @internal The one "nothing answered" rule: unless a body or a status was recorded or the raw
   * response used, records the standard 404. Run after the route's handler behind middleware,
   * after the route stage behind global middleware, and when the answer is written.
   */
  [SETTLE](): void {
    if (!this.responded) this.#recordNotFound();
  }

  /** @internal Whether the answer is the standard 404 that `SETTLE` or `NOT_FOUND` recorded, not one a handler gave. */
  [UNANSWERED](): boolean {
    return this.#defaultStatus && this.#payload === NOT_FOUND_TEXT;
  }

  /** @internal Records the standard 404 over whatever was recorded: the answer for a path no route has. */
  [NOT_FOUND](): void {
    this[RESET_RESPONSE]();
    this.#recordNotFound();
  }

  /**
   * The standard 404 `{ error: true, message: 'Not Found', code: 404 }`, as JSON whatever
   * Content-Type was set, with a status that a body set later replaces with 200 (as in Koa).
   */
  #recordNotFound(): void {
    if (this.#sent()) return;
    this.#status = 404;
    this.#defaultStatus = true;
    this.res.statusCode = 404;
    this.#payload = NOT_FOUND_TEXT;
    this.#contentType = JSON_TYPE;
  }

  /** @internal Forgets what was set so far (used before writing an error response). */
  [RESET_RESPONSE](): void {
    this.#status = 0;
    this.#defaultStatus = false;
    if (!this.res.headersSent) this.res.statusCode = 200;
    this.#payload = NO_BODY;
    this.#contentType = undefined;
  }

  /**
   * @internal Whether the handler took over the raw response: wrote to it, ended it, or piped a
   * stream into it that has not written yet (a piped source registers an 'unpipe' listener on
   * its destination synchronously, so this holds from the `pipe()` call on).
   */
  [RAW_IN_USE](): boolean {
    const res = this.res;
    return res.headersSent || res.writableEnded || res.listenerCount('unpipe') !== 0;
  }

  /** @internal Writes the recorded response, unless the raw response was already used. */
  [FLUSH](): void {
    if (this[RAW_IN_USE]()) return;
    // Without middleware around the route, nothing answered is settled only here.
    this[SETTLE]();
    const res = this.res;
    const payload = this.#payload;
    const status = this.#status !== 0 ? this.#status : 200;
    res.statusCode = status;
    if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
      res.removeHeader('content-type');
      res.removeHeader('content-length');
      res.end();
      return;
    }
    if (payload === NO_BODY) {
      writeBody(res, status, '', undefined, true);
      return;
    }
    // The standard 404 is JSON whatever Content-Type a handler set; any other body keeps the handler's.
    const type = this.#contentType !== undefined && (this.#defaultStatus || !res.hasHeader('content-type')) ? this.#contentType : undefined;
    writeBody(res, status, payload, type, this.method === 'HEAD');
  }
}

/** The reason `ctx.signal` aborts with when the client leaves. */
function clientLeft(): Error {
  const error = new Error('The client closed the connection');
  error.name = 'AbortError';
  return markClientGone(error);
}

/** A source of values (some `tracked()`) as a source of stream events. */
function eventsOf<T>(iterator: AsyncIterator<T | Tracked<T>>): AsyncIterator<StreamEvent<T>> {
  return {
    next: async () => {
      const result = await iterator.next();
      return result.done === true ? { done: true, value: undefined } : { done: false, value: toStreamEvent(result.value) };
    },
    return: async () => {
      await iterator.return?.();
      return { done: true, value: undefined };
    },
  };
}

/** Marks HTTP contexts on the prototype (no per-request cost), readable across copies of this package. */
const HTTP_CONTEXT: unique symbol = Symbol.for('fw.context.http');
Object.defineProperty(Context.prototype, HTTP_CONTEXT, { value: true });

/**
 * Whether a protocol-neutral context is the HTTP `Context` (REST, or a protocol served on a claimed
 * path), as opposed to the context of a protocol with its own server. Works across copies of `@fw/core`.
 */
export function isHttpContext(ctx: RequestContext): ctx is Context {
  return HTTP_CONTEXT in ctx;
}

/** Writes status, Content-Type (when given) and Content-Length in one writeHead, then the body. */
function writeBody(res: ServerResponse, status: number, payload: string | Buffer, type: string | undefined, head: boolean): void {
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  res.writeHead(status, type === undefined ? ['content-length', String(length)] : ['content-type', type, 'content-length', String(length)]);
  if (head || length === 0) res.end();
  else res.end(payload);
}
