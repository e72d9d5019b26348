import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createApp, type App } from '@fw/app';
import { logger, rateLimit } from '@fw/app/middleware';
import { SHOP_PROTO } from '../support.js';

// The health endpoints through real sockets, and the gRPC health service through a real grpc-js
// client: one readiness state behind both.

// The health service's own .proto, as grpc-health-check (a dependency of @fw/grpc) ships it.
const HEALTH_PROTO = require.resolve('grpc-health-check/proto/health/v1/health.proto', { paths: [require.resolve('@fw/grpc')] });

type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'SERVICE_UNKNOWN';
interface HealthClient extends grpc.Client {
  Check(request: { service: string }, callback: (err: grpc.ServiceError | null, res?: { status: ServingStatus }) => void): void;
}

function healthClient(target: string): HealthClient {
  const definition = protoLoader.loadSync(HEALTH_PROTO, { keepCase: true, enums: String, defaults: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: new (t: string, c: grpc.ChannelCredentials) => HealthClient } } } };
  return new pkg.grpc.health.v1.Health(target, grpc.credentials.createInsecure());
}

const checkGrpc = (client: HealthClient, service: string): Promise<ServingStatus> =>
  new Promise((resolve, reject) => client.Check({ service }, (err, res) => (err ? reject(err) : resolve(res!.status))));

const base = (app: App) => `http://127.0.0.1:${app.server!.address() !== null && typeof app.server!.address() === 'object' ? (app.server!.address() as { port: number }).port : 0}`;

async function get(app: App, path: string, init?: RequestInit): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${base(app)}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

