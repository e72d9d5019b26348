import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// README:start
import { Application, HTTPError, tracked, type Middleware, type RequestContext } from '@fw/core';
import { defineOperation } from '../src/index.js';
import { EventEmitter, on } from 'node:events';
import { z } from 'zod';

const bus = new EventEmitter();
const OrderEvent = z
  .object({ id: z.string(), orderId: z.string(), status: z.enum(['paid', 'shipped']), at: z.date() })
  .meta({ id: 'OrderEvent' });

const requireAuth: Middleware<RequestContext> = async (ctx, next) => {
  if (ctx.headers.authorization === undefined) throw new HTTPError(401, 'Sign in first');
  await next();
};

const orderEvents = defineOperation({
  name: 'orderEvents',
  description: "Status changes of the caller's orders",
  input: z.object({ orderId: z.string().optional() }),
  output: OrderEvent,
  stream: true,
  middleware: [requireAuth], // once, when the stream opens
  handler: async function* (input, ctx) {
    // ctx.signal aborts when the client leaves, the stream's time is up or the app closes.
    for await (const [event] of on(bus, 'order', { signal: ctx.signal })) {
      if (input.orderId === undefined || event.orderId === input.orderId) yield tracked(event.id, event);
    }
  },
  rest: { path: '/orders/events' },
  graphql: { type: 'subscription' },
  grpc: { service: 'shop.Orders' },
});

const app = new Application().operation(orderEvents);
// What publishes the events: here, a route that pays an order.
let paid = 0;
app.post('/orders/:id/pay', (ctx) => {
  bus.emit('order', { id: String(++paid), orderId: ctx.params.id, status: 'paid', at: new Date() });
  ctx.json({ ok: true });
});
// README:end

describe('the README example of streaming operations', () => {
  it('is the code of this test', () => {
    const source = readFileSync(__filename, 'utf8');
    const example = source.slice(source.indexOf('// README:start\n') + 16, source.indexOf('// README:end')).replace("'../src/index.js'", "'@fw/validate'");
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    expect(readme).toContain('```ts\n' + example + '\nawait app.listen(3000);\n');
  });

  it('streams the bus events to a signed-in client as server-sent events, and refuses others with 401', async () => {
    const { port } = await app.listen(0, '127.0.0.1');
    try {
      const refused = await app.inject('/orders/events');
      expect([refused.statusCode, refused.json()]).toEqual([401, { error: true, message: 'Sign in first', code: 401 }]);
      let text = '';
      const req = request({ host: '127.0.0.1', port, path: '/orders/events', headers: { authorization: 'Bearer t' } });
      const answered = new Promise<number>((resolve) => req.on('response', (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        resolve(res.statusCode ?? 0);
      }));
      req.end();
      while (bus.listenerCount('order') === 0) await sleep(5);
      bus.emit('order', { id: '1', orderId: 'o1', status: 'paid', at: new Date('2026-01-02T03:04:05Z'), secret: 'dropped' });
      expect(await answered).toBe(200);
      // The stream opened at once (its headers and retry: before any event): wait for the event itself.
      while (!text.includes('id: 1') || !text.includes('\n\n', text.indexOf('id: 1'))) await sleep(5);
      expect(text).toBe('retry: 3000\n\nid: 1\ndata: {"id":"1","orderId":"o1","status":"paid","at":"2026-01-02T03:04:05.000Z"}\n\n');
      // The README's way: paying an order through its route publishes the next event.
      expect((await app.inject({ method: 'POST', url: '/orders/o1/pay' })).statusCode).toBe(200);
      while (text.split('\ndata: ').length < 3) await sleep(5);
      expect(text.slice(text.lastIndexOf('id: '))).toMatch(/^id: 1\ndata: \{"id":"1","orderId":"o1","status":"paid","at":"\d{4}-[^"]+Z"\}\n\n$/);
      req.destroy();
      // The handler's subscription ends with the client.
      while (bus.listenerCount('order') > 0) await sleep(5);
    } finally {
      await app.close();
    }
  });
});
