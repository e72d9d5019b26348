import { IncomingMessage, ServerResponse } from 'node:http';
import { connect, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Application, Context, HTTPError } from '@fw/core';
import { callContext, runOnCall } from '../test/contexts.js';
import { send, start } from '../test/http.js';
import { logger } from './index.js';
import type { LoggerConfig } from './index.js';

const ESC = '\u001b';

/** A stream-like target that records what is written. */
function fakeStream(isTTY: boolean): { write(chunk: string): boolean; isTTY: boolean; chunks: string[] } {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (chunk: string) => chunks.push(chunk) > 0 };
}

async function withLogger(config: LoggerConfig, fn: (url: string) => Promise<void>): Promise<void> {
  const app = new Application({ onLog: () => undefined });
  app.use(logger(config));
  app.get('/ok', (ctx) => ctx.json({ ok: true }));
  app.post('/created', (ctx) => ctx.json({ id: 1 }, 201));
  app.get('/moved', (ctx) => {
    ctx.setHeader('location', '/ok');
    ctx.status(302).text('moved');
  });
  app.get('/bad', (ctx) => ctx.json({ error: true }, 400));
  app.get('/down', (ctx) => ctx.json({ error: true }, 503));
  app.get('/slow', async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 40));
    ctx.text('slow');
  });
  app.get('/boom', () => {
    throw new Error('kaboom');
  });
  app.get('/gone', () => {
    throw new HTTPError(410, 'Gone for good');
  });
  const url = await start(app);
  try {
    await fn(url);
  } finally {
    await app.close();
  }
}

const COLOR_VARIABLES = ['NO_COLOR', 'FORCE_COLOR', 'NODE_DISABLE_COLORS', 'TERM'] as const;

