import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';

/** A request made in-process with `app.inject()`. */
export interface InjectRequest {
  method?: string;
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  /** A string or Buffer is sent as it is; any other value is sent as JSON (with its Content-Type). */
  body?: unknown;
  /** The client address the request appears to come from. @default '127.0.0.1' */
  remoteAddress?: string;
}

/** What `app.inject()` resolves with. */
export interface InjectResponse {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  /** The response body as UTF-8 text. */
  body: string;
  rawBody: Buffer;
  /** The body parsed as JSON. */
  json<T = unknown>(): T;
}

/** Builds an IncomingMessage-shaped readable for a request. */
export function createInjectRequest(options: InjectRequest): IncomingMessage {
  const headers: IncomingHttpHeaders = {};
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (value !== undefined) headers[key.toLowerCase()] = value;
  }
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
      payload = Buffer.from(options.body);
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else {
      payload = Buffer.from(JSON.stringify(options.body));
      headers['content-type'] ??= 'application/json';
    }
    if (headers['transfer-encoding'] === undefined) headers['content-length'] ??= String(payload.length);
  }
  headers.host ??= 'localhost';
  const req = new Readable({ read() {} }) as Readable & Record<string, unknown>;
  if (payload !== undefined && payload.length > 0) req.push(payload);
  req.push(null);
  const rawHeaders: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value]) rawHeaders.push(key, String(v));
  }
  Object.assign(req, {
    method: (options.method ?? 'GET').toUpperCase(),
    url: options.url,
    headers,
    rawHeaders,
    httpVersion: '1.1',
    httpVersionMajor: 1,
    httpVersionMinor: 1,
    aborted: false,
    complete: true,
    socket: { remoteAddress: options.remoteAddress ?? '127.0.0.1', remotePort: 0, encrypted: false, destroy() {} },
  });
  (req as Record<string, unknown>)['connection'] = req['socket'];
  return req as unknown as IncomingMessage;
}

/** A ServerResponse stand-in that records what is written. */
export class InjectResponseWriter extends Writable {
  statusCode = 200;
  statusMessage = '';
  readonly chunks: Buffer[] = [];
  readonly req: IncomingMessage;
  private readonly headerMap = new Map<string, { name: string; value: number | string | string[] }>();
  private sentHeaders = false;

  constructor(req: IncomingMessage) {
    super();
    this.req = req;
  }

  get headersSent(): boolean {
    return this.sentHeaders;
  }

  get finished(): boolean {
    return this.writableEnded;
  }

  get socket(): unknown {
    return this.req.socket;
  }

  setHeader(name: string, value: number | string | readonly string[]): this {
    if (this.sentHeaders) throw Object.assign(new Error('Cannot set headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' });
    if (typeof name !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new TypeError(`Invalid header name: "${String(name)}"`);
    this.headerMap.set(name.toLowerCase(), { name, value: typeof value === 'string' || typeof value === 'number' ? value : [...value] });
    return this;
  }

  appendHeader(name: string, value: string | readonly string[]): this {
    const existing = this.getHeader(name);
    const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
    return this.setHeader(name, [...list, ...(typeof value === 'string' ? [value] : value)]);
  }

  getHeader(name: string): number | string | string[] | undefined {
    return this.headerMap.get(name.toLowerCase())?.value;
  }

  getHeaders(): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = {};
    for (const [key, { value }] of this.headerMap) out[key] = value;
    return out;
  }

  getHeaderNames(): string[] {
    return [...this.headerMap.keys()];
  }

  hasHeader(name: string): boolean {
    return this.headerMap.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headerMap.delete(name.toLowerCase());
  }

  writeHead(status: number, reason?: string | OutgoingHttpHeaders | string[], headers?: OutgoingHttpHeaders | string[]): this {
    const list = typeof reason === 'string' ? headers : reason;
    if (typeof reason === 'string') this.statusMessage = reason;
    this.statusCode = status;
    if (Array.isArray(list)) {
      for (let i = 0; i + 1 < list.length; i += 2) this.setHeader(list[i]!, list[i + 1]!);
    } else if (list !== undefined) {
      for (const [key, value] of Object.entries(list)) if (value !== undefined) this.setHeader(key, value);
    }
    this.sentHeaders = true;
    return this;
  }

  flushHeaders(): void {
    this.sentHeaders = true;
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.sentHeaders = true;
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding));
    callback();
  }

  override end(...args: unknown[]): this {
    this.sentHeaders = true;
    return super.end(...(args as []));
  }

  /** The recorded response. */
  result(): InjectResponse {
    // As on the wire: node never sends a body for HEAD, 204 or 304, whatever the handler wrote.
    const bodiless = this.req.method === 'HEAD' || this.statusCode === 204 || this.statusCode === 304;
    const rawBody = bodiless ? Buffer.alloc(0) : Buffer.concat(this.chunks);
    const body = rawBody.toString('utf8');
    // As on the wire, every header value is text (numbers set with setHeader included).
    const headers: OutgoingHttpHeaders = {};
    for (const [key, value] of Object.entries(this.getHeaders())) headers[key] = typeof value === 'number' ? String(value) : value;
    return {
      statusCode: this.statusCode,
      headers,
      body,
      rawBody,
      json<T>(): T {
        return JSON.parse(body) as T;
      },
    };
  }
}

/** Casts the writer to the node type the framework handles. */
export function asServerResponse(writer: InjectResponseWriter): ServerResponse {
  return writer as unknown as ServerResponse;
}
