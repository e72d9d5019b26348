import { errorBody, errorCodeOf, HTTPError, isHttpContext, toHTTPError, type Context, type ErrorCode, type Next, type RequestContext } from '@fw/core';
import { captureOperation, defaultLog, rawResponseInUse, readRawBody } from '@fw/core/plugin';
import { nodeCrypto, nodeV8 } from './internal/builtins.js';
import { MemoryStore } from './memory-store.js';
import type { IdempotencyConfig, IdempotencyRecord, IdempotencyStore, StoredResponse } from './types.js';
import { DEFAULT_IDEMPOTENCY_HEADER, DEFAULT_IDEMPOTENCY_TTL, DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT, DEFAULT_IDEMPOTENCY_METHODS, DEFAULT_IDEMPOTENCY_REPLAY_HEADER, DEFAULT_IDEMPOTENCY_STORED_HEADERS } from './defaults.js';


/** The middleware `idempotency()` returns. */
export type IdempotencyMiddleware<C extends RequestContext = RequestContext> = (ctx: C, next: Next) => Promise<void>;

/**
 * Makes retries of unsafe requests safe (IETF draft-ietf-httpapi-idempotency-key-header): a
 * request of `methods` with an `Idempotency-Key` header runs once; its response (status, the
 * `storedHeaders`, body bytes) is stored under the key and the request's `keyGenerator` scope,
 * with a fingerprint of the request (SHA-256 of method, path and raw body bytes). A retry with the
 * same key and request gets that response again with `Idempotent-Replayed: true`; the same key
 * with another request is answered 422; a retry while the first still runs, 409 with
 * `Retry-After`. A 5xx (or a thrown 5xx) is not stored, so the retry runs again; a 2xx-4xx is.
 * Works on HTTP requests (REST routes, operations' routes, Connect calls on the app's port);
 * other contexts pass through. Share keys between instances with `store: new RedisStore({ client })`.
 * @example
 * app.post('/payments', idempotency({ keyGenerator: (ctx) => (ctx.user as { sub: string }).sub }), pay);
 */
