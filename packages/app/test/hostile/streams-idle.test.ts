import { sleep } from './support.js';
import { CLIENTS_WAIT_MS, hardFileLimit, latencies, openFiles, quantile, startChild, type Child } from './streams-support.js';

// 10,000 idle server-sent event streams on a streaming operation's REST route, through real
// sockets. The server and the clients are two child processes (each holds one end of every
// connection, so each needs 10,000 file descriptors; their soft limit is raised to the hard one,
// and the count is sized to it). Bounds: a plain request answered meanwhile with a p99 under 200 ms
// or ten times its p99 just before the streams opened, whichever is larger (a loaded machine is slow
// for both readings), and the server's resident memory grows by less than 32 KiB per idle stream
// (read after full collections in the server; measured: see the log).

/** Room for what else a process holds open (the listening socket, stdio, libuv's own). */
const SPARE_FILES = 256;
const WANTED = 10_000;
const STREAMS = Math.min(WANTED, hardFileLimit() - SPARE_FILES);
const P99_MS = 200;
const SLOWER = 10;
/** Ample for 10,000 connections to open and close on a loaded machine: a wait, not a bound. */
const WAIT_MS = 90_000;
const BYTES_PER_STREAM = 32 * 1024;

const memory = (match: RegExpExecArray): { rss: number; heap: number } => ({ rss: Number(match[1]), heap: Number(match[2]) });
const COUNTS = /counts started=(\d+) finished=(\d+) warnings=(\d+) rejections=(\d+)/;
const MEM = /mem rss=(\d+) heap=(\d+) external=(\d+) started=(\d+) finished=(\d+)/;

describe(`${STREAMS.toLocaleString('en')} idle server-sent event streams (server and clients in child processes)`, () => {
  let server: Child;
  let clients: Child | undefined;

  afterAll(async () => {
    await clients?.stop();
    await server?.stop();
  });

  it('keep the process up and a plain request fast, cost little memory each, and all end with their finally', async () => {
    if (STREAMS < WANTED) console.warn(`Only ${STREAMS} streams: the hard open-file limit is ${hardFileLimit()}`);
    // A heartbeat every second: 10,000 timers writing while the plain requests are timed.
    server = startChild('streams-server.mjs', [JSON.stringify({ maxOpen: STREAMS, maxPerClient: STREAMS, heartbeat: 1000 })], ['--expose-gc']);
    const port = Number((await server.waitFor(/ready port=(\d+)/))[1]);
    await latencies(port, '/ping', 20, 'pong'); // warm
    const pingBefore = await latencies(port, '/ping', 200, 'pong');
    const before = memory(await server.ask('mem', MEM));

    clients = startChild('sse-clients.mjs', [String(port), String(STREAMS), '/idle']);
    const opened = await clients.waitFor(/opened ok=(\d+) refused=(\d+) failed=(\d+)/, CLIENTS_WAIT_MS);
    expect({ ok: Number(opened[1]), refused: Number(opened[2]), failed: Number(opened[3]) }).toEqual({ ok: STREAMS, refused: 0, failed: 0 });
    expect(openFiles(server.process.pid!) ?? STREAMS).toBeGreaterThanOrEqual(STREAMS);

    const times = await latencies(port, '/ping', 200, 'pong');
    const during = memory(await server.ask('mem', MEM));
    const perStream = { rss: (during.rss - before.rss) / STREAMS, heap: (during.heap - before.heap) / STREAMS };
    console.log(
      `${STREAMS} idle SSE streams: /ping before p50 ${quantile(pingBefore, 0.5).toFixed(1)} ms, p99 ${quantile(pingBefore, 0.99).toFixed(1)} ms; meanwhile p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms; ` +
        `server memory per stream: rss ${Math.round(perStream.rss)} B, heap ${Math.round(perStream.heap)} B`,
    );
    expect(quantile(times, 0.99)).toBeLessThan(Math.max(P99_MS, SLOWER * quantile(pingBefore, 0.99)));
    expect(perStream.rss).toBeLessThan(BYTES_PER_STREAM);
    expect(server.process.exitCode).toBeNull();

    // The clients leave at once: every handler's finally runs, and the server is as before.
    await clients.ask('close', /closed/);
    const deadline = Date.now() + WAIT_MS;
    let counts = await server.ask('counts', COUNTS);
    while (Number(counts[2]) < STREAMS && Date.now() < deadline) {
      await sleep(100);
      counts = await server.ask('counts', COUNTS);
    }
    expect({ started: Number(counts[1]), finished: Number(counts[2]), warnings: Number(counts[3]), rejections: Number(counts[4]) }).toEqual({ started: STREAMS, finished: STREAMS, warnings: 0, rejections: 0 });
    expect(await latencies(port, '/ping', 5, 'pong')).toHaveLength(5);

    // Nothing is left open: close() has no stream to wait for, so it ends before its time-out would
    // cut one (the server's closeTimeout, 30 s).
    const closed = await server.ask('close', /closed ms=(\d+)/, 60_000);
    expect(Number(closed[1])).toBeLessThan(30_000);
  }, CLIENTS_WAIT_MS + 3 * WAIT_MS);
});
