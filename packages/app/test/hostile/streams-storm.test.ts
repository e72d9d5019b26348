import { sleep } from './support.js';
import { CLIENTS_WAIT_MS, startChild, type Child } from './streams-support.js';

// A reconnect storm: 2,000 server-sent event clients connect to a streaming operation's route at
// once and leave at once (after their first event, or before any answer), round after round for
// four seconds (and at least one round of each kind, however slow the machine). Afterwards every handler that started has run its finally, the registry holds no
// slot (exactly streams.maxOpen streams open again, none refused), and the server printed no
// MaxListenersExceededWarning (or any warning) and no unhandled rejection.

const CLIENTS = 2000;
const STORM_MS = 4000;
/** Ample for rounds of 2,000 connections on a loaded machine: a wait, not a bound. */
const WAIT_MS = 90_000;
const COUNTS = /counts started=(\d+) finished=(\d+) warnings=(\d+) rejections=(\d+)/;

describe(`a reconnect storm of ${CLIENTS.toLocaleString('en')} server-sent event clients (child processes)`, () => {
  const children: Child[] = [];

  afterAll(async () => {
    await Promise.all(children.map((child) => child.stop()));
  });

  it('leaks no registry slot, no listener and no rejection', async () => {
    const server = startChild('streams-server.mjs', [JSON.stringify({ maxOpen: CLIENTS, maxPerClient: CLIENTS, heartbeat: 500 })]);
    children.push(server);
    const port = (await server.waitFor(/ready port=(\d+)/))[1]!;

    const storm = startChild('sse-storm.mjs', [port, String(CLIENTS), String(STORM_MS)]);
    children.push(storm);
    const result = await storm.waitFor(/storm rounds=(\d+) ok=(\d+) refused=(\d+) failed=(\d+)/, STORM_MS + WAIT_MS);
    console.log(result[0]);
    expect(Number(result[1])).toBeGreaterThanOrEqual(2);
    expect(Number(result[2])).toBeGreaterThan(0);

    // Every handler that started finishes.
    const deadline = Date.now() + WAIT_MS;
    let counts = await server.ask('counts', COUNTS);
    while (counts[1] !== counts[2] && Date.now() < deadline) {
      await sleep(100);
      counts = await server.ask('counts', COUNTS);
    }
    console.log(counts[0]);
    expect({ finished: Number(counts[2]), warnings: Number(counts[3]), rejections: Number(counts[4]) }).toEqual({ finished: Number(counts[1]), warnings: 0, rejections: 0 });

    // No slot leaked: all of streams.maxOpen open again.
    const again = startChild('sse-clients.mjs', [port, String(CLIENTS), '/idle']);
    children.push(again);
    const opened = await again.waitFor(/opened ok=(\d+) refused=(\d+) failed=(\d+) statuses=(\S+)/, CLIENTS_WAIT_MS);
    expect({ ok: Number(opened[1]), refused: Number(opened[2]), failed: Number(opened[3]) }).toEqual({ ok: CLIENTS, refused: 0, failed: 0 });
    await again.ask('close', /closed/);
    const closed = await server.ask('close', /closed ms=(\d+) started=(\d+) finished=(\d+) warnings=(\d+) rejections=(\d+)/, 60_000);
    expect({ finished: Number(closed[3]), warnings: Number(closed[4]), rejections: Number(closed[5]) }).toEqual({ finished: Number(closed[2]), warnings: 0, rejections: 0 });
    expect(server.output()).not.toMatch(/MaxListenersExceeded|unhandledRejection/);
  }, CLIENTS_WAIT_MS + 4 * WAIT_MS);
});
