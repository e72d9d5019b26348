import net from 'node:net';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProto } from 'grpc-health-check';
import { Application } from '@fw/core';
import { grpcPlugin, type GrpcUnaryHandler } from '../src/index.js';
import { client, failure, PROTO, sleep, start, unary, type EchoReply, type EchoRequest } from './helpers.js';

const loaderOptions = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const healthPackage = grpc.loadPackageDefinition(loadSync(healthProto, loaderOptions)) as unknown as {
  grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
};
const reflectionProto = path.join(path.dirname(require.resolve('@grpc/reflection')), '../proto/grpc/reflection/v1/reflection.proto');
const reflectionPackage = grpc.loadPackageDefinition(loadSync(reflectionProto, loaderOptions)) as unknown as {
  grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
};

interface HealthClient extends grpc.Client {
  Check(request: { service: string }, callback: grpc.requestCallback<{ status: string }>): grpc.ClientUnaryCall;
  Watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
}

function healthClient(target: string): HealthClient {
  return new healthPackage.grpc.health.v1.Health(target, grpc.credentials.createInsecure()) as unknown as HealthClient;
}

function check(health: HealthClient, service: string): Promise<string> {
  return new Promise((resolve, reject) => health.Check({ service }, (err, reply) => (err ? reject(err) : resolve(reply!.status))));
}

/** A Slow handler that reports when it has started and stops when ctx.signal aborts. */
function slowHandler(): { Slow: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>>; started: Promise<void>; aborted: Promise<unknown> } {
  let markStarted!: () => void;
  let markAborted!: (reason: unknown) => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const aborted = new Promise<unknown>((resolve) => (markAborted = resolve));
  const Slow: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    call.ctx.signal.addEventListener('abort', () => markAborted(call.ctx.signal.reason), { once: true });
    markStarted();
    await sleep(call.request.delay_ms ?? 0, call.ctx.signal);
    return { message: 'finished' };
  };
  return { Slow, started, aborted };
}

describe('health service', () => {
  it('reports SERVING for the server and each service while up, and NOT_FOUND for unknown services', async () => {
    const server = await start({ services: { 'fwtest.Echo': { Unary: (_call: unknown, cb: grpc.sendUnaryData<object>) => cb(null, {}) } } });
    const health = healthClient(server.target);
    try {
      expect(await check(health, '')).toBe('SERVING');
      expect(await check(health, 'fwtest.Echo')).toBe('SERVING');
      expect((await failure(check(health, 'fwtest.Nope'))).code).toBe(grpc.status.NOT_FOUND);
      server.grpc.setServingStatus('fwtest.Echo', 'NOT_SERVING');
      expect(await check(health, 'fwtest.Echo')).toBe('NOT_SERVING');
    } finally {
      health.close();
      await server.app.close();
    }
  });

  it('tells watchers NOT_SERVING when close() starts, while a call is still draining, then ends their streams', async () => {
    const { Slow, started } = slowHandler();
    const server = await start({ services: { 'fwtest.Echo': { Slow } } });
    const health = healthClient(server.target);
    const echo = client(server.target);
    try {
      const watch = health.Watch({ service: '' });
      const statuses: string[] = [];
      const ended = new Promise<void>((resolve, reject) => {
        watch.on('data', (reply: { status: string }) => statuses.push(reply.status));
        watch.on('end', resolve);
        watch.on('error', reject);
      });
      await new Promise((resolve) => watch.once('data', resolve));
      const inFlight = unary(echo, 'Slow', { delay_ms: 300 });
      await started;
      const closing = server.app.close();
      await ended;
      expect(statuses).toEqual(['SERVING', 'NOT_SERVING']);
      // The in-flight call still completes: the drain is graceful.
      expect((await inFlight).reply.message).toBe('finished');
      await closing;
    } finally {
      health.close();
      echo.close();
    }
  });

  it('is not served with health: false', async () => {
    const server = await start({ services: { 'fwtest.Echo': {} }, health: false });
    const health = healthClient(server.target);
    try {
      expect((await failure(check(health, ''))).code).toBe(grpc.status.UNIMPLEMENTED);
      expect(() => server.grpc.setServingStatus('', 'SERVING')).toThrow('health service is off');
    } finally {
      health.close();
      await server.app.close();
    }
  });
});

