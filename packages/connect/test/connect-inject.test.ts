import { gunzipSync, gzipSync } from 'node:zlib';
import type { Application } from '@fw/core';
import { connectApp, enveloped, frames } from './fixtures.js';

// The mapping and the refusals, in-process through the app's real pipeline (`app.inject`): the
// canonical JSON, the error bodies and statuses, GET, and hostile input, each a clear error.

const GET_BOOK = '/bookstore.v1.Catalog/GetBook';
const ADD_BOOK = '/bookstore.v1.Catalog/AddBook';
const COUNTDOWN = '/bookstore.v1.Catalog/Countdown';

/** gRPC-Web's trailers, from the last frame. */
function trailersOf(body: Buffer): Record<string, string> {
  const last = frames(body).at(-1);
  if (last === undefined || (last.flags & 0x80) === 0) throw new Error('no trailers frame');
  return Object.fromEntries(
    last.payload
      .toString('latin1')
      .split('\r\n')
      .filter((line) => line !== '')
      .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

describe('Connect and gRPC-Web in-process', () => {
  let app: Application;
  let middlewareRuns = 0;

  beforeAll(() => {
    app = connectApp({ maxMessageBytes: 64 * 1024 });
    app.use(async (_ctx, next) => {
      middlewareRuns++;
      await next();
    });
  });

  afterAll(async () => {
    await app.close();
  });

  const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, body, headers: { 'content-type': 'application/json', ...headers } });

  describe('Connect unary', () => {
    it('answers canonical proto3 JSON: lowerCamelCase names, 64-bit integers as strings, enums by name', async () => {
      const res = await post(GET_BOOK, '{"id":"b1"}');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toEqual({ book: { id: 'b1', title: 'Dune', priceCents: '1299', genre: 'GENRE_SCIENCE_FICTION' } });
    });

    it('accepts proto field names and enum numbers on input', async () => {
      const res = await post(ADD_BOOK, '{"title":"Emma","price_cents":"250","genre":1}', { authorization: 'Bearer admin' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ book: { id: 'b2', title: 'Emma', priceCents: '250', genre: 'GENRE_FICTION' } });
    });

    it('runs the global middleware once per call', async () => {
      const before = middlewareRuns;
      await post(GET_BOOK, '{"id":"b1"}');
      expect(middlewareRuns).toBe(before + 1);
    });

    it('answers errors as Connect error bodies with the Connect status', async () => {
      const missing = await post(GET_BOOK, '{"id":"missing"}');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ code: 'not_found', message: 'No book missing' });
      const anonymous = await post(ADD_BOOK, '{"title":"Emma","priceCents":"1","genre":"GENRE_FICTION"}');
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer');
      expect(anonymous.json()).toMatchObject({ code: 'unauthenticated' });
      const guest = await post(ADD_BOOK, '{"title":"Emma","priceCents":"1","genre":"GENRE_FICTION"}', { authorization: 'Bearer guest' });
      expect(guest.statusCode).toBe(403);
      expect(guest.json()).toMatchObject({ code: 'permission_denied' });
    });

    it('refuses invalid input with invalid_argument and a google.rpc.BadRequest naming the fields', async () => {
      const res = await post(ADD_BOOK, '{"title":"E","priceCents":"-1","genre":"GENRE_FICTION"}', { authorization: 'Bearer admin' });
      expect(res.statusCode).toBe(400);
      const body = res.json<{ code: string; details: Array<{ type: string; value: string; debug: { fieldViolations: Array<{ field: string }> } }> }>();
      expect(body.code).toBe('invalid_argument');
      expect(body.details[0]!.type).toBe('google.rpc.BadRequest');
      expect(body.details[0]!.value).toMatch(/^[A-Za-z0-9+/]+$/);
      expect(body.details[0]!.debug.fieldViolations.map((v) => v.field)).toEqual(expect.arrayContaining([expect.stringContaining('title'), expect.stringContaining('priceCents')]));
    });

    it('refuses malformed JSON and unknown fields with invalid_argument', async () => {
      for (const body of ['{"id":', '{"nope":1}', '[1]']) {
        const res = await post(GET_BOOK, body);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ code: 'invalid_argument' });
      }
    });

    it('checks connect-protocol-version when present', async () => {
      expect((await post(GET_BOOK, '{"id":"b1"}', { 'connect-protocol-version': '1' })).statusCode).toBe(200);
      const res = await post(GET_BOOK, '{"id":"b1"}', { 'connect-protocol-version': '2' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('connect-protocol-version') });
    });

    it('refuses a malformed Connect-Timeout-Ms', async () => {
      const res = await post(GET_BOOK, '{"id":"b1"}', { 'connect-timeout-ms': 'soon' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_argument' });
    });

    it('answers 415 for a Content-Type it does not speak, and for a streaming type on a unary method', async () => {
      const text = await post(GET_BOOK, 'id=b1', { 'content-type': 'text/plain' });
      expect(text.statusCode).toBe(415);
      expect(text.headers['accept-post']).toContain('application/json');
      const stream = await post(GET_BOOK, enveloped(Buffer.from('{"id":"b1"}')), { 'content-type': 'application/connect+json' });
      expect(stream.statusCode).toBe(415);
    });

    it('answers 405 for a method other than POST or GET', async () => {
      const res = await app.inject({ method: 'PUT', url: GET_BOOK, body: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, POST');
    });

    it('compresses a large response with gzip when the client accepts it', async () => {
      const small = await post(GET_BOOK, '{"id":"b1"}', { 'accept-encoding': 'gzip' });
      expect(small.headers['content-encoding']).toBeUndefined();
      const id = 'x'.repeat(4000);
      const large = await post(GET_BOOK, JSON.stringify({ id }), { 'accept-encoding': 'gzip, br' });
      expect(large.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(gunzipSync(large.rawBody).toString())).toMatchObject({ book: { id } });
    });

    it('reads a gzip request; refuses a compression bomb with resource_exhausted and keeps serving', async () => {
      const ok = await post(GET_BOOK, gzipSync('{"id":"b1"}'), { 'content-encoding': 'gzip' });
      expect(ok.statusCode).toBe(200);
      const bomb = gzipSync(Buffer.concat([Buffer.from('{"id":"'), Buffer.alloc(20 * 1024 * 1024, 0x61), Buffer.from('"}')]));
      expect(bomb.length).toBeLessThan(64 * 1024);
      const res = await post(GET_BOOK, bomb, { 'content-encoding': 'gzip' });
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ code: 'resource_exhausted' });
      expect((await post(GET_BOOK, '{"id":"b1"}')).statusCode).toBe(200);
    });

    it('refuses corrupt gzip with invalid_argument and an unknown compression with unimplemented', async () => {
      const corrupt = await post(GET_BOOK, Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
      expect(corrupt.statusCode).toBe(400);
      expect(corrupt.json()).toMatchObject({ code: 'invalid_argument' });
      const zstd = await post(GET_BOOK, '{"id":"b1"}', { 'content-encoding': 'zstd' });
      expect(zstd.statusCode).toBe(501);
      expect(zstd.json()).toMatchObject({ code: 'unimplemented' });
    });

    it('refuses a body past maxMessageBytes with resource_exhausted', async () => {
      const res = await post(GET_BOOK, JSON.stringify({ id: 'x'.repeat(70 * 1024) }));
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ code: 'resource_exhausted' });
    });
  });

  it('answers the call’s own errors itself, so that an error middleware of the app does not rewrite them', async () => {
    const other = connectApp();
    other.use(async (ctx, next) => {
      try {
        await next();
      } catch {
        ctx.json({ error: true, shape: 'rest' }, 500);
      }
    });
    const res = await other.inject({ method: 'POST', url: GET_BOOK, body: '{"id":"missing"}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'not_found', message: 'No book missing' });
    await other.close();
  });

  it('serves a JSON call whose body a global middleware parsed already', async () => {
    const other = connectApp();
    other.use(async (ctx, next) => {
      await ctx.parseBody();
      await next();
    });
    const res = await other.inject({ method: 'POST', url: GET_BOOK, body: '{"id":"p1"}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ book: { id: 'p1' } });
    await other.close();
  });

  describe('Connect GET', () => {
    it('calls an operation without side effects, JSON or base64 binary', async () => {
      const json = await app.inject(`${GET_BOOK}?connect=v1&encoding=json&message=${encodeURIComponent('{"id":"g1"}')}`);
      expect(json.statusCode).toBe(200);
      expect(json.json()).toMatchObject({ book: { id: 'g1' } });
      // GetBookRequest { id = 1 }: tag 0x0a, length 2, "g2".
      const message = Buffer.from([0x0a, 0x02, 0x67, 0x32]).toString('base64url');
      const proto = await app.inject(`${GET_BOOK}?connect=v1&encoding=proto&base64=1&message=${message}`);
      expect(proto.statusCode).toBe(200);
      expect(proto.headers['content-type']).toBe('application/proto');
      expect(proto.rawBody.includes(Buffer.from('g2'))).toBe(true);
    });

    it('answers 405 for an operation with side effects, and refuses an unknown connect version', async () => {
      const mutation = await app.inject(`${ADD_BOOK}?connect=v1&encoding=json&message=%7B%7D`);
      expect(mutation.statusCode).toBe(405);
      expect(mutation.headers.allow).toBe('POST');
      expect(mutation.json()).toMatchObject({ code: 'unimplemented' });
      const version = await app.inject(`${GET_BOOK}?connect=v2&encoding=json&message=%7B%7D`);
      expect(version.statusCode).toBe(400);
    });
  });

  describe('Connect server streams', () => {
    it('sends each event as an envelope, then the end-of-stream message', async () => {
      const res = await post(COUNTDOWN, enveloped(Buffer.from('{"from":2}')), { 'content-type': 'application/connect+json' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/connect+json');
      const got = frames(res.rawBody);
      expect(got.map((f) => f.flags)).toEqual([0, 0, 2]);
      expect(got.map((f) => JSON.parse(f.payload.toString()) as unknown)).toEqual([{ count: { left: '2' } }, { count: { left: '1' } }, {}]);
    });

    it('ends a failing stream with the mapped code in the end-of-stream message', async () => {
      const res = await post(COUNTDOWN, enveloped(Buffer.from('{"from":1,"fail":true}')), { 'content-type': 'application/connect+json' });
      const got = frames(res.rawBody);
      expect(JSON.parse(got.at(-1)!.payload.toString())).toEqual({ error: { code: 'failed_precondition', message: 'Out of stock' } });
    });

    it('refuses a malformed envelope and a length prefix past the limit', async () => {
      const short = await post(COUNTDOWN, Buffer.from([0, 0, 0]), { 'content-type': 'application/connect+json' });
      expect(JSON.parse(frames(short.rawBody)[0]!.payload.toString())).toMatchObject({ error: { code: 'invalid_argument' } });
      const huge = Buffer.from([0, 0x7f, 0xff, 0xff, 0xff, 0x7b, 0x7d]);
      const past = await post(COUNTDOWN, huge, { 'content-type': 'application/connect+json' });
      expect(JSON.parse(frames(past.rawBody)[0]!.payload.toString())).toMatchObject({ error: { code: 'resource_exhausted' } });
      const truncated = await post(COUNTDOWN, Buffer.from([0, 0, 0, 0, 9, 0x7b]), { 'content-type': 'application/connect+json' });
      expect(JSON.parse(frames(truncated.rawBody)[0]!.payload.toString())).toMatchObject({ error: { code: 'invalid_argument' } });
    });
  });

  describe('gRPC-Web', () => {
    it('answers a unary call with the message and trailers in the body', async () => {
      const res = await post(GET_BOOK, enveloped(Buffer.from([0x0a, 0x02, 0x77, 0x31])), { 'content-type': 'application/grpc-web+proto' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/grpc-web+proto');
      const got = frames(res.rawBody);
      expect(got.map((f) => f.flags)).toEqual([0, 0x80]);
      expect(trailersOf(res.rawBody)).toEqual({ 'grpc-status': '0' });
    });

    it('answers errors in the trailers, with the details as grpc-status-details-bin', async () => {
      const missing = await post(GET_BOOK, enveloped(Buffer.from([0x0a, 0x07, ...Buffer.from('missing')])), { 'content-type': 'application/grpc-web' });
      expect(trailersOf(missing.rawBody)).toEqual({ 'grpc-status': '5', 'grpc-message': 'No book missing' });
      const invalid = await post(ADD_BOOK, enveloped(Buffer.from([0x0a, 0x01, 0x45])), { 'content-type': 'application/grpc-web', authorization: 'Bearer admin' });
      const trailers = trailersOf(invalid.rawBody);
      expect(trailers['grpc-status']).toBe('3');
      expect(Buffer.from(trailers['grpc-status-details-bin']!, 'base64').includes(Buffer.from('type.googleapis.com/google.rpc.BadRequest'))).toBe(true);
    });

    it('speaks grpc-web-text (base64 both ways) and refuses invalid base64', async () => {
      const body = enveloped(Buffer.from([0x0a, 0x02, 0x74, 0x31])).toString('base64');
      const res = await post(GET_BOOK, body, { 'content-type': 'application/grpc-web-text' });
      expect(res.headers['content-type']).toBe('application/grpc-web-text+proto');
      expect(trailersOf(Buffer.from(res.body, 'base64'))).toEqual({ 'grpc-status': '0' });
      const bad = await post(GET_BOOK, '***not base64***', { 'content-type': 'application/grpc-web-text' });
      expect(trailersOf(Buffer.from(bad.body, 'base64'))).toMatchObject({ 'grpc-status': '3' });
    });

    it('reads a gzip-compressed envelope (grpc-encoding) and refuses a bomb with resource_exhausted', async () => {
      const ok = await post(GET_BOOK, enveloped(gzipSync(Buffer.from([0x0a, 0x02, 0x7a, 0x31])), 1), { 'content-type': 'application/grpc-web', 'grpc-encoding': 'gzip' });
      expect(trailersOf(ok.rawBody)).toEqual({ 'grpc-status': '0' });
      const bomb = enveloped(gzipSync(Buffer.alloc(20 * 1024 * 1024)), 1);
      const res = await post(GET_BOOK, bomb, { 'content-type': 'application/grpc-web', 'grpc-encoding': 'gzip' });
      expect(trailersOf(res.rawBody)['grpc-status']).toBe('8');
    });

    it('serves a server stream: a frame per event, then the trailers', async () => {
      const res = await post(COUNTDOWN, enveloped(Buffer.from([0x08, 0x03])), { 'content-type': 'application/grpc-web+proto' });
      expect(frames(res.rawBody).map((f) => f.flags)).toEqual([0, 0, 0, 0x80]);
      expect(trailersOf(res.rawBody)).toEqual({ 'grpc-status': '0' });
    });

    it('refuses a malformed grpc-timeout', async () => {
      const res = await post(GET_BOOK, enveloped(Buffer.from([0x0a, 0x02, 0x77, 0x31])), { 'content-type': 'application/grpc-web', 'grpc-timeout': '10 seconds' });
      expect(trailersOf(res.rawBody)['grpc-status']).toBe('3');
    });
  });
});
