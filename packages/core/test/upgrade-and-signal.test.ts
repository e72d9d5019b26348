// On real sockets: upgrade requests taken by a plugin (host.onUpgrade) or refused, and ctx.signal
// on a plain request whose client leaves.
import { setTimeout as sleep } from 'node:timers/promises';
import { Application } from '../src/index.js';
import type { PluginHost } from '../src/plugin.js';
import { parseHead, RawConnection, send } from './http-client.js';

const apps: Application[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** An app with a plugin whose host `setup` gets, listening on 127.0.0.1. */
async function serve(setup: (app: Application, host: PluginHost) => void): Promise<number> {
  const app = new Application({ closeTimeout: 500, onLog: () => undefined });
  app.register({ name: 'probe', setup: (host) => setup(app, host) });
  apps.push(app);
  return (await app.listen(0, '127.0.0.1')).port;
}

const UPGRADE = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

describe('host.onUpgrade()', () => {
  it("hands an upgrade request on its path (any query) to the plugin, with the socket and the head's bytes", async () => {
    const seen: string[] = [];
    const port = await serve((_app, host) => {
      host.onUpgrade('/live', (req, socket, head) => {
        seen.push(`${req.url} ${head.length}`);
        socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nhello');
      });
    });
    const conn = await RawConnection.open(port);
    await conn.write(`GET /live?token=1 HTTP/1.1\r\nHost: localhost\r\n${UPGRADE}\r\n`);
    await conn.untilClosed();
    expect(parseHead(conn.text).status).toBe(101);
    expect(conn.text.endsWith('hello')).toBe(true);
    expect(seen).toEqual(['/live?token=1 0']);
  });

  it('refuses an upgrade on a path no plugin took with 404 and closes the socket; plain requests are served as before', async () => {
    const port = await serve((app, host) => {
      host.onUpgrade('/live', (_req, socket) => socket.destroy());
      app.get('/other', (ctx) => ctx.json({ ok: true }));
    });
    const conn = await RawConnection.open(port);
    await conn.write(`GET /other HTTP/1.1\r\nHost: localhost\r\n${UPGRADE}\r\n`);
    await conn.untilClosed();
    const { status, headers, rest } = parseHead(conn.text);
    expect([status, headers.connection]).toEqual([404, 'close']);
    expect(JSON.parse(rest)).toEqual({ error: true, message: 'Not Found', code: 404 });
    expect((await send(port, { path: '/other' })).text).toBe('{"ok":true}');
  });

  it('leaves upgrade requests to the routes while no plugin takes upgrades', async () => {
    const port = await serve((app) => app.get('/plain', (ctx) => ctx.text('plain')));
    const res = await send(port, { path: '/plain', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
    expect([res.status, res.text]).toEqual([200, 'plain']);
  });

  it('cuts an upgraded connection its plugin left open when close() reaches closeTimeout', async () => {
    const app = new Application({ closeTimeout: 300, onLog: () => undefined });
    app.register({
      name: 'holds',
      setup: (host) => host.onUpgrade('/live', (_req, socket) => void socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n')),
    });
    const { port } = await app.listen(0, '127.0.0.1');
    const conn = await RawConnection.open(port);
    await conn.write(`GET /live HTTP/1.1\r\nHost: localhost\r\n${UPGRADE}\r\n`);
    await conn.until((text) => text.includes('101 Switching Protocols'));
    const start = Date.now();
    await app.close();
    // Resolved (the plugin never closes the socket), and not before closeTimeout.
    expect(Date.now() - start).toBeGreaterThanOrEqual(250);
    await conn.untilClosed();
  });

  it('takes one handler per path and checks its arguments', async () => {
    await serve((_app, host) => {
      host.onUpgrade('/live', () => undefined);
      expect(() => host.onUpgrade('/live', () => undefined)).toThrow('Upgrades on /live are already taken');
      expect(() => host.onUpgrade('live', () => undefined)).toThrow('onUpgrade expects a path starting with "/", got live');
      const untyped = host.onUpgrade as (this: PluginHost, path: string, handler: unknown) => unknown;
      expect(() => untyped.call(host, '/x', 'no')).toThrow('onUpgrade expects a handler function');
    });
  });
});

describe('ctx.signal', () => {
  it('aborts when the client of a plain request leaves before the answer', async () => {
    let reason: unknown;
    const port = await serve((app) => {
      app.get('/slow', async (ctx) => {
        const signal = ctx.signal;
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        reason = signal.reason;
        ctx.text('too late');
      });
    });
    const conn = await RawConnection.open(port);
    await conn.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await sleep(50);
    conn.destroy();
    for (let i = 0; i < 100 && reason === undefined; i++) await sleep(10);
    expect(reason).toMatchObject({ name: 'AbortError', message: 'The client closed the connection' });
  });

  it('does not abort for a request answered in full', async () => {
    let signal: AbortSignal | undefined;
    const port = await serve((app) => {
      app.get('/fast', (ctx) => {
        signal = ctx.signal;
        ctx.text('ok');
      });
    });
    expect((await send(port, { path: '/fast' })).text).toBe('ok');
    await sleep(20);
    expect(signal?.aborted).toBe(false);
  });

  it('costs a request that never reads it nothing: no AbortController is made', async () => {
    const port = await serve((app) => app.get('/plain', (ctx) => ctx.text('plain')));
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    try {
      expect((await send(port, { path: '/plain' })).text).toBe('plain');
    } finally {
      globalThis.AbortController = Original;
    }
    expect(made).toBe(0);
  });
});