describe('logger()', () => {
  const saved = Object.fromEntries(COLOR_VARIABLES.map((name) => [name, process.env[name]]));
  // Every test starts with no colour variable set (jest itself may set FORCE_COLOR in workers).
  beforeEach(() => {
    for (const name of COLOR_VARIABLES) delete process.env[name];
  });
  afterEach(() => {
    for (const name of COLOR_VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('logs one line per request as "[<status>] <method> <path> - <duration>ms" to a function', async () => {
    const lines: string[] = [];
    await withLogger({ stream: (line) => lines.push(line) }, async (url) => {
      await send(`${url}/ok?page=2`);
      await send(`${url}/created`, { method: 'POST' });
      await send(`${url}/missing`);
    });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\[200\] GET \/ok - \d+ms$/);
    expect(lines[1]).toMatch(/^\[201\] POST \/created - \d+ms$/);
    // An unmatched request is logged with the 404 the framework sends.
    expect(lines[2]).toMatch(/^\[404\] GET \/missing - \d+ms$/);
  });

  it('measures the time the rest of the chain took', async () => {
    const lines: string[] = [];
    let roundTrip = 0;
    await withLogger({ stream: (line) => lines.push(line) }, async (url) => {
      const started = performance.now();
      await send(`${url}/slow`);
      roundTrip = performance.now() - started;
    });
    const ms = Number(/- (\d+)ms$/.exec(lines[0]!)?.[1]);
    expect(ms).toBeGreaterThanOrEqual(35);
    // No more than the client waited for the whole exchange (+1: the log rounds).
    expect(ms).toBeLessThanOrEqual(Math.ceil(roundTrip) + 1);
  });

  it('writes lines ending in a newline to a stream', async () => {
    const stream = fakeStream(false);
    await withLogger({ stream }, async (url) => {
      await send(`${url}/ok`);
    });
    expect(stream.chunks).toHaveLength(1);
    expect(stream.chunks[0]).toMatch(/^\[200\] GET \/ok - \d+ms\n$/);
  });

  it('writes to process.stdout by default', async () => {
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await withLogger({}, async (url) => {
        await send(`${url}/ok`);
      });
      const written = write.mock.calls.map((call) => String(call[0])).filter((chunk) => chunk.includes('GET /ok'));
      expect(written).toHaveLength(1);
      expect(written[0]).toMatch(/\[200\].* GET \/ok - \d+ms\n$/);
    } finally {
      write.mockRestore();
    }
  });

  it('colours the status green, cyan, yellow and red on a TTY without NO_COLOR', async () => {
    delete process.env.NO_COLOR;
    const stream = fakeStream(true);
    await withLogger({ stream }, async (url) => {
      await send(`${url}/ok`);
      await send(`${url}/moved`);
      await send(`${url}/bad`);
      await send(`${url}/down`);
    });
    expect(stream.chunks[0]).toMatch(new RegExp(`^${ESC}\\[32m\\[200\\]${ESC}\\[39m GET /ok - \\d+ms\\n$`));
    expect(stream.chunks[1]).toMatch(new RegExp(`^${ESC}\\[36m\\[302\\]${ESC}\\[39m GET /moved - \\d+ms\\n$`));
    expect(stream.chunks[2]).toMatch(new RegExp(`^${ESC}\\[33m\\[400\\]${ESC}\\[39m GET /bad - \\d+ms\\n$`));
    expect(stream.chunks[3]).toMatch(new RegExp(`^${ESC}\\[31m\\[503\\]${ESC}\\[39m GET /down - \\d+ms\\n$`));
  });

  it('does not colour when NO_COLOR is set, even on a TTY', async () => {
    process.env.NO_COLOR = '1';
    const stream = fakeStream(true);
    await withLogger({ stream }, async (url) => {
      await send(`${url}/ok`);
      await send(`${url}/boom`);
    });
    expect(stream.chunks.join('')).not.toContain(ESC);
    expect(stream.chunks[0]).toMatch(/^\[200\] GET \/ok - \d+ms\n$/);
  });

  it('does not colour when the stream is not a TTY, nor for a function target', async () => {
    delete process.env.NO_COLOR;
    const stream = fakeStream(false);
    const lines: string[] = [];
    await withLogger({ stream }, async (url) => {
      await send(`${url}/bad`);
    });
    await withLogger({ stream: (line) => lines.push(line) }, async (url) => {
      await send(`${url}/bad`);
    });
    expect(stream.chunks[0]).toMatch(/^\[400\] GET \/bad - \d+ms\n$/);
    expect(lines[0]).toMatch(/^\[400\] GET \/bad - \d+ms$/);
  });

  it('follows the colors option over the automatic choice', async () => {
    process.env.NO_COLOR = '1';
    const lines: string[] = [];
    await withLogger({ stream: (line) => lines.push(line), colors: true }, async (url) => {
      await send(`${url}/ok`);
    });
    expect(lines[0]).toMatch(new RegExp(`^${ESC}\\[32m\\[200\\]${ESC}\\[39m GET /ok`));
    delete process.env.NO_COLOR;
    const tty = fakeStream(true);
    await withLogger({ stream: tty, colors: false }, async (url) => {
      await send(`${url}/ok`);
    });
    expect(tty.chunks[0]).toMatch(/^\[200\] GET \/ok - \d+ms\n$/);
  });

  it('logs a thrown error as [ERROR] with the error text and stack, and re-throws it to the error handler', async () => {
    const lines: string[] = [];
    await withLogger({ stream: (line) => lines.push(line) }, async (url) => {
      const res = await send(`${url}/boom`);
      expect(res.status).toBe(500);
      expect(res.json()).toEqual({ error: true, message: 'Internal Server Error', code: 500 });
    });
    expect(lines).toHaveLength(1);
    const [first, ...stack] = lines[0]!.split('\n');
    expect(first).toMatch(/^\[ERROR\] GET \/boom - \d+ms Error: kaboom$/);
    expect(stack.length).toBeGreaterThan(0);
    expect(stack[0]).toMatch(/^\s+at /);
    expect(lines[0]).toContain('logger.test.ts');
  });

  it('logs a request whose client left as the plain line of status 499, without an error or a stack', async () => {
    const lines: string[] = [];
    const logged: unknown[] = [];
    let started = false;
    const app = new Application({ onLog: (message) => logged.push(message) });
    app.use(logger({ stream: (line) => lines.push(line) }));
    app.get('/leave', async (ctx) => {
      started = true;
      await sleep(5000, undefined, { signal: ctx.signal });
      ctx.text('too late');
    });
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write('GET /leave HTTP/1.1\r\nHost: localhost\r\n\r\n');
      for (let i = 0; i < 300 && !started; i++) await sleep(10);
      socket.destroy();
      for (let i = 0; i < 300 && lines.length === 0; i++) await sleep(10);
    } finally {
      await app.close();
    }
    expect(lines).toEqual([expect.stringMatching(/^\[499\] GET \/leave - \d+ms$/)]);
    expect(logged).toEqual([]);
  });

  it('logs a thrown 4xx HTTPError with its status and stack, while the client gets its status and body', async () => {
    const lines: string[] = [];
    await withLogger({ stream: (line) => lines.push(line) }, async (url) => {
      const res = await send(`${url}/gone`);
      expect(res.status).toBe(410);
      expect(res.json()).toEqual({ error: true, message: 'Gone for good', code: 410 });
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[ERROR\] GET \/gone - \d+ms HTTPError 410: Gone for good\n\s+at .*logger\.test\.ts/);
  });

  it('logs a thrown 4xx HTTPError as one line without its stack with clientErrorStacks: false, and 5xx HTTPErrors still with it', async () => {
    const lines: string[] = [];
    await withLogger({ stream: (line) => lines.push(line), clientErrorStacks: false }, async (url) => {
      await send(`${url}/gone`);
    });
    expect(lines).toEqual([expect.stringMatching(/^\[ERROR\] GET \/gone - \d+ms HTTPError 410: Gone for good$/)]);
    const app = new Application({ onLog: () => undefined });
    app.use(logger({ stream: (line) => lines.push(line), clientErrorStacks: false }));
    app.get('/unavailable', () => {
      throw new HTTPError(503, 'Down for maintenance');
    });
    const url = await start(app);
    try {
      expect((await send(`${url}/unavailable`)).status).toBe(503);
    } finally {
      await app.close();
    }
    expect(lines[1]).toMatch(/^\[ERROR\] GET \/unavailable - \d+ms HTTPError 503: Down for maintenance\n\s+at .*logger\.test\.ts/);
  });

  it('colours a function target and a non-TTY stream when FORCE_COLOR is set', async () => {
    process.env.FORCE_COLOR = '1';
    const lines: string[] = [];
    const stream = fakeStream(false);
    await withLogger({ stream: (line) => lines.push(line) }, async (url) => {
      await send(`${url}/ok`);
    });
    await withLogger({ stream }, async (url) => {
      await send(`${url}/bad`);
    });
    expect(lines[0]).toMatch(new RegExp(`^${ESC}\\[32m\\[200\\]${ESC}\\[39m GET /ok - \\d+ms$`));
    expect(stream.chunks[0]).toMatch(new RegExp(`^${ESC}\\[33m\\[400\\]${ESC}\\[39m GET /bad - \\d+ms\\n$`));
  });

  it('does not colour a TTY when FORCE_COLOR=0, NODE_DISABLE_COLORS or an empty NO_COLOR is set', async () => {
    for (const [name, value] of [['FORCE_COLOR', '0'], ['NODE_DISABLE_COLORS', '1'], ['NO_COLOR', '']] as const) {
      process.env[name] = value;
      const stream = fakeStream(true);
      await withLogger({ stream }, async (url) => {
        await send(`${url}/ok`);
      });
      expect(stream.chunks[0]).toMatch(/^\[200\] GET \/ok - \d+ms\n$/);
      delete process.env[name];
    }
  });

  it('colours [ERROR] red on a TTY', async () => {
    delete process.env.NO_COLOR;
    const stream = fakeStream(true);
    await withLogger({ stream }, async (url) => {
      await send(`${url}/boom`);
    });
    expect(stream.chunks[0]).toMatch(new RegExp(`^${ESC}\\[31m\\[ERROR\\]${ESC}\\[39m GET /boom - \\d+ms Error: kaboom\\n`));
  });

  it('logs a thrown non-Error value as text', async () => {
    const lines: string[] = [];
    const app = new Application({ onLog: () => undefined });
    app.use(logger({ stream: (line) => lines.push(line) }));
    app.get('/weird', () => {
      throw { reason: 'not an Error' };
    });
    const url = await start(app);
    try {
      expect((await send(`${url}/weird`)).status).toBe(500);
    } finally {
      await app.close();
    }
    expect(lines[0]).toMatch(/^\[ERROR\] GET \/weird - \d+ms \{"reason":"not an Error"\}$/);
  });

  it('escapes control characters of an error message built from a decoded route param, so a request cannot forge log lines or send terminal escapes', async () => {
    const lines: string[] = [];
    const chunks: string[] = [];
    const forged = '%0A%5BERROR%5D%20GET%20%2Fadmin%1B%5B2J%0D%09%7F%C2%9B%0A%20%20%20%20at%20evil%20(x.js%3A1%3A1)';
    for (const stream of [(line: string) => lines.push(line), { write: (chunk: string) => chunks.push(chunk) > 0 }]) {
      const app = new Application({ onLog: () => undefined });
      app.use(logger({ stream, colors: true }));
      app.get('/echo/:x', (ctx) => {
        throw new Error((ctx.params as { x: string }).x);
      });
      const url = await start(app);
      try {
        expect((await send(`${url}/echo/oops${forged}`)).status).toBe(500);
      } finally {
        await app.close();
      }
    }
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.endsWith('\n')).toBe(true);
    for (const text of [lines[0]!, chunks[0]!.slice(0, -1)]) {
      const [head, ...frames] = text.split('\n');
      expect(head).toMatch(
        new RegExp(
          `^${ESC}\\[31m\\[ERROR\\]${ESC}\\[39m GET /echo/oops%0A%5BERROR%5D%20GET%20%2Fadmin%1B%5B2J%0D%09%7F%C2%9B%0A%20%20%20%20at%20evil%20\\(x\\.js%3A1%3A1\\) - \\d+ms ` +
            'Error: oops\\\\n\\[ERROR\\] GET /admin\\\\x1b\\[2J\\\\r\\\\t\\\\x7f\\\\x9b\\\\n    at evil \\(x\\.js:1:1\\)$',
        ),
      );
      // Only the tag's own colour codes are raw escapes; every following line is a real frame.
      // eslint-disable-next-line no-control-regex -- the test looks for raw control characters on purpose
      expect(head!.replaceAll(`${ESC}[31m`, '').replaceAll(`${ESC}[39m`, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(frames.length).toBeGreaterThan(0);
      for (const frame of frames) {
        expect(frame).toMatch(/^ {4}at /);
        expect(frame).not.toContain('evil');
      }
    }
  });

  describe('writes an error line built from a decoded route param escaped, on every path of the error line', () => {
    // Decodes to a line break, a forged log line, a forged stack frame and a terminal escape.
    const FORGED = '%0A%5BERROR%5D%20GET%20%2Fadmin%20forged%1B%5B2J%0A%20%20%20%20at%20evil%20(x.js%3A1%3A1)';
    const cases: Array<[string, LoggerConfig, (param: string) => unknown]> = [
      ['a 4xx HTTPError with its stack', {}, (x) => new HTTPError(404, `No book ${x}`)],
      ['a 4xx HTTPError without its stack (clientErrorStacks: false)', { clientErrorStacks: false }, (x) => new HTTPError(404, `No book ${x}`)],
      ['a 5xx HTTPError', { clientErrorStacks: false }, (x) => new HTTPError(503, `Shelf ${x} is down`)],
      ['an Error whose name holds the param', {}, (x) => Object.assign(new Error('named'), { name: `Lookup${x}` })],
      [
        'an Error whose message was cut after its stack was written',
        {},
        (x) => {
          const err = new Error(`lookup ${x}`);
          void err.stack;
          err.message = 'lookup';
          return err;
        },
      ],
      [
        'an Error whose message changed after its stack was written',
        {},
        (x) => {
          const err = new Error(`lookup ${x}`);
          void err.stack;
          err.message = 'lookup failed';
          return err;
        },
      ],
      ['a thrown object', {}, (x) => ({ reason: x, separator: '\u2028' })],
      ['a thrown string', {}, (x) => `failed: ${x}`],
    ];

    it.each(cases)('%s', async (_name, config, make) => {
      const lines: string[] = [];
      const app = new Application({ onLog: () => undefined });
      app.use(logger({ ...config, stream: (line) => lines.push(line) }));
      app.get('/echo/:x', (ctx) => {
        throw make((ctx.params as { x: string }).x);
      });
      const url = await start(app);
      try {
        await send(`${url}/echo/${FORGED}`);
      } finally {
        await app.close();
      }
      expect(lines).toHaveLength(1);
      const [head, ...frames] = lines[0]!.split('\n');
      expect(head).toMatch(/^\[ERROR\] GET \/echo\/%0A%5BERROR%5D/);
      // eslint-disable-next-line no-control-regex -- the test looks for raw control characters on purpose
      expect(lines[0]).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
      for (const frame of frames) expect(frame).toMatch(/^ {4}(at (?!evil)|\[stack\] )/);
    });
  });

  it('logs an error it cannot describe and still re-throws the original', async () => {
    const lines: string[] = [];
    const req = new IncomingMessage(new Socket());
    req.method = 'GET';
    req.url = '/odd';
    const ctx = new Context(req, new ServerResponse(req), { bodyLimit: 1024, maxKeys: 10, maxJsonDepth: 8, trustProxy: false });
    const odd = new HTTPError(409, 'Conflict');
    Object.defineProperty(odd, 'message', {
      get() {
        throw new Error('no message');
      },
    });
    await expect(logger({ stream: (line) => lines.push(line) })(ctx, () => Promise.reject(odd))).rejects.toBe(odd);
    expect(lines).toEqual([expect.stringMatching(/^\[ERROR\] GET \/odd - \d+ms \[an error that could not be described\]$/)]);
  });

  it('escapes control characters in the method, the path and a thrown string', async () => {
    const lines: string[] = [];
    // Neither can come over the wire (node refuses them), so the context is made by hand.
    const req = new IncomingMessage(new Socket());
    req.method = 'GET\u001b[1m';
    req.url = '/a\nb\u2028c';
    const ctx = new Context(req, new ServerResponse(req), { bodyLimit: 1024, maxKeys: 10, maxJsonDepth: 8, trustProxy: false }).status(200);
    await logger({ stream: (line) => lines.push(line) })(ctx, () => Promise.resolve());
    await expect(logger({ stream: (line) => lines.push(line) })(ctx, () => Promise.reject('bad\r\nthing'))).rejects.toBe('bad\r\nthing');
    expect(lines[0]).toMatch(/^\[200\] GET\\x1b\[1m \/a\\nb\\u2028c - \d+ms$/);
    expect(lines[1]).toMatch(/^\[ERROR\] GET\\x1b\[1m \/a\\nb\\u2028c - \d+ms bad\\r\\nthing$/);
  });

  it('logs the context of an upgraded WebSocket, where nothing was answered, with the 101 of its handshake', async () => {
    const lines: string[] = [];
    // What GraphQL over WebSocket runs the app's middleware on at connection_init: a context made
    // from the upgrade request, whose response is never written.
    const req = new IncomingMessage(new Socket());
    req.method = 'GET';
    req.url = '/graphql';
    req.headers = { upgrade: 'websocket', connection: 'Upgrade' };
    const ctx = new Context(req, new ServerResponse(req), { bodyLimit: 1024, maxKeys: 10, maxJsonDepth: 8, trustProxy: false });
    await logger({ stream: (line) => lines.push(line) })(ctx, () => Promise.resolve());
    expect(lines).toEqual([expect.stringMatching(/^\[101\] GET \/graphql - \d+ms$/)]);
  });

  it('still answers the request when the log target throws', async () => {
    await withLogger(
      {
        stream: () => {
          throw new Error('disk full');
        },
      },
      async (url) => {
        const res = await send(`${url}/ok`);
        expect(res.status).toBe(200);
        expect(res.json()).toEqual({ ok: true });
      },
    );
  });

  it('rejects a target without write() and a non-boolean colors', () => {
    expect(() => logger({ stream: {} as unknown as LoggerConfig['stream'] })).toThrow(/write\(chunk\)/);
    expect(() => logger({ colors: 'yes' as unknown as boolean })).toThrow(/colors must be a boolean/);
    expect(() => logger({ clientErrorStacks: 1 as unknown as boolean })).toThrow(/clientErrorStacks must be a boolean/);
  });

  it('lets the call context of another protocol through without logging', async () => {
    const lines: string[] = [];
    const next = jest.fn(() => Promise.resolve());
    await runOnCall(logger({ stream: (line) => lines.push(line) }), callContext({ protocol: 'websocket', method: 'GET', path: '/live', statusCode: 200 }), next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([]);
  });

  it('lets a gRPC call context through without logging', async () => {
    const lines: string[] = [];
    const next = jest.fn(() => Promise.resolve());
    const grpcCtx = { protocol: 'grpc', method: '/pkg.Svc/Get', path: '/pkg.Svc/Get', headers: {}, statusCode: 200 };
    await logger({ stream: (line) => lines.push(line) })(grpcCtx as unknown as Context, next);
    expect(next).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([]);
  });
});
