import { ERROR_CODE_STATUS, errorCodeOf } from '@fw/core';

/**
 * The part of every generated client that does not depend on the operations: the options, the
 * error class, the REST calls and the server-sent event streams, over `fetch` alone. Written into
 * each client as it is (`String.raw`: backslashes kept), but for the error codes and the code of
 * each status, which are @fw/core's table (`@@ERROR_CODES@@`, `@@CODE_OF_STATUS@@` in the template,
 * filled in below); the tests compile and lint the generated files with the repository's settings.
 */

/** The names the runtime declares at the top of a client module: no generated type may take one. */
export const RUNTIME_NAMES: readonly string[] = [
  'ClientOptions',
  'CallOptions',
  'StreamOptions',
  'FwErrorCode',
  'FwFieldError',
  'FwClientError',
  'isFwClientError',
  'createClient',
  'Client',
  'FwMethod',
  'FwRoute',
  'FwDates',
  'FwTransport',
  'fwTransport',
  'fwClient',
  'FW_ROUTES',
  'FW_CODE_OF_STATUS',
  'FW_CLIENT_ERROR',
  'fwErrorOf',
  'fwRevive',
  'fwUrl',
  'fwText',
  'fwInit',
  'FW_STATUS_OF_CODE',
  'fwSleep',
  'fwSseBlocks',
  'FwSseBlock',
  'Date',
  'Record',
  'Promise',
  'AsyncIterable',
];

