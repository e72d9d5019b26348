import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { GrpcContext, type GrpcUnaryHandler } from '../src/index.js';
import { sleep, start, wrap, type EchoReply, type EchoRequest, type Started } from './helpers.js';

/** EchoRequest { delay_ms: 5000 } in a gRPC length-prefixed frame. */
const SLOW_REQUEST = Buffer.from([0, 0, 0, 0, 3, 0x18, 0x88, 0x27]);

/**
 * A raw HTTP/2 gRPC call to Slow that announces `timeoutMs` in grpc-timeout but cancels
 * (RST_STREAM CANCEL) after `cancelAfterMs`, as a client does when its own deadline passes: its
 * deadline started earlier than the server's copy, which counts from when the headers arrived.
 */
async function callAndCancel(target: string, timeoutMs: number, cancelAfterMs: number, started: Promise<void>): Promise<void> {
  const session = http2.connect(`http://${target}`);
  try {
    const stream = session.request({
      ':method': 'POST',
      ':path': '/fwtest.Echo/Slow',
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${timeoutMs}m`,
    });
    stream.on('error', () => undefined);
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.end(SLOW_REQUEST);
    // Counted from when the server has the call: connecting and sending are not part of the skew.
    await started;
    await sleep(cancelAfterMs);
    stream.close(http2.constants.NGHTTP2_CANCEL);
    await closed;
  } finally {
    session.close();
  }
}

describe('how a cancelled call with a deadline is classified', () => {
  let server: Started;
  const outcomes: Array<number | undefined> = [];
  const aborted: unknown[] = [];
  let markStarted: () => void = () => undefined;

  function nextStart(): Promise<void> {
    return new Promise((resolve) => (markStarted = resolve));
  }

  const Slow: GrpcUnaryHandler<EchoRequest, Partial<EchoReply>> = async (call) => {
    markStarted();
    try {
      await sleep(call.request.delay_ms ?? 0, call.ctx.signal);
    } catch (reason) {
      aborted.push(reason);
      throw reason;
    }
    return {};
  };

  beforeAll(async () => {
    server = await start({ services: { 'fwtest.Echo': { Slow } } }, (app) =>
      wrap(app, async (ctx, next) => {
        try {
          await next();
        } finally {
          outcomes.push(ctx instanceof GrpcContext ? ctx.protocolStatus : undefined);
        }
      }),
    );
  });

  afterAll(async () => {
    await server.app.close();
  });

  beforeEach(() => {
    outcomes.length = 0;
    aborted.length = 0;
  });

  async function settled(): Promise<void> {
    for (let i = 0; i < 100 && outcomes.length === 0; i++) await sleep(10);
  }

  it("records DEADLINE_EXCEEDED when the client cancels at its deadline, a little before the server's copy of it", async () => {
    await callAndCancel(server.target, 245, 200, nextStart());
    await settled();
    expect(outcomes).toEqual([grpc.status.DEADLINE_EXCEEDED]);
    expect(aborted).toEqual([expect.objectContaining({ code: 'deadline_exceeded', statusCode: 504 })]);
  });

  it('records CANCELLED when the client cancels long before its deadline', async () => {
    await callAndCancel(server.target, 2000, 100, nextStart());
    await settled();
    expect(outcomes).toEqual([grpc.status.CANCELLED]);
    expect(aborted).toEqual([expect.objectContaining({ code: grpc.status.CANCELLED })]);
  });
});