export function idempotency<C extends RequestContext = RequestContext>(config: IdempotencyConfig<C> = {}): IdempotencyMiddleware<C> {
  const header = config.header ?? DEFAULT_IDEMPOTENCY_HEADER;
  const methods = config.methods ?? DEFAULT_IDEMPOTENCY_METHODS;
  const ttl = config.ttl ?? DEFAULT_IDEMPOTENCY_TTL;
  const lockTimeout = config.lockTimeout ?? DEFAULT_IDEMPOTENCY_LOCK_TIMEOUT;
  const required = config.required ?? false;
  const keyGenerator = config.keyGenerator;
  const storedHeaders = config.storedHeaders ?? DEFAULT_IDEMPOTENCY_STORED_HEADERS;
  const replayHeader = config.replayHeader ?? DEFAULT_IDEMPOTENCY_REPLAY_HEADER;
  const maxKeyLength = config.maxKeyLength ?? 255;

  if (typeof header !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) throw new TypeError(`idempotency: header must be a header name, got ${String(header)}`);
  if (!Array.isArray(methods) || methods.some((m) => typeof m !== 'string')) throw new TypeError('idempotency: methods must be an array of method names');
  for (const [name, value] of [['ttl', ttl], ['lockTimeout', lockTimeout]] as const) {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) throw new TypeError(`idempotency: ${name} must be a positive number of milliseconds, got ${String(value)}`);
  }
  if (typeof required !== 'boolean') throw new TypeError('idempotency: required must be a boolean');
  if (keyGenerator !== undefined && typeof keyGenerator !== 'function') throw new TypeError('idempotency: keyGenerator must be a function (ctx) => string');
  if (!Array.isArray(storedHeaders) || storedHeaders.some((h) => typeof h !== 'string')) throw new TypeError('idempotency: storedHeaders must be an array of header names');
  if (typeof replayHeader !== 'string' || replayHeader === '') throw new TypeError('idempotency: replayHeader must be a header name');
  if (typeof maxKeyLength !== 'number' || !Number.isInteger(maxKeyLength) || maxKeyLength < 1) throw new TypeError('idempotency: maxKeyLength must be a whole number >= 1');
  const store: IdempotencyStore = config.store ?? new MemoryStore();
  if (store === null || typeof store !== 'object' || typeof store.begin !== 'function' || typeof store.finish !== 'function' || typeof store.abandon !== 'function') {
    throw new TypeError('idempotency: store must implement begin, finish and abandon (MemoryStore and RedisStore do)');
  }

  const headerKey = header.toLowerCase();
  const unsafe = new Set((methods as readonly string[]).map((m) => m.toUpperCase()));
  const kept = (storedHeaders as readonly string[]).map((h) => h.toLowerCase());

  const forget = (key: string): void => {
    Promise.resolve()
      .then(() => store.abandon(key))
      .catch((err: unknown) => defaultLog('idempotency: could not forget a failed request’s key; retries are answered 409 until its lock times out.', err));
  };

  const run = async (ctx: Context, next: Next, key: string, fingerprint: string): Promise<void> => {
    let stored: IdempotencyRecord & { state: 'done' };
    try {
      await next();
      const status = ctx.statusCode;
      // A server failure is not the answer to the request: the retry runs it again. A stream (the
      // raw response in use) cannot be replayed either.
      if (rawResponseInUse(ctx) || status >= 500) return forget(key);
      const recorded = ctx.responseBody;
      const body = recorded === undefined ? '' : Buffer.from(recorded).toString('base64');
      const headers = headersOf(ctx, kept);
      const type = ctx.responseType;
      if (type !== undefined && headers['content-type'] === undefined) headers['content-type'] = type;
      stored = { state: 'done', fingerprint, response: { status, headers, body } };
    } catch (err) {
      const error = toHTTPError(err);
      if (error.statusCode >= 500) {
        forget(key);
        throw err;
      }
      // A refusal (a 4xx) is the answer, as Stripe stores it: its standard error body is replayed.
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      stored = { state: 'done', fingerprint, response: { status: error.statusCode, headers, body: Buffer.from(JSON.stringify(errorBody(error))).toString('base64') } };
      await save(key, stored);
      throw err;
    }
    await save(key, stored);
  };

  const save = async (key: string, record: IdempotencyRecord & { state: 'done' }): Promise<void> => {
    try {
      await store.finish(key, record, ttl);
    } catch (err) {
      // The response still goes out; the retry cannot be replayed, and runs again once the lock expires.
      defaultLog('idempotency: could not store a response; a retry with its key will run again.', err);
    }
  };

  /** A procedure call (gRPC): the operation's output is kept, and a replay answers the call with it. */
  const runCall = async (ctx: RequestContext, next: Next, key: string, fingerprint: string): Promise<void> => {
    const capture = captureOperation(ctx);
    let stored: IdempotencyRecord & { state: 'done' };
    try {
      await next();
      // Not an operation (a hand-written method): there is no result to keep, and a retry runs again.
      if (capture.result === undefined) return forget(key);
      stored = { state: 'done', fingerprint, response: { status: 200, headers: {}, body: nodeV8().serialize(capture.result.value).toString('base64'), kind: 'value' } };
    } catch (err) {
      const error = toHTTPError(err);
      if (error.statusCode >= 500) {
        forget(key);
        throw err;
      }
      const refusal = { message: error.message, code: errorCodeOf(error), details: error.details };
      stored = { state: 'done', fingerprint, response: { status: error.statusCode, headers: {}, body: Buffer.from(JSON.stringify(refusal)).toString('base64'), kind: 'value' } };
      await save(key, stored);
      throw err;
    }
    await save(key, stored);
  };

  return async function idempotency(ctx: C, next: Next): Promise<void> {
    if (!unsafe.has(ctx.method)) return next();
    const http = isHttpContext(ctx);
    // Other contexts: procedure calls (one operation each); the fields of a query document are not.
    if (!http && ctx.procedure === undefined) return next();
    const given = ctx.headers[headerKey];
    if (given === undefined) {
      if (required) throw new HTTPError(400, `${ctx.method} ${ctx.path} needs an ${header} header`);
      return next();
    }
    const key = parseKey(given, header, maxKeyLength);
    const scope = keyGenerator === undefined ? `${ctx.method} ${ctx.path}` : keyGenerator(ctx);
    if (typeof scope !== 'string') throw new TypeError(`idempotency: keyGenerator returned ${typeof scope}, expected a string`);
    const crypto = nodeCrypto();
    const storeKey = crypto.createHash('sha256').update(scope).update('\0').update(key).digest('base64url');
    const hash = crypto.createHash('sha256').update(`${ctx.method} ${ctx.path}\n`);
    if (http) {
      const raw = await readRawBody(ctx);
      if (raw !== undefined) hash.update(raw);
    } else {
      // The decoded request message of a unary call (`ctx.request` of @fw/grpc); a client stream has none yet.
      const request = (ctx as { request?: unknown }).request;
      if (request === undefined) return next();
      hash.update(nodeV8().serialize(request));
    }
    const fingerprint = hash.digest('base64url');
    let held: IdempotencyRecord | undefined;
    try {
      held = await store.begin(storeKey, fingerprint, lockTimeout);
    } catch (err) {
      // Running without the store would run a retry twice: the one thing the key is there to prevent.
      throw new HTTPError(503, 'Service Unavailable', undefined, { cause: err, headers: { 'Retry-After': '1' } });
    }
    if (held === undefined) return http ? run(ctx, next, storeKey, fingerprint) : runCall(ctx, next, storeKey, fingerprint);
    if (held.fingerprint !== fingerprint) {
      throw new HTTPError(422, `This ${header} was already used with a different request`, undefined, { code: 'unprocessable_entity' });
    }
    if (held.state === 'running') {
      const retryAfter = '1';
      ctx.setHeader('Retry-After', retryAfter);
      throw new HTTPError(409, `A request with this ${header} is still being processed; retry later`, undefined, { code: 'conflict', headers: { 'Retry-After': retryAfter } });
    }
    if (http && held.response.kind === undefined) return replay(ctx, held.response, replayHeader);
    if (!http && held.response.kind === 'value') return replayCall(ctx, next, held.response, replayHeader);
    // Kept by the other kind of call under the same scope and key (a custom keyGenerator): not this call's answer.
    throw new HTTPError(422, `This ${header} was already used with a different request`, undefined, { code: 'unprocessable_entity' });
  };
}

