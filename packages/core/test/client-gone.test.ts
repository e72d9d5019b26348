// A client that leaves before its answer, on real sockets: its request is no server error (no log,
// no error handler, recorded as 499), while a real bug after the client left still is one.
import { setTimeout as sleep } from 'node:timers/promises';
import { Application, type Context } from '../src/index.js';
import { RawConnection } from './http-client.js';

const apps: Application[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

interface Served {
  port: number;
  /** What reached onLog, with the stack of the error when one was given. */
  logged: string[];
  /** The status each request was recorded with (the response hook). */
  statuses: Array<[string, number]>;
  /** The errors the custom error handler was given. */
  handled: unknown[];
}

async function serve(setup: (app: Application) => void): Promise<Served> {
  const served: Omit<Served, 'port'> = { logged: [], statuses: [], handled: [] };
  const app = new Application({
    closeTimeout: 1000,
    onLog: (message, error) => served.logged.push(error instanceof Error ? `${message} ${error.stack}` : message),
  });
  app.register({ name: 'probe', setup: (host) => host.onResponse((ctx, status) => served.statuses.push([ctx.path, status])) });
  app.onError((error, ctx: Context) => {
    served.handled.push(error);
    ctx.json({ error: true }, error.statusCode);
  });
  setup(app);
  apps.push(app);
  return { ...served, port: (await app.listen(0, '127.0.0.1')).port };
}

async function eventually(test: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Sends a GET of `path`, waits until `ready()`, then destroys the socket. */
async function leave(port: number, path: string, ready: () => boolean): Promise<void> {
  const conn = await RawConnection.open(port);
  await conn.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`);
  await eventually(ready);
  conn.destroy();
}

describe('a client that leaves before the answer', () => {
  it('logs nothing, skips the error handler and is recorded as 499 when the handler stops on ctx.signal', async () => {
    let started = false;
    let aborted = false;
    const served = await serve((app) => {
      app.get('/slow', async (ctx) => {
        started = true;
        try {
          await sleep(5000, undefined, { signal: ctx.signal });
        } finally {
          aborted = ctx.signal.aborted;
        }
        ctx.text('too late');
      });
    });
    await leave(served.port, '/slow', () => started);
    await eventually(() => served.statuses.length === 1);
    expect(aborted).toBe(true);
    expect(served.statuses).toEqual([['/slow', 499]]);
    expect(served.logged).toEqual([]);
    expect(served.handled).toEqual([]);
  });

  it('logs nothing and records the status sent when a server-sent events stream loses its client', async () => {
    let sent = 0;
    let finished = false;
    const served = await serve((app) => {
      app.get('/ticks', (ctx) =>
        ctx.sse(
          (async function* () {
            try {
              for (;;) {
                yield { n: ++sent };
                await sleep(10, undefined, { signal: ctx.signal });
              }
            } finally {
              finished = true;
            }
          })(),
        ),
      );
    });
    await leave(served.port, '/ticks', () => sent >= 3);
    await eventually(() => finished && served.statuses.length === 1);
    expect(served.statuses).toEqual([['/ticks', 200]]);
    expect(served.logged).toEqual([]);
  });

  it('still logs, as a 500, a bug that is not the abort (the client having left changes nothing about it)', async () => {
    let started = false;
    const served = await serve((app) => {
      app.get('/buggy', async (ctx) => {
        started = true;
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        throw new TypeError('cannot read properties of undefined');
      });
    });
    await leave(served.port, '/buggy', () => started);
    await eventually(() => served.statuses.length === 1);
    expect(served.statuses).toEqual([['/buggy', 500]]);
    expect(served.logged).toHaveLength(1);
    expect(served.logged[0]).toMatch(/^Error on GET \/buggy TypeError: cannot read properties of undefined\n\s+at /);
    expect(served.handled).toHaveLength(1);
  });
});
