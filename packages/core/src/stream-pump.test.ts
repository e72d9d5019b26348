import type { HTTPError } from './http-error.js';
import { EVENTS_PER_TURN, EventTooLargeError, StreamPump, type StreamSink } from './stream-pump.js';
import { StreamRegistry } from './stream-registry.js';
import { STREAM_DEFAULTS } from './config.js';

/** A sink in memory: `unsent` is what the "client" has not taken; `take()` takes it all. */
function memorySink(options: { oversized?: StreamSink<number>['oversized'] } = {}) {
  const written: string[] = [];
  let unsent = 0;
  const drains = new Set<() => void>();
  const sink: StreamSink<number> & { written: string[]; cuts: string[]; beats: number; take(): void; hold(bytes: number): void } = {
    written,
    cuts: [],
    beats: 0,
    encode: (event) => `e${event}`,
    write(chunk) {
      written.push(String(chunk));
    },
    buffered: () => unsent,
    onDrain(listener) {
      drains.add(listener);
      return () => drains.delete(listener);
    },
    heartbeat() {
      sink.beats++;
    },
    cut(message) {
      sink.cuts.push(message);
    },
    take() {
      unsent = 0;
      for (const listener of [...drains]) listener();
    },
    hold(bytes) {
      unsent = bytes;
    },
    ...(options.oversized === undefined ? {} : { oversized: options.oversized }),
  };
  return sink;
}

const config = { heartbeat: 0, maxEventBytes: 1000, maxBufferedBytes: 100, stallTimeout: 200 };

function* numbers(count: number): Generator<number> {
  for (let i = 0; i < count; i++) yield i;
}
async function* fromMemory(count: number): AsyncGenerator<number> {
  yield* numbers(count);
}

describe('StreamPump', () => {
  it('writes every event of a source, in order', async () => {
    const sink = memorySink();
    const pump = new StreamPump(sink, { config, log: () => undefined, where: 'test' });
    await pump.run(fromMemory(5));
    pump.finish();
    expect(sink.written).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(pump.stopped).toBeUndefined();
  });

  it('gives the event loop a turn every EVENTS_PER_TURN events of a source that never awaits', async () => {
    const sink = memorySink();
    const pump = new StreamPump(sink, { config, log: () => undefined, where: 'test' });
    const count = EVENTS_PER_TURN * 10;
    let seenAt = -1;
    setImmediate(() => (seenAt = sink.written.length));
    await pump.run(fromMemory(count));
    pump.finish();
    expect(sink.written).toHaveLength(count);
    // An immediate queued before the pump started ran while it pumped, not after.
    expect(seenAt).toBeGreaterThanOrEqual(0);
    expect(seenAt).toBeLessThan(count);
  });

  it('pulls nothing more while the client has not taken what waits, and goes on once it has', async () => {
    const sink = memorySink();
    const pump = new StreamPump(sink, { config: { ...config, stallTimeout: 5000 }, log: () => undefined, where: 'test' });
    let pulled = 0;
    const source = (async function* () {
      for (let i = 0; i < 3; i++) {
        pulled++;
        yield i;
      }
    })();
    sink.hold(50);
    const running = pump.run(source);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(pulled).toBe(0);
    sink.take();
    await running;
    pump.finish();
    expect(sink.written).toEqual(['e0', 'e1', 'e2']);
  });

  it('stops a client that takes nothing for stallTimeout as slow, cuts it and logs the reason once', async () => {
    const sink = memorySink();
    const logs: string[] = [];
    const pump = new StreamPump(sink, { config, log: (message) => logs.push(message), where: 'GET /events' });
    sink.hold(500);
    await pump.run(fromMemory(3));
    pump.finish();
    pump.finish();
    expect(pump.stopped).toEqual({ kind: 'slow', message: 'more than 100 bytes (streams.maxBufferedBytes) were waiting for the client' });
    expect(sink.cuts).toHaveLength(1);
    expect(logs).toEqual(['Ended the stream of GET /events: more than 100 bytes (streams.maxBufferedBytes) were waiting for the client']);
  });

  it('fails with EventTooLargeError past maxEventBytes, or writes the sink’s replacement when it has one', async () => {
    const big = memorySink();
    big.encode = () => 'x'.repeat(2000);
    const pump = new StreamPump(big, { config, log: () => undefined, where: 'test' });
    await expect(pump.run(fromMemory(1))).rejects.toBeInstanceOf(EventTooLargeError);
    pump.finish();
    const replaced = memorySink({ oversized: (_chunk, bytes) => `too large: ${bytes}` });
    replaced.encode = () => 'x'.repeat(2000);
    const logs: string[] = [];
    const other = new StreamPump(replaced, { config, log: (message) => logs.push(message), where: 'test' });
    await other.run(fromMemory(1));
    other.finish();
    expect(replaced.written).toEqual(['too large: 2000']);
    expect(logs[0]).toMatch(/2000 bytes was not sent on test: more than streams.maxEventBytes \(1000\)/);
  });

  it('stops at once when its registry slot is ended (the app closing), even while the source waits', async () => {
    const registry = new StreamRegistry(STREAM_DEFAULTS);
    const slot = registry.open({ protocol: 'test', clientKey: 'k', end: () => undefined });
    const sink = memorySink();
    const pump = new StreamPump(sink, { config, log: () => undefined, where: 'test', slot });
    const waiting = (async function* () {
      yield 1;
      await new Promise(() => undefined);
    })();
    const running = pump.run(waiting);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const closing = registry.closeAll(1000);
    await running;
    expect(pump.stopped?.kind).toBe('end');
    expect((pump.stopped as { reason: HTTPError }).reason.statusCode).toBe(503);
    pump.release(waiting);
    await closing;
    expect(registry.size).toBe(0);
  });

  it('writes a heartbeat on an idle stream, and none while bytes wait', async () => {
    const sink = memorySink();
    const pump = new StreamPump(sink, { config: { ...config, heartbeat: 20, stallTimeout: 10_000 }, log: () => undefined, where: 'test' });
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(sink.beats).toBeGreaterThan(0);
    sink.hold(10);
    const beats = sink.beats;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(sink.beats).toBe(beats);
    pump.finish();
  });
});
