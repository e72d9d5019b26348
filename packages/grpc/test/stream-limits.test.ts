import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { GRPC_DEFAULTS, type GrpcClientStreamHandler, type GrpcConfig, type GrpcUnaryHandler } from '../src/index.js';
import { client, failure, start, streams, unary, type EchoReply, type EchoRequest, type Started } from './helpers.js';

const healthDefinition = loadSync(require.resolve('grpc-health-check/proto/health/v1/health.proto'), { keepCase: true, enums: String });
const HealthClient = grpc.makeGenericClientConstructor(healthDefinition['grpc.health.v1.Health'] as grpc.ServiceDefinition, 'Health');

/** A client on its own connection (grpc-js otherwise shares one connection per target between clients). */
function ownConnection<T extends grpc.Client>(make: (options: grpc.ClientOptions) => T): T {
  return make({ 'grpc.use_local_subchannel_pool': 1 });
}

/** Resolves once `check()` holds, or after `ms` (the caller then asserts). */
// A wait, not a bound: it returns as soon as the check holds; a loaded machine may take seconds.
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Opens a health Watch; resolves with its first message, or rejects with the status it was refused with. */
function watch(health: grpc.Client): { call: grpc.ClientReadableStream<{ status: string }>; first: Promise<{ status: string }> } {
  const call = (health as unknown as { Watch(request: unknown): grpc.ClientReadableStream<{ status: string }> }).Watch({ service: '' });
  const first = new Promise<{ status: string }>((resolve, reject) => {
    call.once('data', resolve);
    call.once('error', reject);
  });
  return { call, first };
}

