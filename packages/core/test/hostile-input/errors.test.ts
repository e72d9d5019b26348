import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { HTTPError } from '../../src/index.js';
import { errorOf, exchange, fetchRaw, sleep, start, within, type Started } from '../hostile/support.js';

// Faults in application code: whatever a handler, an error handler or a logger throws, the client
// gets an answer that leaks nothing, and the process keeps serving.

const GET = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`;
const INTERNAL = { error: true, code: 500, message: 'Internal Server Error' };

describe('handlers that throw values that are not errors', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start({}, (app) => {
      app.get('/ok', (ctx) => ctx.text('ok'));
      app.get('/string', () => {
        throw 'secret string';
      });
      app.get('/null', () => {
        throw null;
      });
      app.get('/undefined', () => {
        throw undefined;
      });
      app.get('/object', () => {
        throw { statusCode: 'nope', message: 'secret object', stack: 'secret stack' };
      });
      app.get('/reject-null', () => Promise.reject(null));
      app.get('/async-string', async () => {
        await sleep(1);
        throw 'later';
      });
    });
  });

  afterAll(async () => {
    await server.app.close();
  });

  it.each(['/string', '/null', '/undefined', '/object', '/reject-null', '/async-string'])('answers %s with a 500 that leaks nothing, logs it, and keeps serving', async (path) => {
    const before = server.logged.length;
    const res = await exchange(server.port, GET(path));
    expect(res.status).toBe(500);
    expect(errorOf(res.body)).toEqual(INTERNAL);
    expect(res.body).not.toMatch(/secret|later/);
    expect(server.logged.length).toBe(before + 1);
    expect(server.logged[before]!.message).toBe(`Error on GET ${path}`);
    expect((await fetchRaw(server.port, '/ok')).status).toBe(200);
  });
});

describe('error handlers and loggers that fail', () => {
  const servers: Started[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.app.close()));
  });

  const boom = (path: string) => (): never => {
    throw new HTTPError(404, `nothing at ${path}`);
  };

  it.each([
    ['throws an Error', () => {
      throw new Error('handler broke');
    }],
    ['throws a string', () => {
      throw 'handler broke';
    }],
    ['throws null', () => {
      throw null;
    }],
    ['rejects', () => Promise.reject(new Error('handler broke'))],
    ['answers, then throws', (_err: HTTPError, ctx: { json(data: unknown, status?: number): void }) => {
      ctx.json({ custom: true }, 418);
      throw new Error('handler broke');
    }],
  ])('answers the default 500 when the custom onError %s, and keeps serving', async (_name, handler) => {
    const server = await start({}, (app) => {
      app.get('/ok', (ctx) => ctx.text('ok'));
      app.get('/missing', boom('/missing'));
      app.onError(handler);
    });
    servers.push(server);
    const res = await exchange(server.port, GET('/missing'));
    expect(res.status).toBe(500);
    expect(errorOf(res.body)).toEqual(INTERNAL);
    expect(res.body).not.toContain('handler broke');
    expect(server.logged.map((l) => l.message)).toContain('The error handler threw');
    expect((await fetchRaw(server.port, '/ok')).status).toBe(200);
  });

  it('still answers when onLog itself throws, instead of crashing on an unhandled rejection', async () => {
    const errors: unknown[] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
    try {
      const server = await start({ onLog: () => {
        throw new Error('logger is down');
      } }, (app) => {
        app.get('/ok', (ctx) => ctx.text('ok'));
        app.get('/boom', () => {
          throw new Error('handler broke');
        });
        app.get('/boom-in-handler', boom('/x'));
        app.onError((err) => {
          if (err.statusCode === 404) throw new Error('error handler broke too');
        });
      });
      servers.push(server);
      const res = await exchange(server.port, GET('/boom'));
      expect(res.status).toBe(500);
      const res2 = await exchange(server.port, GET('/boom-in-handler'));
      expect(res2.status).toBe(500);
      expect((await fetchRaw(server.port, '/ok')).status).toBe(200);
      // What the logger could not take went to console.error, with the logger's own failure.
      expect(errors.length).toBeGreaterThanOrEqual(2);
      expect(String((errors[0] as unknown[])[0])).toContain('(onLog threw: Error: logger is down');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('an unhandled promise rejection inside a handler (in a child process: jest catches rejections itself)', () => {
  const FIXTURE = join(__dirname, 'fixtures', 'rejecting-app.mjs');
  /** Ample for a node process to start or exit on a loaded machine: a wait, not a speed bound. */
  const WAIT_MS = 20_000;

  interface Child {
    proc: ChildProcessWithoutNullStreams;
    port: number;
    output: () => string;
    exited: Promise<number | null>;
  }

  async function run(mode: 'default' | 'off' | 'own-listener'): Promise<Child> {
    const proc = spawn(process.execPath, [FIXTURE, mode], { cwd: __dirname, stdio: 'pipe' });
    let output = '';
    proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + WAIT_MS;
    while (!/listening (\d+)/.test(output)) {
      if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`child did not start: ${output}`);
      await sleep(20);
    }
    return { proc, port: Number(/listening (\d+)/.exec(output)![1]), output: () => output, exited };
  }

  /** Waits until the child printed `text` (a rejection is logged a moment after the response). */
  async function printed(child: Child, text: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!child.output().includes(text)) {
      if (Date.now() > deadline || child.proc.exitCode !== null) throw new Error(`the child never printed ${JSON.stringify(text)}: ${child.output()}`);
      await sleep(20);
    }
  }

  async function stop(child: Child): Promise<number | null> {
    child.proc.stdin.write('close\n');
    const code = await within(child.exited, WAIT_MS, 'still running' as const);
    if (code === 'still running') {
      child.proc.kill();
      throw new Error(`the child did not exit by itself after close(): ${child.output()}`);
    }
    return code;
  }

  it('logs the rejection through onLog and keeps serving; close() removes the listener and the process exits by itself', async () => {
    const child = await run('default');
    expect(child.output()).toContain('listeners=1');
    expect((await fetchRaw(child.port, '/reject')).text).toBe('answered');
    expect((await fetchRaw(child.port, '/reject-later')).text).toBe('answered');
    await printed(child, 'log: Unhandled promise rejection (the server keeps running): nobody awaited this');
    await printed(child, 'log: Unhandled promise rejection (the server keeps running): rejected after the response');
    expect((await fetchRaw(child.port, '/ok')).text).toBe('ok');
    expect(await stop(child)).toBe(0);
    expect(child.output()).toContain('closed listeners=0');
  }, 60_000);

  it("leaves Node's default (the process ends) with logUnhandledRejections: false", async () => {
    const child = await run('off');
    expect(child.output()).toContain('listeners=0');
    await fetchRaw(child.port, '/reject').catch(() => undefined);
    const code = await within(child.exited, WAIT_MS, 'still running' as const);
    expect(code).toBe(1);
    expect(child.output()).toContain('nobody awaited this');
  }, 60_000);

  it("keeps the program's own unhandledRejection listener and adds none", async () => {
    const child = await run('own-listener');
    expect(child.output()).toContain('listeners=1');
    await fetchRaw(child.port, '/reject');
    await printed(child, 'own listener: nobody awaited this');
    expect((await fetchRaw(child.port, '/ok')).text).toBe('ok');
    expect(child.output()).not.toContain('log: Unhandled promise rejection');
    expect(await stop(child)).toBe(0);
    expect(child.output()).toContain('closed listeners=1');
  }, 60_000);
});
