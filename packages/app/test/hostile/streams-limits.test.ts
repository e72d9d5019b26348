import { z } from 'zod';
import { createApp, defineOperation, type App } from '@fw/app';
import { eventually, latencies, openRaw, type RawStream } from './streams-support.js';

// The stream limits refuse past them, through real sockets: streams.maxPerClient per client
// address (here told apart by X-Forwarded-For behind trustProxy) and streams.maxOpen in total are
// answered 429 with the spec's error body before any handler runs, the streams already open keep
// going, a plain request is answered meanwhile, and the slots come back when clients leave.

const PER_CLIENT = 20;
const TOTAL = 50;

describe('server-sent event streams past streams.maxPerClient and streams.maxOpen', () => {
  let app: App;
  let port: number;
  const counts = { started: 0, finished: 0 };
  const open: RawStream[] = [];

  beforeAll(async () => {
    const idle = defineOperation({
      name: 'idle',
      input: z.object({}),
      output: z.object({ open: z.boolean() }),
      stream: true,
      rest: { path: '/idle' },
      handler: async function* (_input, ctx) {
        counts.started++;
        try {
          yield { open: true };
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        } finally {
          counts.finished++;
        }
      },
    });
    app = createApp({ onLog: () => undefined, trustProxy: true, streams: { maxPerClient: PER_CLIENT, maxOpen: TOTAL } });
    app.operation(idle);
    app.get('/ping', (ctx) => ctx.text('pong'));
    port = (await app.listen(0, '127.0.0.1')).port;
  });

  afterAll(async () => {
    for (const stream of open) stream.socket.destroy();
    await app.close();
  });

  const from = (client: string): Record<string, string> => ({ 'x-forwarded-for': client });
  const openMany = async (client: string, n: number): Promise<RawStream[]> => Promise.all(Array.from({ length: n }, () => openRaw(port, '/idle', from(client))));
  const body = (stream: RawStream): unknown => JSON.parse(stream.text().slice(stream.text().indexOf('\r\n\r\n') + 4));

  it('refuses one more stream per client with 429, before its handler runs', async () => {
    open.push(...(await openMany('10.0.0.1', PER_CLIENT)));
    expect(open.map((s) => s.status)).toEqual(Array(PER_CLIENT).fill(200));
    const refused = await openRaw(port, '/idle', from('10.0.0.1'));
    expect(refused.status).toBe(429);
    expect(body(refused)).toMatchObject({ error: true, message: `Too many open streams for this client (at most ${PER_CLIENT})` });
    expect(counts.started).toBe(PER_CLIENT);
    refused.socket.destroy();
  });

  it('refuses one more stream in total with 429 whoever asks, and a plain request is still answered', async () => {
    open.push(...(await openMany('10.0.0.2', PER_CLIENT)), ...(await openMany('10.0.0.3', TOTAL - 2 * PER_CLIENT)));
    expect(open.every((s) => s.status === 200)).toBe(true);
    const refused = await openRaw(port, '/idle', from('10.0.0.4'));
    expect(refused.status).toBe(429);
    expect(body(refused)).toMatchObject({ error: true, message: `Too many open streams (at most ${TOTAL})` });
    refused.socket.destroy();
    expect(counts.started).toBe(TOTAL);
    expect(await latencies(port, '/ping', 5, 'pong')).toHaveLength(5);
    // The open ones are still open.
    expect(open.every((s) => !s.socket.destroyed)).toBe(true);
  });

  it('gives every slot back when the clients leave: the same number opens again', async () => {
    for (const stream of open.splice(0)) stream.socket.destroy();
    await eventually(() => counts.finished === TOTAL, 'every handler to run its finally');
    open.push(...(await openMany('10.0.0.1', PER_CLIENT)), ...(await openMany('10.0.0.5', PER_CLIENT)), ...(await openMany('10.0.0.6', TOTAL - 2 * PER_CLIENT)));
    expect(open.every((s) => s.status === 200)).toBe(true);
    const refused = await openRaw(port, '/idle', from('10.0.0.7'));
    expect(refused.status).toBe(429);
    refused.socket.destroy();
  });
});
