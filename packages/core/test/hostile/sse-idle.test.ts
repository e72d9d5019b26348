// Many idle server-sent event streams on one process: other requests stay fast, memory per stream
// stays small, streams past the limits are refused, and close() ends them all.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fetchRaw, start, type Started } from './support.js';

const STREAMS = 1000;
/** Ample: jest's open-handle tracking makes closing a thousand sockets slow. */
const CLOSE_TIMEOUT = 20_000;

// Full collections before each reading: without them the heap counts whatever garbage a busy machine
// has not collected yet, not what the streams hold.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Mean time of `n` sequential /ping requests, in ms. */
async function pingMean(port: number, n: number): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < n; i++) expect((await fetchRaw(port, '/ping')).text).toBe('pong');
  return (performance.now() - t) / n;
}

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
    // The baseline of the same machine at the same moment: a loaded laptop is slow for both readings.
    await pingMean(started.port, 20);
    const baseline = await pingMean(started.port, 20);
    gc();
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
    gc();
    // Server and client sides of every connection live in this process: both are counted.
    const perStream = (process.memoryUsage().heapUsed - before) / STREAMS;
    expect(perStream).toBeLessThan(64 * 1024);

    // Idle streams cost the event loop nothing: /ping is about as fast as before they opened.
    const during = await pingMean(started.port, 20);
    expect(during).toBeLessThan(Math.max(10 * baseline, 50));

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
