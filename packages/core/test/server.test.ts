import { hostOf } from './host.js';
import { Agent, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Application, type ApplicationConfig, type ListenInfo } from '../src/index.js';
import { RawConnection, parseHead, send } from './http-client.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts an application on 127.0.0.1 and a random port; the test closes it. */
async function start(config: ApplicationConfig, routes: (app: Application) => void): Promise<{ app: Application; port: number; logged: unknown[] }> {
  const logged: unknown[] = [];
  const app = new Application({ onLog: (message, error) => logged.push(error ?? message), ...config });
  routes(app);
  const { port } = await app.listen(0, '127.0.0.1');
  return { app, port, logged };
}

describe('the HTTP server on a real socket', () => {
  let app: Application;
  let port: number;
  let logged: unknown[];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    ({ app, port, logged } = await start({ bodyLimit: 1024 }, (a) => {
      a.get('/utf8', (ctx) => ctx.json({ text: 'Grüße, 世界 🌍' }));
      a.get('/text', (ctx) => ctx.text('naïve café ✓'));
      a.get('/doc', (ctx) => ctx.setHeader('x-doc', 'yes').json({ doc: 'a body HEAD must not send' }));
      a.post('/echo', (ctx) => ctx.json({ body: ctx.body ?? null }));
      a.get('/raw', (ctx) => {
        ctx.res.writeHead(200, { 'content-type': 'text/plain' });
        ctx.res.write('raw ');
        ctx.res.end('write');
      });
      a.get('/pipe', (ctx) => {
        ctx.setHeader('content-type', 'text/plain');
        const stream = new Readable({ read() {} });
        stream.pipe(ctx.res);
        setTimeout(() => {
          stream.push('piped ');
          setTimeout(() => {
            stream.push('stream');
            stream.push(null);
          }, 10);
        }, 10);
      });
      a.get('/no-content', (ctx) => ctx.status(204));
      a.get('/ip', (ctx) => ctx.text(ctx.ip));
      a.post('/ignore-body', (ctx) => ctx.json({ body: ctx.body === undefined ? 'unread' : 'read' }));
      a.get('/broken-stream', (ctx) => {
        ctx.res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        ctx.res.write('partial');
        throw new Error('failed half-way');
      });
      a.use(async (ctx, next) => {
        await next();
        ctx.setHeader('x-after', String(ctx.statusCode));
      });
      a.get('/boom', () => {
        throw new Error('secret detail');
      });
    }));
  });

  afterAll(async () => {
    agent.destroy();
    await app.close();
  });

  it('sends a Content-Length that counts UTF-8 bytes, not characters', async () => {
    for (const path of ['/utf8', '/text']) {
      const res = await send(port, { path });
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(res.body.length).toBeGreaterThan(res.text.length);
    }
    expect(JSON.parse((await send(port, { path: '/utf8' })).text)).toEqual({ text: 'Grüße, 世界 🌍' });
  });

  it('answers HEAD with the GET headers and no body bytes on the wire', async () => {
    const get = await send(port, { path: '/doc' });
    const conn = await RawConnection.open(port);
    // A HEAD followed on the same connection by a GET: if any body byte followed the HEAD
    // response, the second status line would not start right after the first head.
    await conn.write('HEAD /doc HTTP/1.1\r\nHost: t\r\n\r\nGET /text HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
    await conn.untilClosed();
    const head = parseHead(conn.text);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['x-doc']).toBe('yes');
    expect(head.rest.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
    expect(parseHead(head.rest).rest).toBe('naïve café ✓');
  });

  it('answers 413 as soon as Content-Length announces a body over the limit, and closes', async () => {
    const conn = await RawConnection.open(port);
    await conn.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":');
    await conn.untilClosed();
    const res = parseHead(conn.text);
    expect(res.status).toBe(413);
    expect(res.headers['connection']).toBe('close');
    expect(JSON.parse(res.rest)).toEqual({ error: true, message: 'Request body is larger than 1024 bytes', code: 413 });
  });

  it('answers 413 when a chunked body without Content-Length passes the limit, and closes', async () => {
    const conn = await RawConnection.open(port);
    await conn.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = 'x'.repeat(600);
    await conn.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    await conn.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    // No terminating chunk: the server must not wait for the rest.
    await conn.untilClosed();
    const res = parseHead(conn.text);
    expect(res.status).toBe(413);
    expect(res.headers['connection']).toBe('close');
  });

  it('accepts a chunked body within the limit', async () => {
    const conn = await RawConnection.open(port);
    await conn.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n');
    await conn.write('4\r\n{"a"\r\n');
    await conn.write('3\r\n:1}\r\n0\r\n\r\n');
    await conn.untilClosed();
    expect(JSON.parse(parseHead(conn.text).rest)).toEqual({ body: { a: 1 } });
  });

  it('answers 400 to malformed JSON and keeps serving, on the same connection too', async () => {
    const bad = await send(port, { method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: '{"a":', agent });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({ error: true, message: 'Malformed JSON in request body', code: 400 });
    const good = await send(port, { method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: '{"a":1}', agent });
    expect(good.status).toBe(200);
    expect(JSON.parse(good.text)).toEqual({ body: { a: 1 } });
  });

  it('answers 414 for a URL longer than maxUrlLength', async () => {
    const res = await send(port, { path: `/utf8?q=${'a'.repeat(8200)}` });
    expect(res.status).toBe(414);
    expect(JSON.parse(res.text)).toEqual({ error: true, message: 'Request URL is longer than 8192 characters', code: 414 });
  });

  it('answers 500 without leaking the error, and keeps serving', async () => {
    const res = await send(port, { path: '/boom' });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text)).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
    expect(res.text).not.toContain('secret');
    expect(logged.length).toBeGreaterThan(0);
    expect((await send(port, { path: '/text' })).status).toBe(200);
  });

  it('sends no body and no Content-Type with 204', async () => {
    const conn = await RawConnection.open(port);
    await conn.write('GET /no-content HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
    await conn.untilClosed();
    const res = parseHead(conn.text);
    expect(res.status).toBe(204);
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.rest).toBe('');
  });

  it('leaves a response written directly to ctx.res alone', async () => {
    const res = await send(port, { path: '/raw', agent });
    expect(res.status).toBe(200);
    expect(res.text).toBe('raw write');
    const piped = await send(port, { path: '/pipe', agent });
    expect(piped.status).toBe(200);
    expect(piped.text).toBe('piped stream');
    // The connection is still usable afterwards.
    expect((await send(port, { path: '/text', agent })).status).toBe(200);
  });

  it('sends headers that middleware sets after `await next()`', async () => {
    expect((await send(port, { path: '/text' })).headers['x-after']).toBe('200');
    expect((await send(port, { path: '/missing' })).headers['x-after']).toBe('404');
  });

  it('reports the socket address as ctx.ip', async () => {
    expect((await send(port, { path: '/ip', headers: { 'x-forwarded-for': '6.6.6.6' } })).text).toBe('127.0.0.1');
  });

  it('leaves a body of another content type unread and serves the next request on the connection', async () => {
    const upload = Buffer.alloc(600, 7);
    const res = await send(port, { method: 'POST', path: '/ignore-body', headers: { 'content-type': 'application/octet-stream' }, body: upload, agent });
    expect(JSON.parse(res.text)).toEqual({ body: 'unread' });
    expect((await send(port, { path: '/text', agent })).text).toBe('naïve café ✓');
  });

  it('cuts the connection when a handler fails after its response started, instead of sending a second one', async () => {
    const conn = await RawConnection.open(port);
    await conn.write('GET /broken-stream HTTP/1.1\r\nHost: t\r\n\r\n');
    await conn.untilClosed();
    const res = parseHead(conn.text);
    expect(res.status).toBe(200);
    expect(res.rest).toBe('partial');
    expect((await send(port, { path: '/text' })).status).toBe(200);
  });

  it('refuses a second listen() on the same application', async () => {
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow('listen() was already called');
  });
});

