import type { Socket } from 'node:net';
import type { DescMessage } from '@bufbuild/protobuf';
import { HTTPError, type Context } from '@fw/core';
import type { GrpcForeignCallInit, GrpcForeignStream, GrpcServiceMethod, GrpcServiceRunner } from '@fw/grpc';
import { statusWireError } from './errors.js';
import { requestBinary, responseFromBinary } from './messages.js';
import { prepareCall, sendUnary, serveStream, WireFailure, type ServeOptions } from './serve.js';

/** A hand-written method as served here: the runner's method and its messages' descriptors. */
export interface ServedServiceMethod {
  readonly method: GrpcServiceMethod;
  readonly input: DescMessage;
  readonly output: DescMessage;
}

/** The peer as grpc-js's `getPeer()` gives it, so that the call's `ctx.ip` is read by the gRPC port's rule. */
function peerOf(ctx: Context): string {
  // An injected request (`app.inject`) may have no socket.
  const socket = ctx.req.socket as Partial<Socket> | undefined;
  const address = socket?.remoteAddress;
  return address === undefined ? 'unknown' : `${address}:${socket?.remotePort ?? 0}`;
}

/**
 * Serves one call of a hand-written method: the request checked and read as for operations, then
 * re-encoded as protobuf binary for the method's own deserializer (so the handler gets the
 * request object it gets on the gRPC port), run by `@fw/grpc`'s runner (the grpc `middleware`,
 * the handler, the status mapping), and the response's bytes written in the call's codec.
 * Client-streaming and bidi methods are `unimplemented` here. Throws what happens before anything
 * is sent: the plugin's guard answers it.
 */
export async function serveServiceCall(ctx: Context, served: ServedServiceMethod, runner: GrpcServiceRunner, options: ServeOptions): Promise<void> {
  const { method, input, output } = served;
  const { path, rpc } = method;
  if (rpc.type === 'clientStream' || rpc.type === 'bidi') {
    const kind = rpc.type === 'bidi' ? 'bidirectional streaming' : 'client-streaming';
    throw new HTTPError(501, `${path} is a ${kind} method: Connect and gRPC-Web on the HTTP port serve unary and server-streaming methods only; call it on the gRPC port`, undefined, { code: 'unimplemented' });
  }
  const stream = rpc.type === 'serverStream';
  const { kind, deadline, bytes } = await prepareCall(ctx, { path, readOnly: method.noSideEffects, stream }, options);
  const request = requestBinary(input, kind.codec, bytes, options.maxJsonDepth);
  // The earliest of the client's timeout and the request's own deadline (the app's `timeout`).
  const own = ctx.deadline;
  const at = deadline === undefined ? own : Math.min(Date.now() + deadline, own ?? Infinity);
  const init = (signal: AbortSignal): GrpcForeignCallInit => ({ request, headers: ctx.headers, peer: peerOf(ctx), deadline: at, signal, carrier: ctx });
  if (!stream) {
    const result = await runner.unary(path, init(ctx.signal));
    if (!result.ok) throw new WireFailure(statusWireError(result.status));
    for (const [name, value] of Object.entries(result.headers)) ctx.res.setHeader(name, value);
    sendUnary(ctx, kind, responseFromBinary(output, kind.codec, result.message), options, result.trailers);
    return;
  }
  let call: GrpcForeignStream | undefined;
  await serveStream<Uint8Array>(ctx, kind, deadline, options, {
    open: (callCtx) => {
      call = runner.serverStream(path, init(callCtx.signal));
      return Promise.resolve(call.messages);
    },
    encode: (message) => responseFromBinary(output, kind.codec, message),
    headers: () => call?.headers() ?? {},
    trailers: () => call?.trailers() ?? {},
    failure: () => {
      const status = call?.failure();
      return status === undefined ? undefined : statusWireError(status);
    },
  });
}
