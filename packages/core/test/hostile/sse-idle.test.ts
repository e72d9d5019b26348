// Many idle server-sent event streams on one process: other requests stay fast, memory per stream
// stays small, streams past the limits are refused, and close() ends them all.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchRaw, start, type Started } from './support.js';

const STREAMS = 1000;
/** Ample: jest's open-handle tracking makes closing a thousand sockets slow. */
const CLOSE_TIMEOUT = 20_000;

describe('1,000 idle server-sent event streams', () => {
  let started: Started;
  const sockets: Socket[] = [];
  let finished = 0;

  beforeAll(async () => {
    started = await start({ streams: { maxPerClient: STREAMS, maxOpen: STREAMS }, closeTimeout: CLOSE_TIMEOUT }, (app) => {
      app.get('/idle', (ctx) =>
        ctx.sse(
          (async function* () {
            try {
              yield 'open';
              await sleep(3_600_000, undefined, { signal: ctx.signal }).catch(() => undefined);
            } finally {
              finished++;
            }
          })(),
        ),
      );
      app.get('/ping', (ctx) => ctx.text('pong'));
    });
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await started.app.close();
  });

  it('keep other requests fast, cost little memory each, and refuse one more with 429', async () => {
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let opened = 0;
    for (let i = 0; i < STREAMS; i++) {
      const socket = connect(started.port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.once('data', () => opened++);
      socket.write('GET /idle HTTP/1.1\r\nHost: localhost\r\n\r\n');
      sockets.push(socket);
      if (i % 250 === 249) await sleep(20);
    }
    for (let i = 0; i < 500 && opened < STREAMS; i++) await sleep(20);
    expect(opened).toBe(STREAMS);
    global.gc?.();
    // Server and client sides of every connection live in this process: both are counted.
    const perStream = (process.memoryUsage().heapUsed - before) / STREAMS;
    expect(perStream).toBeLessThan(64 * 1024);

    const t = performance.now();
    for (let i = 0; i < 20; i++) expect((await fetchRaw(started.port, '/ping')).text).toBe('pong');
    expect((performance.now() - t) / 20).toBeLessThan(100);

    const refused = await fetchRaw(started.port, '/idle');
    expect(refused.status).toBe(429);
  }, 60_000);

  it('are all ended by close(), which waits for their handlers', async () => {
    const t = performance.now();
    await started.app.close();
    expect(finished).toBe(STREAMS);
    // Done by the streams' own ends, not by cutting connections at the time-out.
    expect(performance.now() - t).toBeLessThan(CLOSE_TIMEOUT);
  }, CLOSE_TIMEOUT + 10_000);
});
