// grpc.testing.TestService written on fw the documented way: grpc-js-style handlers in each of the
// forms the README gives (callback, async function, async generator), the Echo
// Metadata feature as protocol-neutral middleware, statuses as grpc-js status objects.
import path from 'node:path';
import { Metadata } from '@grpc/grpc-js';
import type { Middleware, RequestContext } from '@fw/core';
import { GrpcError, GRPC_STATUS, type GrpcBidiCall, type GrpcBidiHandler, type GrpcClientStreamHandler, type GrpcContext, type GrpcServerStreamHandler, type GrpcUnaryHandler } from '../../src/index.js';

/** The directory of the interop .proto files (their imports name each other from here). */
export const PROTO_DIR = path.join(__dirname, 'proto');
/** The file that declares `grpc.testing.TestService`. */
export const TEST_PROTO = path.join(PROTO_DIR, 'test.proto');

/** Echo Metadata: the server sends this request header back as a header. */
export const ECHO_INITIAL = 'x-grpc-test-echo-initial';
/** Echo Metadata: the server sends this binary request header back as a trailer. */
export const ECHO_TRAILING = 'x-grpc-test-echo-trailing-bin';

/** Messages as proto-loader gives them with the plugin's loader options (`defaults: true`: unset messages are null). */
export interface Payload {
  type?: string;
  body: Buffer;
}
export interface EchoStatus {
  code: number;
  message: string;
}
export interface ResponseParameters {
  size: number;
  interval_us: number;
}
export interface SimpleRequest {
  response_type: string | number;
  response_size: number;
  payload: Payload | null;
  response_status: EchoStatus | null;
}
export interface SimpleResponse {
  payload: Payload;
}
export interface StreamingInputCallRequest {
  payload: Payload | null;
}
export interface StreamingInputCallResponse {
  aggregated_payload_size: number;
}
export interface StreamingOutputCallRequest {
  response_type: string | number;
  response_parameters: ResponseParameters[];
  payload: Payload | null;
  response_status: EchoStatus | null;
}
export interface StreamingOutputCallResponse {
  payload: Payload;
}

/** Echo Metadata, the initial half: typed on `RequestContext`, so it would run on REST and GraphQL too. */
export const echoInitialMetadata: Middleware<RequestContext> = (ctx, next) => {
  const value = ctx.headers[ECHO_INITIAL];
  if (typeof value === 'string') ctx.setHeader(ECHO_INITIAL, value);
  return next();
};

/** A payload of `size` zero bytes (the only type the service has, COMPRESSABLE). */
function zeros(size: number): Payload {
  return { type: 'COMPRESSABLE', body: Buffer.alloc(size) };
}

/** The service knows one payload type: any other is INVALID_ARGUMENT, as the interop spec asks. */
function checkResponseType(type: string | number): void {
  if (type !== 'COMPRESSABLE' && type !== 0) throw new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `Unsupported response type ${type}`);
}

/** Echo Status: the status a request asks for, as the plain object a grpc-js handler would give. */
function requestedStatus(status: EchoStatus | null): EchoStatus | undefined {
  return status !== null && status.code !== 0 ? { code: status.code, message: status.message } : undefined;
}

/** Waits `us` microseconds, or rejects when the call ends first. */
function pause(us: number, signal: AbortSignal): Promise<void> {
  if (us <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, us / 1000);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Echo Metadata, the trailing half, on a stream: the handler runs once the headers went out, so a
 * header it sets is a trailer. The value is the base64 `ctx.headers` shows, written back as the bytes.
 */
function echoTrailingMetadata(ctx: GrpcContext): void {
  const value = ctx.headers[ECHO_TRAILING];
  if (value !== undefined) ctx.setHeader(ECHO_TRAILING, value);
}

const EmptyCall: GrpcUnaryHandler<object, object> = () => ({});

// The (call, callback) form: trailers go with the callback, as in grpc-js.
const UnaryCall: GrpcUnaryHandler<SimpleRequest, SimpleResponse> = (call, callback) => {
  const trailer = new Metadata();
  for (const value of call.metadata.get(ECHO_TRAILING)) trailer.add(ECHO_TRAILING, value);
  checkResponseType(call.request.response_type);
  const status = requestedStatus(call.request.response_status);
  if (status !== undefined) {
    callback({ ...status, metadata: trailer });
    return;
  }
  callback(null, { payload: zeros(call.request.response_size) }, trailer);
};

// An async generator: each yielded value is one response; a thrown status object ends the stream.
const StreamingOutputCall: GrpcServerStreamHandler<StreamingOutputCallRequest, StreamingOutputCallResponse> = async function* (call) {
  echoTrailingMetadata(call.ctx);
  checkResponseType(call.request.response_type);
  for (const parameters of call.request.response_parameters) {
    await pause(parameters.interval_us, call.ctx.signal);
    yield { payload: zeros(parameters.size) };
  }
  const status = requestedStatus(call.request.response_status);
  if (status !== undefined) throw status;
};

// An async function reading the client stream: its result is the response.
const StreamingInputCall: GrpcClientStreamHandler<StreamingInputCallRequest, StreamingInputCallResponse> = async (call) => {
  let total = 0;
  for await (const request of call) total += (request as StreamingInputCallRequest).payload?.body.length ?? 0;
  return { aggregated_payload_size: total };
};

/** Writes the responses one request asks for, waiting for the client to read when it falls behind. */
async function answer(call: GrpcBidiCall<StreamingOutputCallRequest, StreamingOutputCallResponse>, request: StreamingOutputCallRequest): Promise<void> {
  checkResponseType(request.response_type);
  for (const parameters of request.response_parameters) {
    await pause(parameters.interval_us, call.ctx.signal);
    if (!call.write({ payload: zeros(parameters.size) })) await new Promise((resolve) => call.once('drain', resolve));
  }
}

// A bidi async function: answers each request as it arrives; returning ends the stream with OK.
const FullDuplexCall: GrpcBidiHandler<StreamingOutputCallRequest, StreamingOutputCallResponse> = async (call) => {
  echoTrailingMetadata(call.ctx);
  for await (const message of call) {
    const request = message as StreamingOutputCallRequest;
    const status = requestedStatus(request.response_status);
    // Echo Status: the call ends with it, and no further request is read.
    if (status !== undefined) throw status;
    await answer(call, request);
  }
};

// Requests are kept until the client half-closes, then answered in order.
const HalfDuplexCall: GrpcBidiHandler<StreamingOutputCallRequest, StreamingOutputCallResponse> = async (call) => {
  echoTrailingMetadata(call.ctx);
  const requests: StreamingOutputCallRequest[] = [];
  for await (const request of call) requests.push(request as StreamingOutputCallRequest);
  for (const request of requests) {
    const status = requestedStatus(request.response_status);
    if (status !== undefined) throw status;
    await answer(call, request);
  }
};

/** The implementations, by method; `UnimplementedCall` is declared in the .proto and left out. */
export const testService = { EmptyCall, UnaryCall, StreamingOutputCall, StreamingInputCall, FullDuplexCall, HalfDuplexCall };
