import { fetchRaw, RawSocket, sleep, start, type Started } from './support.js';

// Slow clients are cut off by the server's time-outs while everyone else keeps being served.
// The app uses small time-outs; node checks them once per second at most, so a cut comes between
// the time-out and one second after it on a quiet machine. A busy one only delays the cut: the
// lifetimes are bounded below (never before the time-out), the 408 tells which time-out cut, and the
// waits for the cut are ample. The other clients' latency is compared with theirs just before.

const HEADERS_MS = 1000;
const REQUEST_MS = 1500;
const CHECK_INTERVAL_MS = 1000;
/** How long past its time-out a cut may take on a loaded machine: a wait, not a bound. */
const SLACK_MS = 15_000;

describe('time-outs against slow clients', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start({ timeouts: { headers: HEADERS_MS, request: REQUEST_MS, keepAlive: 1000 } }, (app) => {
      app.get('/ok', (ctx) => ctx.text('ok'));
      app.post('/echo', (ctx) => ctx.json({ body: ctx.body ?? null }));
    });
  });

  afterAll(async () => {
    await server.app.close();
  });

  /** Requests `/ok` every 50 ms until `done` resolves; resolves with every status and the worst latency. */
  async function keepAsking(done: Promise<unknown>): Promise<{ statuses: number[]; worst: number }> {
    let finished = false;
    void done.finally(() => (finished = true));
    const statuses: number[] = [];
    let worst = 0;
    while (!finished) {
      const started = Date.now();
      statuses.push((await fetchRaw(server.port, '/ok')).status);
      worst = Math.max(worst, Date.now() - started);
      await sleep(50);
    }
    return { statuses, worst };
  }

  /** The worst of 20 sequential /ok requests now, before any slow client: the same machine at the same moment. */
  async function baselineWorst(): Promise<number> {
    let worst = 0;
    for (let i = 0; i < 20; i++) {
      const started = Date.now();
      expect((await fetchRaw(server.port, '/ok')).status).toBe(200);
      worst = Math.max(worst, Date.now() - started);
    }
    return worst;
  }

  /** A slowloris client: sends its request head one byte every `everyMs`, never finishing. */
  async function slowloris(everyMs: number): Promise<{ socket: RawSocket; openedAt: number }> {
    const socket = await RawSocket.open(server.port);
    const openedAt = Date.now();
    const head = 'GET /ok HTTP/1.1\r\nHost: t\r\nX-Slow: ' + 'a'.repeat(100);
    void (async () => {
      for (const byte of head) {
        if (socket.closed) return;
        await socket.write(byte).catch(() => undefined);
        await sleep(everyMs);
      }
    })();
    return { socket, openedAt };
  }

  it('cuts off slowloris clients (one header byte a second) with 408 after the header time-out, serving others meanwhile', async () => {
    await baselineWorst(); // warm
    const baseline = await baselineWorst();
    // Fifty of them at once: the server's connections are not exhausted.
    const clients = await Promise.all(Array.from({ length: 50 }, () => slowloris(1000)));
    const closings = Promise.all(clients.map(async ({ socket, openedAt }) => (await socket.untilClosed(HEADERS_MS + CHECK_INTERVAL_MS + SLACK_MS)) - openedAt));
    const others = await keepAsking(closings);
    const lifetimes = await closings;
    for (const lifetime of lifetimes) expect(lifetime).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    // 408: the header time-out cut them, not the client nor the request time-out.
    for (const { socket } of clients) expect(socket.statuses).toEqual([408]);
    expect(others.statuses.length).toBeGreaterThan(5);
    expect(others.statuses.every((s) => s === 200)).toBe(true);
    // Fifty slow clients cost the others little: their worst request within 1 s, or ten times the
    // worst of just before on a machine slower than that.
    expect(others.worst).toBeLessThan(Math.max(1000, 10 * baseline));
  }, 60_000);

  it('cuts off, side by side, a silent connection, a stalled half body and a Content-Length that lies, serving others meanwhile', async () => {
    const silent = await RawSocket.open(server.port);
    const halfBody = await RawSocket.open(server.port);
    const liar = await RawSocket.open(server.port);
    const openedAt = Date.now();
    // Half of a 100-byte body, then nothing.
    await halfBody.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n' + 'a'.repeat(50));
    // A complete JSON value, but Content-Length promises 1000 bytes.
    await liar.write('POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":1}');
    const limit = REQUEST_MS + CHECK_INTERVAL_MS + SLACK_MS;
    const closings = Promise.all([silent, halfBody, liar].map(async (socket) => (await socket.untilClosed(limit)) - openedAt));
    const others = await keepAsking(closings);
    const [silentLife, halfBodyLife, liarLife] = await closings;

    // The silent connection never started its headers: the header time-out, not before it.
    expect(silentLife).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    // The other two sent their headers: the request time-out, answered 408.
    for (const life of [halfBodyLife!, liarLife!]) expect(life).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(halfBody.statuses).toEqual([408]);
    expect(liar.statuses).toEqual([408]);
    expect(others.statuses.length).toBeGreaterThan(5);
    expect(others.statuses.every((s) => s === 200)).toBe(true);
    // A body cut short is the client's failure: nothing was logged as a server error.
    expect(server.logged).toEqual([]);
  }, 60_000);
});
