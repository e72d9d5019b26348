// The app the fw start and scale-out tests serve: one operation on REST, GraphQL and gRPC, a rate
// limited route, and routes that tell which process answered, keep a request in flight, or kill
// the process. Settings come from the environment, as a deployed app's do.
import { appendFileSync } from 'node:fs';
import { createApp, defineOperation, rateLimit, MemoryStore, RedisStore } from '@fw/app';
import { tracked } from '@fw/app/core';
import { createPubSub } from '@fw/app/middleware';
import { z } from 'zod';

const env = process.env;

const hello = defineOperation({
  name: 'hello',
  input: z.object({ name: z.string() }),
  output: z.object({ greeting: z.string(), pid: z.int32() }),
  handler: async ({ name }) => ({ greeting: `hello ${name}`, pid: process.pid }),
  rest: { method: 'GET', path: '/hello/:name' },
  graphql: { type: 'query' },
  grpc: { service: 'scale.Greeter' },
});

export default async function build() {
  let limiter;
  let bus;
  if (env.RATE_LIMIT === 'memory') limiter = rateLimit({ windowMs: 60_000, maxRequests: 5, store: new MemoryStore() });
  if (env.RATE_LIMIT === 'redis') {
    const { Redis } = await import('ioredis');
    const client = new Redis(env.REDIS_URL, { enableOfflineQueue: false, lazyConnect: true });
    await client.connect();
    limiter = rateLimit({ windowMs: 60_000, maxRequests: Number(env.RATE_LIMIT_MAX ?? 10), keyGenerator: () => 'shared', store: new RedisStore({ client, prefix: `scale:${env.RATE_LIMIT_PREFIX ?? ''}:` }) });
    // Events published on any instance reach the subscribers of every instance.
    bus = createPubSub({ redis: new Redis(env.REDIS_URL), prefix: `scale:${env.RATE_LIMIT_PREFIX ?? ''}:ps:` });
  }
  const app = createApp({
    onLog: () => undefined,
    protocols: { graphql: true, grpc: { port: Number(env.GRPC_PORT ?? 50051), host: env.GRPC_HOST ?? '127.0.0.1' } },
    ...(env.METRICS === '1' ? { observability: { metrics: { enabled: true, serviceName: 'scale-test', ...(env.METRICS_PORT ? { port: Number(env.METRICS_PORT), host: '127.0.0.1' } : {}) } } } : {}),
    // EXIT_LOG: each process that ran its beforeExit hook writes its pid there.
    shutdown: { delay: Number(env.SHUTDOWN_DELAY ?? 5000), beforeExit: () => env.EXIT_LOG && appendFileSync(env.EXIT_LOG, `${process.pid}\n`) },
  });
  app.operation(hello);
  app.get('/pid', (ctx) => ctx.json({ pid: process.pid }));
  app.get('/slow', async (ctx) => {
    await new Promise((done) => setTimeout(done, Number(ctx.query.ms ?? 200)));
    ctx.json({ pid: process.pid });
  });
  // ?pid=N: only that worker crashes (another answers crashed: false).
  app.post('/crash', (ctx) => {
    const crashed = ctx.query.pid === undefined || Number(ctx.query.pid) === process.pid;
    ctx.json({ pid: process.pid, crashed });
    if (crashed) setTimeout(() => process.exit(3), 10);
  });
  if (limiter !== undefined) app.get('/limited', limiter, (ctx) => ctx.json({ pid: process.pid }));
  if (bus !== undefined) {
    app.get('/events', async (ctx) => {
      const subscription = bus.subscribe('news', { signal: ctx.signal });
      await subscription.ready;
      ctx.sse(
        (async function* () {
          yield { subscribed: process.pid };
          for await (const { id, data } of subscription) yield tracked(id, data);
        })(),
      );
    });
    app.post('/publish', async (ctx) => ctx.json({ id: await bus.publish('news', { from: process.pid }) }));
  }
  return app;
}