describe('stream limits', () => {
  let server: Started | undefined;
  const clients: grpc.Client[] = [];
  let running = 0;
  let entered = 0;

  // Never answers on its own: the client keeps the stream open until it cancels.
  const ClientStream: GrpcClientStreamHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    entered++;
    running++;
    try {
      await new Promise((resolve) => call.once('cancelled', resolve));
    } finally {
      running--;
    }
    return {};
  };
  const Unary: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = () => ({ message: 'still here' });
  let slowStarted = 0;
  const Slow: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    slowStarted++;
    await new Promise((resolve) => setTimeout(resolve, call.request.delay_ms ?? 0));
    return { message: 'slow done' };
  };

  async function serve(config: Partial<GrpcConfig> = {}): Promise<Started> {
    entered = 0;
    running = 0;
    slowStarted = 0;
    server = await start({ services: { 'fwtest.Echo': { ClientStream, Unary, Slow } }, ...config });
    return server;
  }

  function open<T extends grpc.Client>(c: T): T {
    clients.push(c);
    return c;
  }

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server?.app.close();
    server = undefined;
  });

  it('runs at most 100 streams of one connection at a time by default, and keeps answering other connections', async () => {
    const { target } = await serve();
    const flood = open(client(target));
    const calls = Array.from({ length: 150 }, () => streams(flood).ClientStream(() => undefined));
    await until(() => entered >= 100);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(entered).toBe(100);
    const other = open(ownConnection((options) => client(target, 'Echo', undefined, options)));
    const { reply } = await unary(other, 'Unary', {}, { deadlineMs: 3000 });
    expect(reply.message).toBe('still here');
    for (const call of calls) call.cancel();
    await until(() => running === 0);
    // 150 streams opened and cancelled on one connection: seconds on a loaded machine.
  }, 60_000);

  it('lets maxConcurrentStreams lower the per-connection cap', async () => {
    const { target } = await serve({ maxConcurrentStreams: 5 });
    const flood = open(client(target));
    const calls = Array.from({ length: 8 }, () => streams(flood).ClientStream(() => undefined));
    await until(() => entered >= 5);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(entered).toBe(5);
    for (const call of calls) call.cancel();
    await until(() => running === 0);
  });

  it('refuses health Watch streams over the per-connection cap with RESOURCE_EXHAUSTED', async () => {
    const { target } = await serve({ maxHealthWatches: { perConnection: 2, total: 10 } });
    const health = open(ownConnection((options) => new HealthClient(target, grpc.credentials.createInsecure(), options)));
    const watches = [watch(health), watch(health), watch(health)];
    const settled = await Promise.allSettled(watches.map((w) => w.first));
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(2);
    const refused = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    // Another connection still gets its own share.
    const other = open(ownConnection((options) => new HealthClient(target, grpc.credentials.createInsecure(), options)));
    await expect(watch(other).first).resolves.toEqual({ status: 'SERVING' });
    for (const w of watches) w.call.cancel();
  });

  it('refuses health Watch streams over the total cap, and accepts new ones once others end', async () => {
    const { target } = await serve({ maxHealthWatches: { perConnection: 10, total: 3 } });
    const a = open(ownConnection((options) => new HealthClient(target, grpc.credentials.createInsecure(), options)));
    const b = open(ownConnection((options) => new HealthClient(target, grpc.credentials.createInsecure(), options)));
    const first = [watch(a), watch(a), watch(b)];
    await Promise.all(first.map((w) => w.first));
    const over = watch(b);
    await expect(over.first).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    first[0]!.call.cancel();
    // The server learns of the cancellation asynchronously: retry until the freed slot is seen.
    let accepted: unknown;
    for (let i = 0; i < 20 && accepted === undefined; i++) {
      accepted = await watch(b).first.catch(() => undefined);
      if (accepted === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(accepted).toEqual({ status: 'SERVING' });
    const echo = open(client(target));
    const { reply } = await unary(echo, 'Unary', {}, { deadlineMs: 3000 });
    expect(reply.message).toBe('still here');
    first[1]!.call.cancel();
    first[2]!.call.cancel();
  });

  it('ends connections older than maxConnectionAge once the grace period has passed, cutting their streams', async () => {
    const { target } = await serve({ maxConnectionAge: 150, maxConnectionAgeGrace: 100 });
    const c = open(client(target));
    const ended = new Promise<grpc.ServiceError>((resolve) => {
      streams(c).ClientStream((error) => resolve(error as grpc.ServiceError));
    });
    await until(() => entered === 1);
    const error = await ended;
    expect(error).toBeTruthy();
    await until(() => running === 0);
    expect(running).toBe(0);
    const { reply } = await unary(c, 'Unary', {}, { deadlineMs: 3000 });
    expect(reply.message).toBe('still here');
  });

  it('refuses only the call whose metadata exceeds maxMetadataSize; a concurrent call on the same channel completes', async () => {
    const { target } = await serve();
    const c = open(client(target));
    const slow = unary(c, 'Slow', { delay_ms: 300 }, { deadlineMs: 5000 });
    await until(() => slowStarted === 1);
    const big: Record<string, string> = {};
    for (let i = 0; i < 8; i++) big[`x-big-${i}`] = 'a'.repeat(4096);
    const err = await failure(unary(c, 'Unary', {}, { metadata: big, deadlineMs: 3000 }));
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    await expect(slow).resolves.toMatchObject({ reply: { message: 'slow done' } });
    // Metadata within the limit (a large bearer token) is accepted on the same channel.
    const { reply } = await unary(c, 'Unary', {}, { metadata: { authorization: `Bearer ${'t'.repeat(8000)}` }, deadlineMs: 3000 });
    expect(reply.message).toBe('still here');
  });

  it('lets maxMetadataSize raise the limit', async () => {
    const { target } = await serve({ maxMetadataSize: 64 * 1024 });
    const c = open(client(target));
    const big: Record<string, string> = {};
    for (let i = 0; i < 8; i++) big[`x-big-${i}`] = 'a'.repeat(4096);
    const { reply } = await unary(c, 'Unary', {}, { metadata: big, deadlineMs: 3000 });
    expect(reply.message).toBe('still here');
  });

  it('documents its defaults', () => {
    expect(GRPC_DEFAULTS).toMatchObject({
      maxConcurrentStreams: 100,
      maxConnectionAge: 1_800_000,
      maxConnectionAgeGrace: 300_000,
      maxMetadataSize: 16_384,
      maxHealthWatches: { perConnection: 10, total: 1000 },
    });
  });
});