describe('graceful close', () => {
  it('lets a call in flight finish, then stops accepting calls', async () => {
    const { Slow, started } = slowHandler();
    const server = await start({ services: { 'fwtest.Echo': { Slow } } });
    const echo = client(server.target);
    try {
      const inFlight = unary(echo, 'Slow', { delay_ms: 250 });
      await started;
      const begun = Date.now();
      await server.app.close();
      expect(Date.now() - begun).toBeGreaterThanOrEqual(150);
      expect((await inFlight).reply.message).toBe('finished');
      expect(server.grpc.address).toBeUndefined();
      const err = await failure(unary(echo, 'Slow', { delay_ms: 0 }, { deadlineMs: 1000 }));
      expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(err.code);
    } finally {
      echo.close();
    }
  });

  it('cuts calls still running after closeTimeout and aborts their signal', async () => {
    const { Slow, started, aborted } = slowHandler();
    const server = await start({ services: { 'fwtest.Echo': { Slow } }, closeTimeout: 150 });
    const echo = client(server.target);
    try {
      const inFlight = failure(unary(echo, 'Slow', { delay_ms: 10_000 }));
      await started;
      const begun = Date.now();
      await server.app.close();
      const took = Date.now() - begun;
      // Not before closeTimeout; cut, not finished (the call asked for 10 s): its error says so.
      expect(took).toBeGreaterThanOrEqual(140);
      const err = await inFlight;
      expect([grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.INTERNAL]).toContain(err.code);
      expect(await aborted).toMatchObject({ name: 'GrpcError', code: grpc.status.CANCELLED });
    } finally {
      echo.close();
    }
  });

  it('can listen again after close', async () => {
    const app = new Application();
    const plugin = grpcPlugin({ port: 0, host: '127.0.0.1', protoPath: PROTO, services: { 'fwtest.Echo': { Unary: (_c: unknown, cb: grpc.sendUnaryData<object>) => cb(null, { message: 'again' }) } } });
    app.register(plugin);
    for (let round = 0; round < 2; round++) {
      await app.listen(0, '127.0.0.1');
      const echo = client(plugin.address!.target);
      expect((await unary(echo, 'Unary', {})).reply.message).toBe('again');
      echo.close();
      await app.close();
    }
  });
});

describe('binding', () => {
  it('rejects listen() with a clear error when the gRPC port is busy, and leaves nothing listening', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const app = new Application({ onLog: () => undefined });
    app.register(grpcPlugin({ port, host: '127.0.0.1', protoPath: PROTO, services: { 'fwtest.Echo': {} } }));
    // grpc-js logs the failed bind itself; keep the test output clean.
    grpc.setLogVerbosity(grpc.logVerbosity.NONE);
    try {
      await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(`gRPC port ${port} is already in use on 127.0.0.1`);
      expect(app.server).toBeUndefined();
    } finally {
      grpc.setLogVerbosity(grpc.logVerbosity.ERROR);
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('server reflection', () => {
  interface ReflectionResponse {
    list_services_response?: { service: Array<{ name: string }> };
    file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  }

  function ask(target: string, request: object): Promise<ReflectionResponse> {
    const reflection = new reflectionPackage.grpc.reflection.v1.ServerReflection(target, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse>;
    };
    return new Promise<ReflectionResponse>((resolve, reject) => {
      const call = reflection.ServerReflectionInfo();
      call.on('data', (response: ReflectionResponse) => {
        resolve(response);
        call.end();
      });
      call.on('error', reject);
      call.write(request);
    }).finally(() => reflection.close());
  }

  it('lists the served services and the health service when reflection is on', async () => {
    const server = await start({ services: { 'fwtest.Echo': {}, 'fwtest.Admin': {} }, reflection: true });
    try {
      const listed = await ask(server.target, { list_services: '' });
      expect(listed.list_services_response!.service.map((s) => s.name).sort()).toEqual(['fwtest.Admin', 'fwtest.Echo', 'grpc.health.v1.Health']);
      const file = await ask(server.target, { file_containing_symbol: 'fwtest.Echo' });
      expect(file.file_descriptor_response!.file_descriptor_proto.length).toBeGreaterThan(0);
    } finally {
      await server.app.close();
    }
  });

  it('is off by default', async () => {
    const server = await start({ services: { 'fwtest.Echo': {} } });
    try {
      expect((await failure(ask(server.target, { list_services: '' }))).code).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      await server.app.close();
    }
  });
});
