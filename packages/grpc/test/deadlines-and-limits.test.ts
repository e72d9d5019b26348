import * as grpc from '@grpc/grpc-js';
import { toHTTPError } from '@fw/core';
import { isClientGone } from '@fw/core/plugin';
import { GrpcContext, type GrpcUnaryHandler } from '../src/index.js';
import { client, failure, sleep, start, unary, wrap, type EchoReply, type EchoRequest, type Started } from './helpers.js';

describe('deadlines and cancellation', () => {
  let server: Started;
  let echo: grpc.Client;
  const outcomes: Array<{ path: string; protocolStatus: number | undefined }> = [];
  let lastRun: { aborted: unknown; finishedAt: number; startedAt: number } | undefined;

  const Slow: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    const ctx = call.ctx;
    const run = { aborted: undefined as unknown, startedAt: Date.now(), finishedAt: 0 };
    lastRun = run;
    const remaining = ctx.timeRemaining();
    try {
      await sleep(call.request.delay_ms ?? 0, ctx.signal);
    } catch (reason) {
      run.aborted = reason;
      throw reason;
    } finally {
      run.finishedAt = Date.now();
    }
    return { message: typeof ctx.deadline === 'number' ? 'has deadline' : 'no deadline', remaining_ms: String(Number.isFinite(remaining) ? remaining : -1) };
  };

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { Slow } } }, (app) =>
      wrap(app, async (ctx, next) => {
        try {
          await next();
        } finally {
          outcomes.push({ path: ctx.path, protocolStatus: ctx instanceof GrpcContext ? ctx.protocolStatus : undefined });
        }
      }),
    );
    echo = client(server.target);
  });

  afterAll(async () => {
    echo.close();
    await server.app.close();
  });

  beforeEach(() => {
    outcomes.length = 0;
    lastRun = undefined;
  });

  it('shows the handler the deadline and the time remaining', async () => {
    const { reply } = await unary(echo, 'Slow', { delay_ms: 0 }, { deadlineMs: 3000 });
    expect(reply.message).toBe('has deadline');
    const remaining = Number(reply.remaining_ms);
    expect(remaining).toBeGreaterThan(1000);
    expect(remaining).toBeLessThanOrEqual(3000);
  });

  it('reports no deadline when the client sets none', async () => {
    const { reply } = await unary(echo, 'Slow', { delay_ms: 0 });
    expect(reply).toMatchObject({ message: 'no deadline', remaining_ms: '-1' });
  });

  it('aborts ctx.signal when the deadline passes, so the work stops, and records DEADLINE_EXCEEDED', async () => {
    const err = await failure(unary(echo, 'Slow', { delay_ms: 5000 }, { deadlineMs: 150 }));
    expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lastRun!.aborted).toMatchObject({ name: 'HTTPError', code: 'deadline_exceeded', statusCode: 504 });
    // A deadline that passed is no cancellation by the client.
    expect(isClientGone(lastRun!.aborted)).toBe(false);
    expect(lastRun!.finishedAt - lastRun!.startedAt).toBeLessThan(1000);
    expect(outcomes).toEqual([{ path: '/fwtest.Echo/Slow', protocolStatus: grpc.status.DEADLINE_EXCEEDED }]);
  });

  it('aborts ctx.signal when the client cancels, and records CANCELLED', async () => {
    const call = (echo as unknown as { Slow(r: unknown, cb: grpc.requestCallback<EchoReply>): grpc.ClientUnaryCall }).Slow({ delay_ms: 5000 }, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    call.cancel();
    for (let i = 0; i < 50 && outcomes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lastRun!.aborted).toMatchObject({ name: 'GrpcError', code: grpc.status.CANCELLED });
    expect(outcomes).toEqual([{ path: '/fwtest.Echo/Slow', protocolStatus: grpc.status.CANCELLED }]);
  });

  it("marks the client's cancellation as such: not logged, and no server error to error middleware", async () => {
    const logged = server.logs.length;
    const call = (echo as unknown as { Slow(r: unknown, cb: grpc.requestCallback<EchoReply>): grpc.ClientUnaryCall }).Slow({ delay_ms: 5000 }, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    call.cancel();
    for (let i = 0; i < 50 && outcomes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(isClientGone(lastRun!.aborted)).toBe(true);
    // What an error middleware of the usual kind reads: 499, the client's doing, not a 5xx to log.
    expect(toHTTPError(lastRun!.aborted).statusCode).toBe(499);
    expect(server.logs.slice(logged)).toEqual([]);
  });
});

describe('message size limits', () => {
  let server: Started;
  let echo: grpc.Client;
  let handled = 0;

  const UnaryAsync: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    handled++;
    return { message: 'x'.repeat(call.request.count ?? 0) };
  };

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { UnaryAsync } }, maxReceiveMessageLength: 1024, maxSendMessageLength: 2048 });
    echo = client(server.target);
  });

  afterAll(async () => {
    echo.close();
    await server.app.close();
  });

  it('accepts messages within the limits', async () => {
    const { reply } = await unary(echo, 'UnaryAsync', { payload: Buffer.alloc(512), count: 1000 });
    expect(reply.message).toHaveLength(1000);
  });

  it('answers RESOURCE_EXHAUSTED to a request larger than maxReceiveMessageLength without running the handler', async () => {
    handled = 0;
    const err = await failure(unary(echo, 'UnaryAsync', { payload: Buffer.alloc(4096) }));
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(handled).toBe(0);
  });

  it('fails with RESOURCE_EXHAUSTED when the response exceeds maxSendMessageLength', async () => {
    const err = await failure(unary(echo, 'UnaryAsync', { count: 4096 }));
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });
});
