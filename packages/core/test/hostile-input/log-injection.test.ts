import { Application, HTTPError, type ApplicationConfig } from '../../src/index.js';
import { escapeLogText, formatLogValue, stackFrames } from '../../src/plugin.js';
import { hostOf } from '../host.js';
import { exchange, start, type Started } from '../hostile/support.js';

// Log injection: an error message built from a decoded route param must not forge log lines or
// reach the terminal as an escape sequence.

describe('escapeLogText', () => {
  it('turns control characters into visible escapes and leaves other text alone', () => {
    expect(escapeLogText('a\nb\rc\td\u001b[31me\u0000f\u007fg\u0085h\u2028i')).toBe('a\\nb\\rc\\td\\x1b[31me\\x00f\\x7fg\\x85h\\u2028i');
    expect(escapeLogText('plain text, café, 日本, a\\nb')).toBe('plain text, café, 日本, a\\nb');
  });
});

describe('formatLogValue', () => {
  it('escapes the message part of a stack and keeps one frame per line', () => {
    const err = new Error('boom\nfake line\u001b[31m\n    at forged (evil.js:1:1)');
    const text = formatLogValue(err);
    expect(text.startsWith('Error: boom\\nfake line\\x1b[31m\\n    at forged (evil.js:1:1)\n    at ')).toBe(true);
    expect(text).not.toContain('\u001b');
    expect(text.split('\n').every((line, i) => i === 0 || line.startsWith('    at '))).toBe(true);
  });

  it('writes a stack that does not start with the message on one escaped line, and a cause', () => {
    const err = new Error('x', { cause: new Error('inner\nline') });
    err.stack = 'custom\nheader\u001b\n    at frame (file.js:1:1)';
    expect(formatLogValue(err)).toBe('custom\\nheader\\x1b\\n    at frame (file.js:1:1)\n  [cause] ' + formatLogValue(err.cause));
    expect(formatLogValue(err.cause)).toMatch(/^Error: inner\\nline\n {4}at /);
  });

  it('writes other values on one escaped line and never throws', () => {
    expect(formatLogValue('a\nb')).toBe('a\\nb');
    // eslint-disable-next-line no-control-regex -- looking for raw control characters
    expect(formatLogValue({ text: 'a\nb\u001b' })).not.toMatch(/[\n\u001b]/);
    const trap = (): never => {
      throw new Error('trap');
    };
    const err = new Error('x');
    Object.defineProperty(err, 'stack', { get: trap });
    expect(formatLogValue(err)).toBe('[a value that could not be formatted]');
    expect(typeof formatLogValue(new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap }))).toBe('string');
  });
});

describe('errors built from route params, logged through a real request', () => {
  const INJECTED = '/echo/%0Afake%20line%1B%5B31m';
  let server: Started;
  let custom: Started;
  const printed: unknown[][] = [];
  let spy: jest.SpyInstance;

  beforeAll(async () => {
    spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void printed.push(args));
    const routes = (app: Started['app']): void => {
      app.get('/echo/:x', (ctx) => {
        throw new Error(ctx.params.x);
      });
    };
    server = await start({ onLog: undefined }, routes);
    custom = await start({}, routes);
  });

  afterAll(async () => {
    spy.mockRestore();
    await server.app.close();
    await custom.app.close();
  });

  it('writes one console entry whose message line has no raw newline or ESC from the param', async () => {
    const before = printed.length;
    expect((await exchange(server.port, `GET ${INJECTED} HTTP/1.1\r\nHost: t\r\n\r\n`)).status).toBe(500);
    const entries = printed.slice(before);
    expect(entries).toHaveLength(1);
    const [text] = entries[0]! as [string];
    expect(entries[0]).toHaveLength(1);
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\nfake line');
    expect(text.startsWith(`Error on GET ${INJECTED} Error: \\nfake line\\x1b[31m\n    at `)).toBe(true);
  });

  it('gives a custom onLog the message escaped and the error as it was thrown', async () => {
    const before = custom.logged.length;
    expect((await exchange(custom.port, `GET ${INJECTED} HTTP/1.1\r\nHost: t\r\n\r\n`)).status).toBe(500);
    const [entry] = custom.logged.slice(before);
    expect(entry!.message).toBe(`Error on GET ${INJECTED}`);
    expect((entry!.error as Error).message).toBe('\nfake line\u001b[31m');
  });
});

