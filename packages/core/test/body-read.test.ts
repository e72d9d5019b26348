import { Application } from '../src/index.js';
import { RawConnection, parseHead } from './http-client.js';

// How the body reaches ctx.body over a real socket: a body already received whole when it is read
// (after middleware that waited on something) is taken from the request's buffer (no flowing
// mode), one still arriving is streamed; both parse the same, keep the connection, and respect
// bodyLimit.

interface Seen {
  body: unknown;
  flowing: boolean | null;
}

async function serve(config: ConstructorParameters<typeof Application>[0] = {}, waitFirst = true): Promise<{ app: Application; port: number; seen: Seen[] }> {
  const app = new Application(config);
  const seen: Seen[] = [];
  // Middleware that waits a turn of the event loop (a session lookup, say): the body is in by then.
  if (waitFirst) app.use(async (_ctx, next) => {
    await new Promise((resolve) => setImmediate(resolve));
    await next();
  });
  app.post('/echo', (ctx) => {
    seen.push({ body: ctx.body, flowing: ctx.req.readableFlowing });
    ctx.json({ got: ctx.body ?? null });
  });
  const { port } = await app.listen(0, '127.0.0.1');
  return { app, port, seen };
}

const post = (body: string, extra = ''): string =>
  `POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

const responses = (text: string): number => text.split('HTTP/1.1 ').length - 1;

describe('reading a request body', () => {
  let app: Application | undefined;
  let conn: RawConnection | undefined;
  afterEach(async () => {
    conn?.destroy();
    conn = undefined;
    await app?.close();
    app = undefined;
  });

  it('takes a body received whole from the buffer, and keeps the connection', async () => {
    const server = await serve();
    app = server.app;
    conn = await RawConnection.open(server.port);
    await conn.write(post('{"a":1,"é":"ü"}'));
    await conn.until((t) => t.includes('}}'));
    await conn.write(post('{"b":[1,2]}'));
    const text = await conn.until((t) => responses(t) === 2 && t.endsWith('}}'));
    expect(parseHead(text).status).toBe(200);
    expect(text).toContain('{"got":{"a":1,"é":"ü"}}');
    expect(text).toContain('{"got":{"b":[1,2]}}');
    expect(server.seen.map((s) => s.flowing)).toEqual([null, null]);
    expect(conn.isClosed).toBe(false);
  });

  it('streams a body still arriving', async () => {
    const server = await serve();
    app = server.app;
    conn = await RawConnection.open(server.port);
    const body = '{"late":true}';
    await conn.write(`POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{"la`);
    await new Promise((r) => setTimeout(r, 50));
    await conn.write('te":true}');
    const text = await conn.until((t) => t.endsWith('}}'));
    expect(parseHead(text).status).toBe(200);
    expect(parseHead(text).rest).toBe('{"got":{"late":true}}');
    expect(server.seen[0]!.flowing).toBe(true);
  });

  it('streams a body read as the request arrives (no middleware waited)', async () => {
    const server = await serve({}, false);
    app = server.app;
    conn = await RawConnection.open(server.port);
    await conn.write(post('{"now":1}'));
    const text = await conn.until((t) => t.endsWith('}}'));
    expect(parseHead(text).rest).toBe('{"got":{"now":1}}');
    expect(server.seen[0]!.flowing).toBe(true);
  });

  it('answers pipelined requests with their own bodies, in order', async () => {
    const server = await serve();
    app = server.app;
    conn = await RawConnection.open(server.port);
    await conn.write(post('{"n":1}') + post('{"n":2}') + post('{"n":3}'));
    const text = await conn.until((t) => responses(t) === 3 && t.endsWith('}}'));
    const bodies = [...text.matchAll(/\{"got":\{"n":(\d)\}\}/g)].map((m) => Number(m[1]));
    expect(bodies).toEqual([1, 2, 3]);
  });

  it('refuses a chunked body over bodyLimit that came whole with a 413, and closes', async () => {
    const server = await serve({ bodyLimit: 16 });
    app = server.app;
    conn = await RawConnection.open(server.port);
    const body = JSON.stringify({ long: 'x'.repeat(40) });
    await conn.write(
      `POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    await conn.untilClosed();
    expect(parseHead(conn.text).status).toBe(413);
    expect(server.seen).toEqual([]);
  });

  it('reads an empty chunked body as no body', async () => {
    const server = await serve();
    app = server.app;
    conn = await RawConnection.open(server.port);
    await conn.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
    const text = await conn.until((t) => t.endsWith('}'));
    expect(parseHead(text).rest).toBe('{"got":null}');
    await conn.write(post('{"again":1}'));
    await conn.until((t) => t.endsWith('{"got":{"again":1}}'));
  });

  it('refuses malformed JSON that came whole with a 400', async () => {
    const server = await serve();
    app = server.app;
    conn = await RawConnection.open(server.port);
    await conn.write(post('{"a":'));
    const text = await conn.until((t) => t.includes('\r\n\r\n') && t.endsWith('}'));
    expect(parseHead(text).status).toBe(400);
    expect(server.seen).toEqual([]);
  });
});

describe('ctx.send with a content type', () => {
  it('writes the given Content-Type, and keeps one the handler set itself', async () => {
    const app = new Application();
    app.get('/csv', (ctx) => ctx.send('a,b\n1,2\n', 201, 'text/csv; charset=utf-8'));
    app.get('/own', (ctx) => {
      ctx.setHeader('content-type', 'text/x-own');
      ctx.send('x', 200, 'text/plain');
    });
    app.get('/none', (ctx) => ctx.send(Buffer.from([1, 2])));
    const csv = await app.inject({ method: 'GET', url: '/csv' });
    expect([csv.statusCode, csv.headers['content-type'], csv.body]).toEqual([201, 'text/csv; charset=utf-8', 'a,b\n1,2\n']);
    const own = await app.inject({ method: 'GET', url: '/own' });
    expect(own.headers['content-type']).toBe('text/x-own');
    const none = await app.inject({ method: 'GET', url: '/none' });
    expect(none.headers['content-type']).toBeUndefined();
  });
});
