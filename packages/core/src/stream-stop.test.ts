import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StreamStop, STOPPED } from './stream-stop.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap growth, after full collections, over `steps` awaited steps of `wait`. */
async function heapGrowth(steps: number, wait: (step: Promise<number>) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 1000; i++) await wait(Promise.resolve(i));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < steps; i++) await wait(Promise.resolve(i));
  gc();
  return process.memoryUsage().heapUsed - before;
}

describe('StreamStop', () => {
  it('settles a race with its step while not stopped, and with STOPPED as soon as it stops', async () => {
    const stop = new StreamStop();
    expect(await stop.race(Promise.resolve('step'))).toBe('step');
    const pending = stop.race(new Promise(() => undefined));
    stop.stop();
    expect(await pending).toBe(STOPPED);
    expect(await stop.race(Promise.resolve('late'))).toBe(STOPPED);
    expect(stop.stopped).toBe(true);
  });

  it('passes on what a step rejects with', async () => {
    const failure = new Error('source failed');
    await expect(new StreamStop().race(Promise.reject(failure))).rejects.toBe(failure);
  });

  it('keeps nothing per step while the stream goes on, where Promise.race against a pending stop keeps one reaction a step', async () => {
    const stop = new StreamStop();
    const mine = await heapGrowth(100_000, (step) => stop.race(step));
    let resolveStop!: () => void;
    const stopping = new Promise<void>((resolve) => (resolveStop = resolve));
    const raced = await heapGrowth(100_000, (step) => Promise.race([step, stopping]));
    resolveStop();
    expect(raced).toBeGreaterThan(10 * 1024 * 1024);
    expect(mine).toBeLessThan(2 * 1024 * 1024);
  });
});