describe('stackFrames', () => {
  it("finds the frames after the error's own header, node's [code] form and an empty message included", () => {
    const err = new Error('two\nlines\n    at looks (like.js:1:1)');
    const frames = stackFrames(err.stack!, err.name, err.message);
    expect(frames?.start).toBe(`Error: ${err.message}`.length);
    expect(frames?.lines.length).toBeGreaterThan(0);
    for (const line of frames!.lines) expect(line).toMatch(/^ {4}at (?!looks)/);
    // Node's own errors say their code after the name: `TypeError [ERR_INVALID_ARG_TYPE]: ...`.
    const coded = new TypeError('The first argument must be of type string');
    coded.stack = coded.stack!.replace(/^TypeError/, 'TypeError [ERR_INVALID_ARG_TYPE]');
    expect(stackFrames(coded.stack, coded.name, coded.message)?.lines.length).toBeGreaterThan(0);
    const empty = new Error();
    expect(stackFrames(empty.stack!, empty.name, '')?.start).toBe(empty.stack!.indexOf('\n'));
  });

  it('finds none in a stack written for another message, another name, or with text between the frames', () => {
    const err = new Error('first');
    const stack = err.stack!;
    expect(stackFrames(stack, 'Error', 'second')).toBeUndefined();
    expect(stackFrames(stack, 'Error', 'firs')).toBeUndefined();
    expect(stackFrames(stack, 'TypeError', 'first')).toBeUndefined();
    expect(stackFrames(stack.replace('\n    at ', '\nforged line\n    at '), 'Error', 'first')).toBeUndefined();
    expect(stackFrames('Error: first', 'Error', 'first')).toEqual({ start: 12, lines: [] });
  });
});

describe('every path that logs, on the default log (console.error)', () => {
  // Decodes to a line break, a forged log line and a terminal escape.
  const FORGED = '%0A%5BERROR%5D%20GET%20%2Fadmin%20forged%1B%5B2J%0A%20%20%20%20at%20evil%20(x.js%3A1%3A1)';
  const DECODED = '\n[ERROR] GET /admin forged\u001b[2J\n    at evil (x.js:1:1)';
  const printed: string[] = [];
  let spy: jest.SpyInstance;

  beforeEach(() => {
    printed.length = 0;
    spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' ')));
  });
  afterEach(() => spy.mockRestore());

  /** Every entry printed: no raw control character from the request, and every line after the first a stack frame or a cause. */
  function expectEscaped(entries: readonly string[]): void {
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      // eslint-disable-next-line no-control-regex -- looking for raw control characters
      expect(entry).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
      expect(entry).toContain('forged');
      const [, ...rest] = entry.split('\n');
      for (const line of rest) expect(line).toMatch(/^(\s+at (?!evil)|\s+\[cause\] )/);
    }
  }

  async function run(routes: (app: Application) => void, config: ApplicationConfig = {}): Promise<number> {
    const app = new Application(config);
    routes(app);
    try {
      return (await app.inject(`/echo/${FORGED}`)).statusCode;
    } finally {
      await app.close();
    }
  }

  it('escapes a 5xx error whose message changed after its stack was written (the stack no longer starts with it)', async () => {
    const status = await run((app) =>
      app.get('/echo/:x', (ctx) => {
        const err = new Error(`lookup of ${ctx.params.x}`);
        void err.stack;
        err.message = 'lookup failed';
        throw err;
      }),
    );
    expect(status).toBe(500);
    expectEscaped(printed);
  });

  it('escapes a 5xx error whose message was cut after its stack was written', async () => {
    await run((app) =>
      app.get('/echo/:x', (ctx) => {
        const err = new Error(`lookup ${ctx.params.x}`);
        void err.stack;
        err.message = 'lookup';
        throw err;
      }),
    );
    expectEscaped(printed);
  });

  it('escapes what a failing onError handler threw', async () => {
    const app = new Application();
    app.get('/echo/:x', (ctx) => {
      throw new HTTPError(404, `No item ${ctx.params.x}`);
    });
    app.onError((error) => {
      throw new Error(`while answering: ${error.message}`);
    });
    expect((await app.inject(`/echo/${FORGED}`)).statusCode).toBe(500);
    expect(printed[0]).toMatch(/^The error handler threw Error: while answering: No item \\n\[ERROR\] GET \/admin forged\\x1b\[2J\\n {4}at evil \(x\.js:1:1\)\n {4}at /);
    expectEscaped(printed);
  });

  it('escapes the message and the error a plugin logs through the host (as GraphQL and gRPC do)', () => {
    const app = new Application();
    hostOf(app).log(`Error on ${DECODED}`, new Error(`resolver failed for ${DECODED}`, { cause: new Error(DECODED) }));
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^Error on \\n\[ERROR\] GET \/admin forged\\x1b\[2J\\n {4}at evil \(x\.js:1:1\) Error: resolver failed for \\n/);
    expectEscaped(printed);
  });

  it('escapes an error an onResponse hook threw', async () => {
    const status = await run((app) => {
      app.get('/echo/:x', (ctx) => ctx.text('ok'));
      hostOf(app).onResponse((ctx) => {
        throw new Error(`metrics for ${(ctx as { params: Record<string, string> }).params['x']}`);
      });
    });
    expect(status).toBe(200);
    expectEscaped(printed);
  });

  it('escapes the entry written when a custom onLog throws', async () => {
    const status = await run(
      (app) =>
        app.get('/echo/:x', (ctx) => {
          throw new Error(ctx.params.x);
        }),
      {
        onLog: (message) => {
          throw new Error(`log sink refused ${message}${DECODED}`);
        },
      },
    );
    expect(status).toBe(500);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain('(onLog threw: Error: log sink refused');
    expectEscaped(printed);
  });
});