const TEMPLATE = String.raw`/** What \`createClient\` takes. */
export interface ClientOptions {
  /** Where the app is served, such as \`https://api.example.com\` (a path after the host is kept). */
  baseUrl: string;
  /** Headers sent with every request; a function is called for each request (and each reconnection of a stream), so it can give a fresh token. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** The \`fetch\` to call. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Gives up on a call not answered within this many milliseconds: it rejects with \`deadline_exceeded\` and the request is aborted. Not applied to streams. */
  timeoutMs?: number;
}

/** The second argument of every call. */
export interface CallOptions {
  /** Aborting it aborts the request: the call rejects with \`cancelled\`. */
  signal?: AbortSignal;
  /** Headers for this call, over the client's. */
  headers?: Record<string, string>;
  /** This call's time limit, over the client's \`timeoutMs\`. */
  timeoutMs?: number;
}

/** The second argument of a stream. */
export interface StreamOptions {
  /** Aborting it closes the stream: the loop over it ends. */
  signal?: AbortSignal;
  /** Resume after this event id (sent as \`Last-Event-ID\`), as the stream does by itself when it reconnects. */
  lastEventId?: string;
  /** Headers for this stream, over the client's. */
  headers?: Record<string, string>;
}

/** What went wrong: the error code the server answered with (its HTTP status's code), or what happened to the call on its way. */
export type FwErrorCode =
@@ERROR_CODES@@

/** One refused field of an \`invalid_argument\` error. */
export interface FwFieldError {
  /** Where the field is: \`body.lines\`, \`params.id\`, \`query.limit\`. */
  readonly field: string;
  readonly message: string;
  /** The validation library's issue code (\`invalid_type\`, \`too_small\`), when it has one. */
  readonly code?: string;
}

const FW_CLIENT_ERROR = Symbol.for('fw.client-error');

/**
 * A call that failed: the server's answer (\`status\` its HTTP status), or no answer at all
 * (\`status\` 0: \`unavailable\` when the server could not be reached, \`deadline_exceeded\` on
 * \`timeoutMs\`, \`cancelled\` when the caller's signal aborted).
 */
export class FwClientError extends Error {
  /** The error code: \`not_found\`, \`invalid_argument\`, \`unauthenticated\`, \`permission_denied\`, ... */
  readonly code: FwErrorCode;
  /** The HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  /** The \`details\` of the error body: for \`invalid_argument\`, the refused fields (as \`fields\`). */
  readonly details: unknown;
  /** The refused fields of an \`invalid_argument\` error; empty for other errors. */
  readonly fields: readonly FwFieldError[];

  constructor(code: FwErrorCode, status: number, message: string, details?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    // Kept when the client is compiled for targets whose classes cannot extend Error.
    Object.setPrototypeOf(this, new.target.prototype);
    this.name = 'FwClientError';
    this.code = code;
    this.status = status;
    const errors = typeof details === 'object' && details !== null ? (details as { errors?: unknown }).errors : undefined;
    this.fields = Array.isArray(errors) ? (errors as FwFieldError[]) : [];
    this.details = Array.isArray(errors) ? errors : details;
  }
}
Object.defineProperty(FwClientError.prototype, FW_CLIENT_ERROR, { value: true });

/** Whether \`value\` is an \`FwClientError\`, from this client module or from another generated one. */
export function isFwClientError(value: unknown): value is FwClientError {
  return value instanceof FwClientError || (value instanceof Error && (value as unknown as Record<symbol, unknown>)[FW_CLIENT_ERROR] === true);
}

const FW_CODE_OF_STATUS: Readonly<Record<number, FwErrorCode>> = {
@@CODE_OF_STATUS@@
};

const FW_STATUS_OF_CODE: Readonly<Record<string, true>> = Object.fromEntries(Object.values(FW_CODE_OF_STATUS).map((code) => [code, true] as const));

/**
 * The error of an answer that is not a success, from its error body (\`{ error, message, code, details }\`)
 * when it has one; \`status\` 0 for the \`event: error\` of a stream, whose body's \`code\` is the status.
 */
function fwErrorOf(status: number, text: string): FwClientError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const fields = typeof body === 'object' && body !== null ? (body as { message?: unknown; code?: unknown; details?: unknown }) : {};
  const answered = status === 0 ? (typeof fields.code === 'number' ? fields.code : 500) : status;
  const named = typeof fields.code === 'string' && fields.code in FW_STATUS_OF_CODE ? (fields.code as FwErrorCode) : undefined;
  const code = named ?? FW_CODE_OF_STATUS[answered] ?? (answered >= 500 ? 'internal' : 'unknown');
  const message = typeof fields.message === 'string' ? fields.message : text.trim() === '' ? 'HTTP ' + String(answered) : text.slice(0, 500);
  return new FwClientError(code, answered, message, fields.details);
}

/** The methods an operation is served with. */
type FwMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where the \`Date\`s of an output are: the value itself, each element or value, or fields by name. */
type FwDates = 'date' | { readonly each: FwDates } | { readonly fields: Readonly<Record<string, FwDates>> };

/** An operation's REST route: its method, its path (each \`:name\` a field of the input), where its output has dates. */
interface FwRoute {
  readonly method: FwMethod;
  readonly path: string;
  readonly dates?: FwDates;
  /** Server-sent events: the method returns an AsyncIterable of them. */
  readonly stream?: true;
}

/** \`value\` with the ISO 8601 strings at \`dates\` read as \`Date\`s. */
function fwRevive(value: unknown, dates: FwDates | undefined): unknown {
  if (dates === undefined || value === null || typeof value !== 'object') {
    return dates === 'date' && typeof value === 'string' ? new Date(value) : value;
  }
  if (dates === 'date') return value;
  if ('each' in dates) {
    if (Array.isArray(value)) return value.map((item: unknown) => fwRevive(item, dates.each));
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fwRevive(item, dates.each)] as const));
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, inner] of Object.entries(dates.fields)) if (Object.prototype.hasOwnProperty.call(copy, key)) copy[key] = fwRevive(copy[key], inner);
  return copy;
}

/** A query or path value as text: a \`Date\` in ISO 8601, an object as JSON. */
function fwText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/** The URL of a call and its JSON body: the path params from the input, the rest in the query (GET, DELETE) or the body. */
function fwUrl(base: string, route: FwRoute, input: object | undefined): { url: string; body: string | undefined } {
  const rest: Record<string, unknown> = { ...(input as Record<string, unknown> | undefined) };
  const path = route.path.replace(/:([A-Za-z0-9_$]+)/g, (_match, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(fwText(value));
  });
  if (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH') return { url: base + path, body: JSON.stringify(rest) };
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value as unknown[]) query.append(key, fwText(item));
    else query.append(key, fwText(value));
  }
  const search = query.toString();
  return { url: base + path + (search === '' ? '' : '?' + search), body: undefined };
}

/** The \`RequestInit\` of a call (no \`body\` key without a body: \`exactOptionalPropertyTypes\` consumers). */
function fwInit(method: FwMethod, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): RequestInit {
  return body === undefined ? { method, headers, signal } : { method, headers, body, signal };
}

/** Resolves after \`ms\`, or as soon as \`signal\` aborts. */
function fwSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** One block of a server-sent event stream, up to its blank line. */
interface FwSseBlock {
  event?: string;
  data?: string;
  id?: string;
  retry?: number;
}

/** The blocks of a server-sent event stream, as the HTML standard parses them. */
async function* fwSseBlocks(body: ReadableStream<Uint8Array>): AsyncGenerator<FwSseBlock> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let block: FwSseBlock = {};
  let data: string[] | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const end = /\r\n|\r|\n/.exec(buffer);
        // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
        if (end === null || (!done && end[0] === '\r' && end.index === buffer.length - 1)) break;
        const line = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end[0].length);
        if (line === '') {
          if (data !== undefined) block.data = data.join('\n');
          if (block.data !== undefined || block.retry !== undefined || block.id !== undefined) yield block;
          block = {};
          data = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') (data ??= []).push(value);
        else if (field === 'event') block.event = value;
        else if (field === 'id' && !value.includes('\0')) block.id = value;
        else if (field === 'retry' && /^[0-9]+$/.test(value)) block.retry = Number(value);
      }
      if (done) return;
    }
  } finally {
    // Cancelling the body closes the connection (releasing the reader alone may leave it open).
    await reader.cancel().catch(() => undefined);
  }
}

/** The calls of one client: every operation's method goes through \`call\` or \`stream\`. */
interface FwTransport {
  call<T>(route: FwRoute, input: object | undefined, options: CallOptions | undefined): Promise<T>;
  stream<T>(route: FwRoute, input: object | undefined, options: StreamOptions | undefined): AsyncIterable<T>;
}

function fwTransport(options: ClientOptions): FwTransport {
  if (typeof options !== 'object' || options === null || typeof options.baseUrl !== 'string') throw new TypeError('createClient() expects { baseUrl }');
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = (url: string, init: RequestInit): Promise<Response> => (options.fetch ?? fetch)(url, init);
  const headersFor = async (extra: Record<string, string> | undefined, accept: string, body: boolean): Promise<Record<string, string>> => {
    const given = typeof options.headers === 'function' ? await options.headers() : options.headers;
    return { accept, ...(body ? { 'content-type': 'application/json' } : {}), ...given, ...extra };
  };

  async function call<T>(route: FwRoute, input: object | undefined, call: CallOptions | undefined): Promise<T> {
    const { url, body } = fwUrl(base, route, input);
    const where = route.method + ' ' + route.path;
    const signal = call?.signal;
    if (signal?.aborted === true) throw new FwClientError('cancelled', 0, where + ': cancelled before it was sent', undefined, { cause: signal.reason });
    const headers = await headersFor(call?.headers, 'application/json', body !== undefined);
    const controller = new AbortController();
    const limit = call?.timeoutMs ?? options.timeoutMs;
    const deadline = new Error('timeoutMs');
    const timer = limit === undefined ? undefined : setTimeout(() => controller.abort(deadline), limit);
    const cancel = (): void => controller.abort();
    signal?.addEventListener('abort', cancel);
    let status = 0;
    let text: string;
    try {
      const response = await send(url, fwInit(route.method, headers, body, controller.signal));
      status = response.status;
      text = await response.text();
    } catch (err) {
      if (controller.signal.reason === deadline) throw new FwClientError('deadline_exceeded', status, where + ': no answer within ' + String(limit) + ' ms', undefined, { cause: err });
      // The other way the request is aborted: the caller's signal.
      if (controller.signal.aborted) throw new FwClientError('cancelled', status, where + ': cancelled', undefined, { cause: signal?.reason });
      throw new FwClientError('unavailable', status, where + ': ' + (err instanceof Error ? err.message : String(err)), undefined, { cause: err });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
    if (status < 200 || status > 299) throw fwErrorOf(status, text);
    try {
      return fwRevive(text === '' ? undefined : JSON.parse(text), route.dates) as T;
    } catch (err) {
      throw new FwClientError('internal', status, where + ': the answer is not JSON', undefined, { cause: err });
    }
  }

  async function* events<T>(route: FwRoute, input: object | undefined, stream: StreamOptions | undefined): AsyncGenerator<T, void, undefined> {
    const { url, body } = fwUrl(base, route, input);
    const where = route.method + ' ' + route.path;
    const controller = new AbortController();
    const signal = stream?.signal;
    const cancel = (): void => controller.abort();
    if (signal?.aborted === true) return;
    signal?.addEventListener('abort', cancel);
    let lastEventId = stream?.lastEventId;
    let retry = 3000;
    let connected = false;
    try {
      for (;;) {
        const extra = lastEventId === undefined ? stream?.headers : { ...stream?.headers, 'last-event-id': lastEventId };
        const headers = await headersFor(extra, 'text/event-stream', body !== undefined);
        let response: Response;
        try {
          response = await send(url, fwInit(route.method, headers, body, controller.signal));
        } catch (err) {
          if (controller.signal.aborted) return;
          // The first connection refused rejects; a reconnection tries again after the delay.
          if (!connected) throw new FwClientError('unavailable', 0, where + ': ' + (err instanceof Error ? err.message : String(err)), undefined, { cause: err });
          await fwSleep(retry, controller.signal);
          continue;
        }
        if (response.status < 200 || response.status > 299 || response.body === null) throw fwErrorOf(response.status, await response.text());
        connected = true;
        // A retry-only block after the first one is the server's "reconnect" before it ends the
        // stream (it is closing, or the stream reached its longest duration); a plain end is the end.
        let blocks = 0;
        let reconnect = true;
        try {
          for await (const block of fwSseBlocks(response.body)) {
            if (block.retry !== undefined) retry = block.retry;
            if (block.id !== undefined) lastEventId = block.id;
            if (block.event === 'error') throw fwErrorOf(0, block.data ?? '');
            if (block.data !== undefined) {
              reconnect = false;
              let value: unknown;
              try {
                value = fwRevive(JSON.parse(block.data), route.dates);
              } catch (err) {
                throw new FwClientError('internal', response.status, where + ': an event is not JSON', undefined, { cause: err });
              }
              yield value as T;
            } else if (blocks > 0) reconnect = true;
            blocks++;
          }
          if (!reconnect || blocks < 2) return;
        } catch (err) {
          if (isFwClientError(err) || controller.signal.aborted) {
            if (controller.signal.aborted) return;
            throw err;
          }
          // The connection dropped: reconnect, resuming after the last event seen.
        }
        await fwSleep(retry, controller.signal);
        if (controller.signal.aborted) return;
      }
    } finally {
      // A loop that breaks, a signal that aborts: the connection is closed, the server's handler ends.
      controller.abort();
      signal?.removeEventListener('abort', cancel);
    }
  }

  return {
    call,
    stream: <T>(route: FwRoute, input: object | undefined, options: StreamOptions | undefined): AsyncIterable<T> => ({
      [Symbol.asyncIterator]: () => events<T>(route, input, options),
    }),
  };
}

/**
 * The client's methods, one per route of \`routes\`, each calling its route through \`transport\`.
 * Built from the table rather than written out per operation: one entry per operation is what a
 * type checker reads (the \`Client\` interface gives each method its types).
 */
function fwClient(transport: FwTransport, routes: Readonly<Record<string, FwRoute>>): object {
  return Object.fromEntries(
    Object.entries(routes).map(([name, route]) => [
      name,
      route.stream === true
        ? (input?: object, options?: StreamOptions): AsyncIterable<unknown> => transport.stream(route, input, options)
        : (input?: object, options?: CallOptions): Promise<unknown> => transport.call(route, input, options),
    ]),
  );
}
`.replace(/\\`/g, '`');

/** Every status with a default code of its own (each code's own status), in order. */
const STATUSES = [...new Set(Object.values(ERROR_CODE_STATUS))].sort((a, b) => a - b);

export const CLIENT_RUNTIME = TEMPLATE.replace(
  '@@ERROR_CODES@@',
  Object.keys(ERROR_CODE_STATUS)
    .map((code) => `  | '${code}'`)
    .join('\n')
    .concat(';'),
).replace('@@CODE_OF_STATUS@@', STATUSES.map((status) => `  ${status}: '${errorCodeOf(status)}',`).join('\n'));
