import type { GrpcCallback, GrpcUnaryCall } from '../src/index.js';
import { client, start, unary, type Started } from './helpers.js';

type Callback = GrpcCallback<object>;
type Handler = (...args: never[]) => unknown;

const reply = (message: string): object => ({ message });

/** Serves `Unary` with `handler` and answers one call. */
async function answer(handler: Handler): Promise<string> {
  let server: Started | undefined;
  try {
    server = await start({ services: { 'fwtest.Echo': { Unary: handler } } });
    const c = client(server.target);
    try {
      return (await unary(c, 'Unary', {})).reply.message;
    } finally {
      c.close();
    }
  } finally {
    await server?.app.close();
  }
}

describe('the handler style (README "Handlers")', () => {
  it('takes the first answer of a callback-style handler that also returns a value', async () => {
    expect(await answer((_call: GrpcUnaryCall<unknown>, callback: Callback) => {
      setImmediate(() => callback(null, reply('callback')));
      return reply('returned');
    })).toBe('returned');
    expect(await answer((_call: GrpcUnaryCall<unknown>, callback: Callback) => {
      callback(null, reply('callback'));
      return reply('returned');
    })).toBe('callback');
  });

  it('waits for the callback when a handler declaring it returns undefined, also from an async function', async () => {
    expect(await answer(async (_call: GrpcUnaryCall<unknown>, callback: Callback) => {
      await new Promise((resolve) => setImmediate(resolve));
      setImmediate(() => callback(null, reply('later')));
    })).toBe('later');
  });

  it('answers with what a wrapper declaring no parameters returns, and with an empty message for undefined', async () => {
    const inner = async (): Promise<object> => reply('inner');
    const wrapper = (...args: never[]): unknown => Reflect.apply(inner, undefined, args);
    expect(wrapper.length).toBe(0);
    expect(await answer(wrapper)).toBe('inner');
    expect(await answer((..._args: never[]) => undefined)).toBe('');
  });

  it('reaches a callback-style handler through a wrapper that declares both parameters', async () => {
    const inner = (_call: GrpcUnaryCall<unknown>, callback: Callback): void => {
      setImmediate(() => callback(null, reply('through')));
    };
    expect(await answer((call: GrpcUnaryCall<unknown>, callback: Callback) => inner(call, callback))).toBe('through');
  });
});
