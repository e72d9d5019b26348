// Server-sent events on real sockets: an EventSource client (the `eventsource` package), clients
// that leave, clients that never read, heartbeats, limits and close().
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { Application, tracked, type ApplicationConfig } from '../src/index.js';
import { RawConnection, send } from './http-client.js';

const apps: Application[] = [];

/** An app listening on 127.0.0.1 with `setup`'s routes; closed after each test. */
async function serve(config: ApplicationConfig, setup: (app: Application) => void): Promise<{ app: Application; port: number; logged: string[] }> {
  const logged: string[] = [];
  const app = new Application({ closeTimeout: 2000, ...config, onLog: (message) => logged.push(message) });
  setup(app);
  apps.push(app);
  const { port } = await app.listen(0, '127.0.0.1');
  return { app, port, logged };
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** Resolves once `test()` holds, polling; rejects after `ms`. */
async function eventually(test: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** A GET of `path` on a raw connection. */
async function openStream(port: number, path: string, headers = ''): Promise<RawConnection> {
  const conn = await RawConnection.open(port);
  await conn.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n${headers}\r\n`);
  return conn;
}

describe('server-sent events over the wire', () => {
  it('reach an EventSource client, which reconnects with Last-Event-ID and resumes after it', async () => {
    const seenAfter: Array<string | undefined> = [];
    const { port } = await serve({ streams: { retry: 50 } }, (app) => {
      app.get('/orders/events', (ctx) => {
        seenAfter.push(ctx.lastEventId);
        const from = Number(ctx.lastEventId ?? 0);
        return ctx.sse(
          (async function* () {
            // Two events per connection; the stream then ends and the client reconnects.
            for (let id = from + 1; id <= from + 2; id++) yield tracked(String(id), { id, status: 'paid' });
          })(),
        );
      });
    });
    const source = new EventSource(`http://127.0.0.1:${port}/orders/events`);
    const received: Array<[string, unknown]> = [];
    source.onmessage = (event) => received.push([event.lastEventId, JSON.parse(event.data as string)]);
    try {
      await eventually(() => received.length >= 4);
    } finally {
      source.close();
    }
    expect(received.slice(0, 4)).toEqual([
      ['1', { id: 1, status: 'paid' }],
      ['2', { id: 2, status: 'paid' }],
      ['3', { id: 3, status: 'paid' }],
      ['4', { id: 4, status: 'paid' }],
    ]);
    expect(seenAfter.slice(0, 2)).toEqual([undefined, '2']);
  });

  it('deliver an error after the first event as an "error" event with the error body', async () => {
    const { port } = await serve({ streams: { retry: 60_000 } }, (app) => {
      app.get('/fails', (ctx) =>
        ctx.sse(
          (async function* () {
            yield 'first';
            throw Object.assign(new Error('Order was cancelled'), { statusCode: 409 });
          })(),
        ),
      );
    });
    const source = new EventSource(`http://127.0.0.1:${port}/fails`);
    const errors: unknown[] = [];
    source.addEventListener('error', (event) => {
      if ('data' in event && typeof event.data === 'string') errors.push(JSON.parse(event.data));
    });
    try {
      await eventually(() => errors.length === 1);
    } finally {
      source.close();
    }
    expect(errors).toEqual([{ error: true, message: 'Order was cancelled', code: 409 }]);
  });

  it("abort ctx.signal and run the handler's finally when the client leaves mid-stream, even while it waits", async () => {
    let aborted = false;
    let finished = false;
    const { port } = await serve({ streams: { maxPerClient: 1 } }, (app) => {
      app.get('/live', (ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        return ctx.sse(
          (async function* () {
            try {
              yield 'hello';
              // Waits for an event that never comes, as a subscription does, until the signal fires.
              await sleep(60_000, undefined, { signal: ctx.signal });
              yield 'never';
            } finally {
              finished = true;
            }
          })(),
        );
      });
    });
    const conn = await openStream(port, '/live');
    await conn.until((text) => text.includes('data: "hello"'));
    conn.destroy();
    await eventually(() => aborted && finished);
    // The stream's slot is free again: the same client may open another.
    const next = await openStream(port, '/live');
    await next.until((text) => text.includes('data: "hello"'));
    next.destroy();
  });

  it('end the stream of a client that never reads, with bounded memory, and run the finally', async () => {
    let yielded = 0;
    let finished = false;
    const chunk = 'x'.repeat(64 * 1024);
    const { port, logged } = await serve({ streams: { stallTimeout: 300 } }, (app) => {
      app.get('/firehose', (ctx) =>
        ctx.sse(
          (async function* () {
            try {
              for (;;) {
                yielded++;
                yield chunk;
              }
            } finally {
              finished = true;
            }
          })(),
        ),
      );
    });
    const socket: Socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /firehose HTTP/1.1\r\nHost: localhost\r\n\r\n');
    // Never read: the server's writes back up.
    socket.pause();
    await eventually(() => finished, 10_000);
    // Only what the socket buffers took was produced: the server did not keep pulling events.
    expect(yielded * chunk.length).toBeLessThan(64 * 1024 * 1024);
    expect(logged).toEqual(['Ended the stream of GET /firehose: the client read nothing for 300 ms (streams.stallTimeout)']);
    socket.destroy();
  });

  it('end the stream when more than streams.maxBufferedBytes wait unsent for a client that does not read', async () => {
    let finished = false;
    const chunk = 'y'.repeat(64 * 1024);
    const { port, logged } = await serve({ streams: { maxBufferedBytes: 32 * 1024, stallTimeout: 500 } }, (app) => {
      app.get('/firehose', (ctx) =>
        ctx.sse(
          (async function* () {
            try {
              for (;;) yield chunk;
            } finally {
              finished = true;
            }
          })(),
        ),
      );
    });
    const socket: Socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /firehose HTTP/1.1\r\nHost: localhost\r\n\r\n');
    socket.pause();
    // Past the bound the stream waits for the client to take what waits; taking nothing for
    // stallTimeout ends it, with the bound as the reason.
    await eventually(() => finished, 10_000);
    expect(logged).toEqual(['Ended the stream of GET /firehose: more than 32768 bytes (streams.maxBufferedBytes) were waiting for the client']);
    socket.destroy();
  });

  it('send comment heartbeats while no event comes, and headers before the first event', async () => {
    const { port } = await serve({ streams: { heartbeat: 50 } }, (app) => {
      app.get('/quiet', (ctx) =>
        ctx.sse(
          (async function* () {
            await sleep(60_000, undefined, { signal: ctx.signal });
            yield 'never';
          })(),
        ),
      );
    });
    const conn = await openStream(port, '/quiet');
    const text = await conn.until((t) => (t.match(/\r\n:\n\n\r\n/g) ?? []).length >= 2);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('content-type: text/event-stream; charset=utf-8');
    expect(text).toContain('retry: 3000\n\n');
    conn.destroy();
  });

  it('answer 429 past streams.maxPerClient with the JSON error body', async () => {
    const { port } = await serve({ streams: { maxPerClient: 2 } }, (app) => {
      app.get('/live', (ctx) =>
        ctx.sse(
          (async function* () {
            yield 'hello';
            await sleep(60_000, undefined, { signal: ctx.signal });
          })(),
        ),
      );
    });
    const open = [await openStream(port, '/live'), await openStream(port, '/live')];
    await Promise.all(open.map((conn) => conn.until((text) => text.includes('"hello"'))));
    const refused = await send(port, { path: '/live' });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toEqual({ error: true, message: 'Too many open streams for this client (at most 2)', code: 429 });
    for (const conn of open) conn.destroy();
  });

  it("outlive the request time-out: a stream is a response, not a slow request", async () => {
    const { port } = await serve({ timeouts: { request: 300, headers: 300 } }, (app) => {
      app.get('/slow', (ctx) =>
        ctx.sse(
          (async function* () {
            for (let i = 0; i < 4; i++) {
              yield i;
              await sleep(200);
            }
          })(),
        ),
      );
    });
    const res = await send(port, { path: '/slow' });
    expect(res.text).toBe('retry: 3000\n\ndata: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n');
  });

  it('end with a retry hint when the app closes, and close() waits for the handlers to finish', async () => {
    const finished: number[] = [];
    const { app, port } = await serve({ streams: { retry: 1234 } }, (a) => {
      a.get('/live/:n', (ctx) =>
        ctx.sse(
          (async function* () {
            try {
              yield 'hello';
              await sleep(60_000, undefined, { signal: ctx.signal }).catch(() => undefined);
            } finally {
              // Cleaning up takes a while (longer than the server's own drain); close() waits for it.
              await sleep(800);
              finished.push(Number((ctx.params as { n: string }).n));
            }
          })(),
        ),
      );
    });
    const open = [await openStream(port, '/live/1'), await openStream(port, '/live/2')];
    await Promise.all(open.map((conn) => conn.until((text) => text.includes('"hello"'))));
    await app.close();
    expect(finished.sort()).toEqual([1, 2]);
    for (const conn of open) {
      await conn.untilClosed();
      expect(conn.text).toMatch(/data: "hello"\n\n\r\n[0-9a-f]+\r\nretry: 1234\n\n\r\n0\r\n\r\n$/);
    }
  });

  it('runs the README example: ticks resumed after the last id seen', async () => {
    // --- README example (Server-sent events), with port 0 on 127.0.0.1 and the finally recorded
    let finished = false;
    const app = new Application({ streams: { heartbeat: 15_000 } });
    app.get('/ticks', (ctx) =>
      ctx.sse(
        (async function* () {
          let n = Number(ctx.lastEventId ?? 0);
          try {
            for (;;) {
              yield tracked(String(++n), { n, at: new Date().toISOString() });
              await sleep(10, undefined, { signal: ctx.signal });
            }
          } finally {
            finished = true;
          }
        })(),
      ),
    );
    apps.push(app);
    const { port } = await app.listen(0, '127.0.0.1');
    // --- README example ends
    const conn = await openStream(port, '/ticks', 'Last-Event-ID: 41\r\n');
    await conn.until((text) => text.includes('id: 43\n'));
    expect(conn.text).toMatch(/id: 42\ndata: \{"n":42,"at":"[^"]+"\}\n\n/);
    conn.destroy();
    await eventually(() => finished);
  });
});