describe('liveness and readiness over HTTP', () => {
  let healthy = true;
  let logged: string[] = [];
  const spans = new InMemorySpanExporter();
  const app = createApp({
    shutdown: false,
    middleware: [logger({ stream: { write: (line: string) => logged.push(line) } }), rateLimit({ windowMs: 60_000, maxRequests: 2 })],
    observability: { tracing: { enabled: true, serviceName: 'health-test', spanProcessors: [new SimpleSpanProcessor(spans)] } },
    health: { checks: { database: () => healthy } },
  });
  app.get('/hello', (ctx) => ctx.text('hi'));

  beforeAll(() => app.listen(0, '127.0.0.1'));
  afterAll(() => app.close());

  it('answers /livez and /readyz with 200 once listening, without caching', async () => {
    expect(await get(app, '/livez')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await get(app, '/readyz');
    expect(ready).toMatchObject({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(app.health?.ready).toBe(true);
  });

  it('answers /readyz 503 while a check fails, and 200 again once it passes; /livez stays 200', async () => {
    healthy = false;
    expect(await get(app, '/readyz')).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'checks', checks: { database: 'failed' } } });
    expect(await get(app, '/livez')).toMatchObject({ status: 200 });
    healthy = true;
    expect((await get(app, '/readyz')).status).toBe(200);
  });

  it('is not rate limited, not logged and not traced, while other requests are', async () => {
    logged = [];
    spans.reset();
    for (let i = 0; i < 5; i++) {
      expect((await get(app, '/readyz')).status).toBe(200);
      expect((await get(app, '/livez')).status).toBe(200);
    }
    expect(logged).toEqual([]);
    expect(spans.getFinishedSpans()).toEqual([]);
    await fetch(`${base(app)}/hello`);
    expect(logged).toHaveLength(1);
    expect(spans.getFinishedSpans().map((s) => s.name)).toEqual(['GET /hello']);
    // The limit of 2 applies to the app's routes, never to the probes.
    await fetch(`${base(app)}/hello`);
    expect((await fetch(`${base(app)}/hello`)).status).toBe(429);
    expect((await get(app, '/readyz')).status).toBe(200);
  });

  it('answers HEAD, and 405 to other methods', async () => {
    expect((await fetch(`${base(app)}/livez`, { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(`${base(app)}/readyz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('readiness checks are time-boxed', () => {
  it('counts a check that hangs as failed after checkTimeout, and aborts its signal', async () => {
    let aborted = false;
    const app = createApp({
      shutdown: false,
      health: {
        checkTimeout: 100,
        checks: {
          fast: () => Promise.resolve('pong'),
          hangs: (signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
          throws: () => {
            throw new Error('no connection');
          },
        },
      },
    });
    await app.listen(0, '127.0.0.1');
    try {
      // 'timeout' says checkTimeout (100 ms) ended the check that hangs: the answer did not wait for it.
      const res = await get(app, '/readyz');
      expect(res).toMatchObject({ status: 503, body: { reason: 'checks', checks: { fast: 'ok', hangs: 'timeout', throws: 'failed' } } });
      expect(aborted).toBe(true);
    } finally {
      await app.close();
    }
  });
});

describe('the health paths', () => {
  it('are configurable, and off one by one or all at once', async () => {
    const moved = createApp({ shutdown: false, health: { livePath: '/healthz/live', readyPath: false } });
    const off = createApp({ shutdown: false, health: false });
    await moved.listen(0, '127.0.0.1');
    await off.listen(0, '127.0.0.1');
    try {
      expect((await get(moved, '/healthz/live')).status).toBe(200);
      expect((await fetch(`${base(moved)}/livez`)).status).toBe(404);
      expect((await fetch(`${base(moved)}/readyz`)).status).toBe(404);
      expect((await fetch(`${base(off)}/livez`)).status).toBe(404);
      expect((await fetch(`${base(off)}/readyz`)).status).toBe(404);
      expect(off.health).toBeUndefined();
    } finally {
      await moved.close();
      await off.close();
    }
  });

  it('answer 503 on /readyz before listen() and once shutdown has begun', async () => {
    const app = createApp({ shutdown: false });
    expect((await app.inject('/readyz')).statusCode).toBe(503);
    expect(JSON.parse((await app.inject('/readyz')).body)).toEqual({ status: 'unavailable', reason: 'starting' });
    await app.listen(0, '127.0.0.1');
    expect((await get(app, '/readyz')).status).toBe(200);
    const closing = app.shutdown({ delay: 300 });
    // During the delay the app serves as usual, only readiness says no.
    expect(await get(app, '/readyz')).toMatchObject({ status: 503, body: { reason: 'shutting_down' } });
    expect((await get(app, '/livez')).status).toBe(200);
    await closing;
    expect(app.health?.lifecycle).toBe('shutting_down');
    // Listening again serves again.
    await app.listen(0, '127.0.0.1');
    expect((await get(app, '/readyz')).status).toBe(200);
    await app.close();
  });

  it('refuse unknown options with the one meant, and values of the wrong type', () => {
    expect(() => createApp({ health: { readyPth: '/r' } } as never)).toThrow('createApp: unknown option "health.readyPth"; did you mean "readyPath"?');
    expect(() => createApp({ health: { checks: { redis: 'PING' } } } as never)).toThrow('health.checks.redis must be a function');
    expect(() => createApp({ health: { livePath: 'livez' } })).toThrow('health.livePath must be a path starting with "/"');
    expect(() => createApp({ health: { checkTimeout: 0 } })).toThrow('health.checkTimeout must be a positive integer');
    expect(() => createApp({ shutdown: { dealy: 0 } } as never)).toThrow('createApp: unknown option "shutdown.dealy"; did you mean "delay"?');
    expect(() => createApp({ shutdown: { signals: ['TERM'] } } as never)).toThrow('shutdown.signals must be an array of signal names');
  });
});

describe('one readiness state for HTTP and the gRPC health service', () => {
  let healthy = true;
  const app = createApp({
    shutdown: false,
    health: { checks: { queue: () => healthy }, checkInterval: 50 },
    protocols: { grpc: { port: 0, host: '127.0.0.1', protoPath: SHOP_PROTO, services: { 'shop.Items': { Get: () => ({ id: '1', owner: 'x' }) } } } },
  });
  let client: HealthClient;

  beforeAll(async () => {
    await app.listen(0, '127.0.0.1');
    client = healthClient(app.getProtocolManager()!.getGrpcAddress()!.target);
  });
  afterAll(async () => {
    client.close();
    await app.close();
  });

  const eventually = async (expected: ServingStatus, service: string): Promise<void> => {
    const deadline = Date.now() + 2000;
    for (;;) {
      const status = await checkGrpc(client, service);
      if (status === expected || Date.now() > deadline) {
        expect(status).toBe(expected);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('reports SERVING for the server and its services while ready', async () => {
    expect(await checkGrpc(client, '')).toBe('SERVING');
    expect(await checkGrpc(client, 'shop.Items')).toBe('SERVING');
  });

  it('reports NOT_SERVING for the server and every service while a check fails, and SERVING again after', async () => {
    healthy = false;
    await eventually('NOT_SERVING', '');
    expect(await checkGrpc(client, 'shop.Items')).toBe('NOT_SERVING');
    expect((await get(app, '/readyz')).status).toBe(503);
    healthy = true;
    await eventually('SERVING', '');
    expect(await checkGrpc(client, 'shop.Items')).toBe('SERVING');
  });

  it('reports NOT_SERVING as soon as shutdown begins, while the server still answers', async () => {
    const closing = app.shutdown({ delay: 300 });
    expect(await checkGrpc(client, '')).toBe('NOT_SERVING');
    expect(await checkGrpc(client, 'shop.Items')).toBe('NOT_SERVING');
    expect((await get(app, '/readyz')).status).toBe(503);
    await closing;
  });
});
