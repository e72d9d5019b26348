import type { Socket } from 'node:net';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { Application } from '../../src/index.js';
import { RawSocket, sleep } from '../hostile/support.js';

// close() under load: 200 requests in flight over ten kept-alive connections (twenty pipelined on
// each), plus idle kept-alive connections. Every in-flight request gets its real answer, new
// connections are refused, and every kept-alive connection is closed by the server.

const CONNECTIONS = 10;
const PER_CONNECTION = 20;

/** Resolves with the error code of a connection attempt, or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('close() with 200 requests in flight', () => {
  it('answers every in-flight request, refuses new connections and closes kept-alive ones', async () => {
    let started = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const app = new Application({ onLog: () => undefined });
    app.get('/work/:id', async (ctx) => {
      started++;
      await gate;
      ctx.json({ id: ctx.params.id });
    });
    app.get('/ok', (ctx) => ctx.text('ok'));
    const { port } = await app.listen(0, '127.0.0.1');

    // Two idle kept-alive connections, each with one finished request behind it.
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    const idleSockets = new Set<Socket>();
    await Promise.all(
      [0, 1].map(
        () =>
          new Promise<void>((resolve, reject) => {
            const req = request({ host: '127.0.0.1', port, path: '/ok', agent }, (res) => {
              idleSockets.add(res.socket);
              res.resume();
              res.on('end', resolve);
            });
            req.on('error', reject);
            req.end();
          }),
      ),
    );
    const idleClosed = [...idleSockets].map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())));

    // 200 requests in flight: twenty pipelined on each of ten connections.
    const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => RawSocket.open(port)));
    await Promise.all(
      sockets.map((socket, c) => {
        let requests = '';
        for (let i = 0; i < PER_CONNECTION; i++) requests += `GET /work/${c}-${i} HTTP/1.1\r\nHost: t\r\n\r\n`;
        return socket.write(requests);
      }),
    );
    // A wait, not a speed bound: a loaded machine takes its time to start them all.
    const deadline = Date.now() + 15_000;
    while (started < CONNECTIONS * PER_CONNECTION && Date.now() < deadline) await sleep(5);
    expect(started).toBe(CONNECTIONS * PER_CONNECTION);

    const closed = app.close();
    // Listening stops at once: new connections are refused while the requests drain.
    expect(await tryConnect(port)).toBe('ECONNREFUSED');
    await sleep(100);
    release();
    await closed;

    for (const [c, socket] of sockets.entries()) {
      await socket.untilClosed();
      expect(socket.statuses).toEqual(Array<number>(PER_CONNECTION).fill(200));
      const bodies = [...socket.text.matchAll(/\{"id":"([^"]+)"\}/g)].map((m) => m[1]);
      expect(bodies).toEqual(Array.from({ length: PER_CONNECTION }, (_, i) => `${c}-${i}`));
      // Only the last response on the connection says Connection: close; node then closes it.
      expect(socket.text.match(/\r\nConnection: close\r\n/gi)).toHaveLength(1);
      expect(socket.text.trimEnd().endsWith(`{"id":"${c}-${PER_CONNECTION - 1}"}`)).toBe(true);
    }
    await Promise.all(idleClosed);
    agent.destroy();
  });

  it('answers 503 with Connection: close to requests that arrive on a kept-alive connection while draining, after the in-flight ones', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const app = new Application({ onLog: () => undefined });
    app.get('/work', async (ctx) => {
      started++;
      await gate;
      ctx.text('done');
    });
    const { port } = await app.listen(0, '127.0.0.1');
    const socket = await RawSocket.open(port);
    await socket.write('GET /work HTTP/1.1\r\nHost: t\r\n\r\n');
    while (started < 1) await sleep(5);
    const closed = app.close();
    // Pipelined behind the in-flight one, after close() began.
    await socket.write('GET /work HTTP/1.1\r\nHost: t\r\n\r\n');
    await sleep(50);
    release();
    await closed;
    await socket.untilClosed();
    expect(socket.statuses).toEqual([200, 503]);
    expect(socket.text).toContain('done');
    expect(socket.text).toContain('"message":"Server is shutting down"');
    expect(started).toBe(1);
  });
});
