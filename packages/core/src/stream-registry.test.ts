import { resolveStreams, STREAM_DEFAULTS } from './config.js';
import { HTTPError } from './http-error.js';
import { StreamRegistry } from './stream-registry.js';

/** A registry with `overrides` over the defaults. */
function registry(overrides: Parameters<typeof resolveStreams>[0] = {}): StreamRegistry {
  return new StreamRegistry(resolveStreams(overrides));
}

/** What `fn` threw, as an HTTPError. */
function thrown(fn: () => unknown): HTTPError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HTTPError) return err;
    throw err;
  }
  throw new Error('did not throw');
}

describe('the stream registry', () => {
  it('counts streams per client key and refuses one more with 429', () => {
    const streams = registry({ maxPerClient: 2 });
    const a1 = streams.open({ protocol: 'http', clientKey: 'a', end: () => undefined });
    streams.open({ protocol: 'http', clientKey: 'a', end: () => undefined });
    const refused = thrown(() => streams.open({ protocol: 'http', clientKey: 'a', end: () => undefined }));
    expect([refused.statusCode, refused.message]).toEqual([429, 'Too many open streams for this client (at most 2)']);
    // Another client is counted apart; a closed stream gives its slot back, once.
    streams.open({ protocol: 'http', clientKey: 'b', end: () => undefined });
    a1.close();
    a1.close();
    streams.open({ protocol: 'http', clientKey: 'a', end: () => undefined });
    expect(streams.size).toBe(3);
    expect(() => streams.open({ protocol: 'http', clientKey: 'a', end: () => undefined })).toThrow(HTTPError);
  });

  it('refuses one more than streams.maxOpen in total with 429', () => {
    const streams = registry({ maxOpen: 2 });
    streams.open({ protocol: 'http', clientKey: 'a', end: () => undefined });
    streams.open({ protocol: 'custom', clientKey: 'b', end: () => undefined });
    const refused = thrown(() => streams.open({ protocol: 'http', clientKey: 'c', end: () => undefined }));
    expect([refused.statusCode, refused.message]).toEqual([429, 'Too many open streams (at most 2)']);
  });

  it('ends every stream when the app closes, waits for each to close, and then refuses new ones with 503', async () => {
    const streams = registry();
    const reasons: HTTPError[] = [];
    const handles = [1, 2].map((n) =>
      streams.open({
        protocol: 'http',
        clientKey: String(n),
        end: (reason) => {
          reasons.push(reason);
          // The transport finishes a moment later.
          setTimeout(() => handles[n - 1]!.close(), 30);
        },
      }),
    );
    const start = Date.now();
    await streams.closeAll(5000);
    expect(Date.now() - start).toBeGreaterThanOrEqual(25);
    expect(streams.size).toBe(0);
    expect(reasons.map((r) => [r.statusCode, r.message])).toEqual([
      [503, 'Server is shutting down; reconnect'],
      [503, 'Server is shutting down; reconnect'],
    ]);
    expect(handles.map((h) => h.signal.aborted)).toEqual([true, true]);
    expect(handles[0]!.signal.reason).toBe(reasons[0]);
    const refused = thrown(() => streams.open({ protocol: 'http', clientKey: 'x', end: () => undefined }));
    expect(refused.statusCode).toBe(503);
    expect(refused.headers).toEqual({ 'retry-after': '3' });
  });

  it('stops waiting for streams that do not close after the timeout', async () => {
    const streams = registry();
    streams.open({ protocol: 'http', clientKey: 'a', end: () => undefined });
    const start = Date.now();
    // Resolves (the stream never closes), and not before the time-out.
    await streams.closeAll(50);
    expect(Date.now() - start).toBeGreaterThanOrEqual(40);
    expect(streams.size).toBe(1);
  });

  it('ends a stream that reaches streams.maxDuration with a reconnect reason', async () => {
    const streams = registry({ maxDuration: 30 });
    const ended = new Promise<HTTPError>((resolve) => {
      const handle = streams.open({ protocol: 'http', clientKey: 'a', end: (reason) => (resolve(reason), handle.close()) });
    });
    const reason = await ended;
    expect([reason.statusCode, reason.message]).toEqual([503, 'The stream reached its maximum duration (30 ms); reconnect to continue']);
    expect(streams.size).toBe(0);
  });
});

describe('ApplicationConfig.streams', () => {
  it('has documented defaults', () => {
    expect(resolveStreams(undefined)).toEqual({
      heartbeat: 15000,
      retry: 3000,
      maxPerClient: 100,
      maxOpen: 10000,
      maxDuration: 3600000,
      maxEventBytes: 1048576,
      maxBufferedBytes: 1048576,
      stallTimeout: 30000,
    });
    expect(resolveStreams({})).toEqual(STREAM_DEFAULTS);
  });

  it('takes 0 for no heartbeat and no maximum duration, and refuses numbers out of range naming the option', () => {
    expect(resolveStreams({ heartbeat: 0, maxDuration: 0 })).toMatchObject({ heartbeat: 0, maxDuration: 0 });
    expect(() => resolveStreams({ heartbeat: -1 })).toThrow('streams.heartbeat must be a number of milliseconds (0 for none), got -1');
    expect(() => resolveStreams({ maxPerClient: 0 })).toThrow('streams.maxPerClient must be a positive integer, got 0');
    expect(() => resolveStreams({ maxOpen: 1.5 })).toThrow('streams.maxOpen must be a positive integer, got 1.5');
    expect(() => resolveStreams(null as never)).toThrow('streams must be an object, got null');
  });
});