/** Answers a procedure call with a kept result: the operation's middleware runs, its handler does not. */
async function replayCall(ctx: RequestContext, next: Next, response: StoredResponse, replayHeader: string): Promise<void> {
  const bytes = Buffer.from(response.body, 'base64');
  ctx.setHeader(replayHeader.toLowerCase(), 'true');
  if (response.status >= 400) {
    const refusal = JSON.parse(bytes.toString('utf8')) as { message: string; code: ErrorCode; details?: unknown };
    throw new HTTPError(response.status, refusal.message, refusal.details, { code: refusal.code });
  }
  captureOperation(ctx).replay = { value: nodeV8().deserialize(bytes) };
  await next();
}

/** The key from the header: an sf-string (`"abc"`, as the draft writes it) or a bare token (as Stripe's clients send). */
function parseKey(given: string | string[], header: string, max: number): string {
  if (Array.isArray(given)) throw new HTTPError(400, `Send one ${header} header, not ${given.length}`);
  let key = given.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1).replace(/\\(["\\])/g, '$1');
  if (key === '' || key.length > max || !/^[\x20-\x7e]+$/.test(key)) {
    throw new HTTPError(400, `${header} must be 1 to ${max} printable ASCII characters`);
  }
  return key;
}

/** The kept headers of the response, as strings. */
function headersOf(ctx: Context, kept: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of kept) {
    const value = ctx.res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** Answers with a stored response, marked as replayed. */
function replay(ctx: Context, response: StoredResponse, replayHeader: string): void {
  for (const name in response.headers) ctx.setHeader(name, response.headers[name]!);
  ctx.setHeader(replayHeader, 'true');
  ctx.send(Buffer.from(response.body, 'base64'), response.status);
}