describe('listen', () => {
  it('resolves with the bound port, host and URL, and also calls a callback', async () => {
    const app = new Application();
    app.get('/ping', (ctx) => ctx.text('pong'));
    const called = new Promise<{ port: number; url: string }>((resolve) => {
      void app.listen(0, (info) => resolve(info));
    });
    const info = await called;
    try {
      expect(info.port).toBeGreaterThan(0);
      expect((await send(info.port, { path: '/ping' })).text).toBe('pong');
    } finally {
      await app.close();
    }
  });

  it('reports the address it really bound: every interface is [::] or 0.0.0.0, not localhost', async () => {
    const app = new Application();
    app.get('/ping', (ctx) => ctx.text('pong'));
    const info = await app.listen();
    try {
      expect(['::', '0.0.0.0']).toContain(info.host);
      expect(info.url).toBe(info.host === '::' ? `http://[::]:${info.port}` : `http://0.0.0.0:${info.port}`);
      expect(info.url).not.toContain('localhost');
      // Beside it, an address a person can open: every interface includes the loopback.
      expect(info.localUrl).toBe(`http://localhost:${info.port}`);
      const status = await new Promise<number | undefined>((resolve, reject) => {
        get(`${info.localUrl}/ping`, { agent: false }, (res) => resolve(res.resume().statusCode)).once('error', reject);
      });
      expect(status).toBe(200);
    } finally {
      await app.close();
    }
    const ipv4 = new Application();
    const any4 = await ipv4.listen(0, '0.0.0.0');
    await ipv4.close();
    expect(any4).toEqual({ port: any4.port, host: '0.0.0.0', url: `http://0.0.0.0:${any4.port}`, localUrl: `http://localhost:${any4.port}` });
  });

  it('writes an IPv6 address in brackets', async () => {
    const app = new Application();
    let info: ListenInfo;
    try {
      info = await app.listen(0, '::1');
    } catch {
      return; // No IPv6 loopback on this machine.
    } finally {
      await app.close();
    }
    expect(info).toEqual({ port: info.port, host: '::1', url: `http://[::1]:${info.port}`, localUrl: `http://[::1]:${info.port}` });
  });

  it('binds the port and host of the configuration when listen() is called without them', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const free = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const app = new Application({ port: free, host: '127.0.0.1' });
    app.get('/ping', (ctx) => ctx.text('pong'));
    const info = await app.listen();
    try {
      expect(info).toEqual({ port: free, host: '127.0.0.1', url: `http://127.0.0.1:${free}`, localUrl: `http://127.0.0.1:${free}` });
      expect((await send(free, { path: '/ping' })).text).toBe('pong');
    } finally {
      await app.close();
    }
  });

  it('lets the arguments of listen() win over the configuration', async () => {
    const app = new Application({ port: 1, host: '0.0.0.0' });
    const info = await app.listen(0, '127.0.0.1');
    await app.close();
    expect(info.host).toBe('127.0.0.1');
    expect(info.port).not.toBe(1);
    const hostOnly = new Application({ host: '127.0.0.1' });
    const called = await new Promise<{ host: string }>((resolve) => void hostOnly.listen(0, resolve));
    await hostOnly.close();
    expect(called.host).toBe('127.0.0.1');
  });

  it('rejects a configured port or host of the wrong kind when the application is made', () => {
    expect(() => new Application({ port: 70000 })).toThrow('port must be an integer from 0 to 65535, got 70000');
    expect(() => new Application({ port: -1 })).toThrow(TypeError);
    expect(() => new Application({ port: '3000' as unknown as number })).toThrow(TypeError);
    expect(() => new Application({ host: 42 as unknown as string })).toThrow('host must be a string, got number');
  });

  it('reports the host it bound', async () => {
    const app = new Application();
    const info = await app.listen(0, '127.0.0.1');
    expect(info).toEqual({ port: info.port, host: '127.0.0.1', url: `http://127.0.0.1:${info.port}`, localUrl: `http://127.0.0.1:${info.port}` });
    await app.close();
  });

  it('rejects with a clear message when the port is busy, and can listen elsewhere after', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const busy = (blocker.address() as AddressInfo).port;
    const app = new Application();
    try {
      await expect(app.listen(busy, '127.0.0.1')).rejects.toThrow(`Port ${busy} is already in use on 127.0.0.1`);
      const info = await app.listen(0, '127.0.0.1');
      expect(info.port).not.toBe(busy);
    } finally {
      await app.close();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('listens again after close', async () => {
    const app = new Application();
    app.get('/ping', (ctx) => ctx.text('pong'));
    const first = await app.listen(0, '127.0.0.1');
    await app.close();
    const second = await app.listen(0, '127.0.0.1');
    try {
      expect((await send(second.port, { path: '/ping' })).text).toBe('pong');
      await expect(send(first.port === second.port ? 1 : first.port, { path: '/ping' })).rejects.toThrow();
    } finally {
      await app.close();
    }
  });

  it('rejects an invalid port', async () => {
    await expect(new Application().listen(70000)).rejects.toThrow('Invalid port: 70000');
  });

  it('runs onListen hooks with the address, and closes again when one throws', async () => {
    const app = new Application({ onLog: () => undefined });
    const seen: number[] = [];
    hostOf(app).onListen((info) => {
      seen.push(info.port);
    });
    const info = await app.listen(0, '127.0.0.1');
    expect(seen).toEqual([info.port]);
    await app.close();

    const failing = new Application({ onLog: () => undefined });
    const closed = jest.fn();
    hostOf(failing).onListen(() => {
      throw new Error('grpc port busy');
    });
    hostOf(failing).onClose(closed);
    await expect(failing.listen(0, '127.0.0.1')).rejects.toThrow('grpc port busy');
    expect(closed).toHaveBeenCalled();
    expect(failing.server).toBeUndefined();
  });
});

describe('server time-outs', () => {
  it('cuts off a client that never finishes its headers', async () => {
    const { app, port } = await start({ timeouts: { headers: 300, request: 600 } }, (a) => a.get('/', (ctx) => ctx.text('x')));
    try {
      const conn = await RawConnection.open(port);
      await conn.write('GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ');
      // The 408 says the header time-out cut it; the wait is ample for a loaded machine.
      await conn.untilClosed(15_000);
      expect(parseHead(conn.text).status).toBe(408);
    } finally {
      await app.close();
    }
  });

  it('cuts off a request whose body stalls', async () => {
    const { app, port, logged } = await start({ timeouts: { headers: 200, request: 400 } }, (a) => a.post('/echo', (ctx) => ctx.json({ body: ctx.body ?? null })));
    try {
      const conn = await RawConnection.open(port);
      await conn.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
      // The 408 says the request time-out cut it; the wait is ample for a loaded machine.
      await conn.untilClosed(15_000);
      expect(parseHead(conn.text).status).toBe(408);
      // The server survived and still answers.
      expect((await send(port, { method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: '{"b":2}' })).text).toBe('{"body":{"b":2}}');
      expect(logged).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('closes an idle kept-alive connection after the keep-alive time-out', async () => {
    const { app, port } = await start({ timeouts: { keepAlive: 200 } }, (a) => a.get('/', (ctx) => ctx.text('x')));
    try {
      const conn = await RawConnection.open(port);
      await conn.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
      await conn.until((text) => text.endsWith('\r\n\r\nx'));
      // node adds up to a second of grace to the keep-alive time-out of the socket. Sooner than
      // node's own default (5 s) tells the configured one applies, with room for a loaded machine.
      const took = await conn.untilClosed(15_000);
      expect(took).toBeLessThan(5000);
    } finally {
      await app.close();
    }
  });

  it('accepts a request time-out shorter than the default header time-out', async () => {
    const { app, port } = await start({ timeouts: { request: 500 } }, (a) => a.get('/', (ctx) => ctx.text('x')));
    try {
      expect((await send(port, { path: '/' })).text).toBe('x');
    } finally {
      await app.close();
    }
  });
});

describe('close', () => {
  it('lets an in-flight request finish, refuses new connections, answers 503 on kept-alive ones, and resolves', async () => {
    let entered!: () => void;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    const { app, port } = await start({}, (a) => {
      a.get('/slow', async (ctx) => {
        entered();
        await sleep(300);
        ctx.json({ slow: 'done' });
      });
      a.get('/fast', (ctx) => ctx.text('fast'));
      a.post('/echo', (ctx) => ctx.json({ body: ctx.body ?? null }));
    });

    // Three kept-alive connections, idle when close() starts.
    const kept: RawConnection[] = [];
    for (let i = 0; i < 3; i++) {
      const conn = await RawConnection.open(port);
      await conn.write('GET /fast HTTP/1.1\r\nHost: t\r\n\r\n');
      await conn.until((text) => text.endsWith('fast'));
      kept.push(conn);
    }
    const [getting, posting, silent] = kept as [RawConnection, RawConnection, RawConnection];

    const slow = send(port, { path: '/slow' });
    await inFlight;
    const closed = app.close();

    // New connections are refused at once.
    await expect(send(port, { path: '/fast' })).rejects.toThrow(/ECONNREFUSED|ECONNRESET/);

    // A request that arrives on a kept-alive connection is answered 503 and the connection closed.
    const afterHead = (text: string): string => text.slice(text.indexOf('fast') + 4);
    await getting.write('GET /fast HTTP/1.1\r\nHost: t\r\n\r\n');
    await posting.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}');
    for (const conn of [getting, posting]) {
      await conn.untilClosed(1000);
      const refused = parseHead(afterHead(conn.text));
      expect(refused.status).toBe(503);
      expect(refused.headers['connection']).toBe('close');
      expect(JSON.parse(refused.rest)).toEqual({ error: true, message: 'Server is shutting down', code: 503 });
    }

    // The in-flight request gets its real answer, marked as the connection's last.
    const slowRes = await slow;
    expect(slowRes.status).toBe(200);
    expect(JSON.parse(slowRes.text)).toEqual({ slow: 'done' });
    expect(slowRes.headers['connection']).toBe('close');

    // A connection that stays silent is closed after a short grace, and close() resolves.
    await silent.untilClosed(15_000);
    await closed;
  });

  it('answers 503 with Connection: close to a new request on a kept-alive connection while draining', async () => {
    let headersOut!: () => void;
    const streaming = new Promise<void>((resolve) => (headersOut = resolve));
    let finishStream!: () => void;
    const { app, port } = await start({}, (a) => {
      a.get('/stream', (ctx) => {
        ctx.res.writeHead(200, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
        ctx.res.write('part1;');
        headersOut();
        finishStream = () => ctx.res.end('part2');
      });
      a.get('/fast', (ctx) => ctx.text('fast'));
    });

    const conn = await RawConnection.open(port);
    await conn.write('GET /stream HTTP/1.1\r\nHost: t\r\n\r\n');
    await streaming;
    await conn.until((text) => text.includes('part1;'));
    const closed = app.close();
    // The next request on the same connection arrives while the server drains.
    await conn.write('GET /fast HTTP/1.1\r\nHost: t\r\n\r\n');
    await sleep(50);
    finishStream();
    await conn.untilClosed(2000);
    const first = parseHead(conn.text);
    expect(first.status).toBe(200);
    const second = parseHead(first.rest.slice(first.rest.indexOf('HTTP/1.1 ')));
    expect(second.status).toBe(503);
    expect(second.headers['connection']).toBe('close');
    expect(JSON.parse(second.rest)).toEqual({ error: true, message: 'Server is shutting down', code: 503 });
    await closed;
  });

  it('delivers every pipelined answer of a connection that is busy when close() starts', async () => {
    let entered!: () => void;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    const { app, port } = await start({}, (a) => {
      a.get('/slow', async (ctx) => {
        entered();
        await sleep(150);
        ctx.text('slow');
      });
      a.get('/fast', (ctx) => ctx.text('fast'));
    });
    const conn = await RawConnection.open(port);
    await conn.write('GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n');
    await inFlight;
    const closed = app.close();
    await conn.untilClosed(2000);
    const first = parseHead(conn.text);
    expect(first.status).toBe(200);
    expect(first.rest.startsWith('slow')).toBe(true);
    const second = parseHead(first.rest.slice('slow'.length));
    expect(second.status).toBe(200);
    expect(second.rest).toBe('fast');
    await closed;
  });

  it('cuts requests still running after closeTimeout and resolves', async () => {
    const { app, port } = await start({ closeTimeout: 200 }, (a) => {
      a.get('/hang', () => new Promise<void>(() => undefined));
    });
    const conn = await RawConnection.open(port);
    await conn.write('GET /hang HTTP/1.1\r\nHost: t\r\n\r\n');
    await sleep(20);
    const started = Date.now();
    await app.close();
    // Resolved (the request hangs forever), and not before closeTimeout.
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    await conn.untilClosed(15_000);
  });

  it('resolves at once when the application never listened, and twice-called close shares one promise', async () => {
    const app = new Application();
    const a = app.close();
    expect(app.close()).toBe(a);
    await a;
  });
});
