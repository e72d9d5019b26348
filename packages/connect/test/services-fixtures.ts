import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createFileRegistry, fromBinary, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { credentials, loadPackageDefinition, Metadata, type Client, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { createContextKey, HTTPError, type Middleware, type RequestContext } from '@fw/core';
import { DEFAULT_LOADER_OPTIONS, GrpcContext, type GrpcClientStreamHandler, type GrpcServerStreamHandler, type GrpcServicesConfig, type GrpcUnaryHandler } from '@fw/grpc';
import { bufImage } from '../../../tooling/testing/buf.js';

/**
 * Hand-written services the tests serve on both ports: `demo.v1.GreeterService` of
 * `protos/demo/v1/greeter.proto`, in every handler form @fw/grpc documents.
 */

export const GREETER_PROTO = path.join(__dirname, 'protos/demo/v1/greeter.proto');
export const SERVICE = 'demo.v1.GreeterService';

interface HelloRequest {
  name: string;
  visits: string;
  mood: string;
}
interface CountRequest {
  from: number;
  fail: boolean;
}

/** What the handlers and middleware saw. */
export const seen = {
  requests: [] as unknown[],
  grpcMiddleware: 0,
  globalMiddleware: 0,
  cancelled: 0,
  /** The reasons the signals of Sleep's calls aborted with. */
  sleepAborts: [] as unknown[],
};

export const TENANT = createContextKey<string>('tenant', { default: 'none' });

/** A gRPC middleware (it runs on the call's `GrpcContext`): the tenant from the metadata. */
export const tagCall: Middleware<RequestContext> = (ctx, next) => {
  if (ctx instanceof GrpcContext) {
    seen.grpcMiddleware++;
    const tenant = ctx.headers['x-tenant'];
    if (typeof tenant === 'string') ctx.set(TENANT, tenant);
  }
  return next();
};

/** A global middleware: the user from `authorization`. */
export const identify: Middleware<RequestContext> = (ctx, next) => {
  seen.globalMiddleware++;
  const token = ctx.headers.authorization;
  if (typeof token === 'string') ctx.user = token.replace(/^Bearer /, '');
  return next();
};

function reply(call: Parameters<GrpcUnaryHandler<HelloRequest>>[0], form: string): Record<string, unknown> {
  seen.requests.push(call.request);
  const token = call.metadata.get('x-token')[0];
  return {
    message: `Hello ${call.request.name} (${form})`,
    visits: String(BigInt(call.request.visits) + 1n),
    mood: call.request.mood,
    seen: {
      token: token === undefined ? '' : String(token),
      user: typeof call.ctx.user === 'string' ? call.ctx.user : '',
      tenant: call.ctx.get(TENANT),
      deadline: Number.isFinite(Number(call.getDeadline())) ? 'set' : 'none',
      path: call.ctx.path,
    },
  };
}

const SayHello: GrpcUnaryHandler<HelloRequest> = async (call) => {
  // A load report (ORCA), as a handler on the gRPC port may record: over Connect it is dropped, not a failure.
  call.getMetricsRecorder().recordCPUUtilizationMetric(0.25);
  await Promise.resolve();
  return reply(call, 'async');
};

const SayHelloCallback: GrpcUnaryHandler<HelloRequest> = (call, callback) => {
  const trailer = new Metadata();
  trailer.set('x-served-by', 'callback');
  setImmediate(() => callback(null, reply(call, 'callback'), trailer));
};

const Fail: GrpcUnaryHandler<HelloRequest> = (call, callback) => {
  switch (call.request.name) {
    case 'missing':
      throw new HTTPError(404, 'No greeting for missing');
    case 'status':
      callback({ code: 9, details: 'Not now' });
      return;
    case 'auth':
      throw new HTTPError(401, 'Who are you?', undefined, { headers: { 'www-authenticate': 'Bearer' } });
    default:
      throw new Error('database on fire');
  }
};

const Countdown: GrpcServerStreamHandler<CountRequest, { left: number }> = (call) => {
  let left = call.request.from;
  // grpc-js's back-pressure: a write that returns false waits for 'drain'.
  const more = (): void => {
    while (left > 0) {
      if (!call.write({ left: left-- })) {
        call.once('drain', more);
        return;
      }
    }
    if (call.request.fail) call.emit('error', new HTTPError(409, 'Out of stock', undefined, { code: 'failed_precondition' }));
    else call.end(countdownTrailers(call.request.from));
  };
  more();
};

/** The trailing metadata Countdown ends with: a text entry and a binary one. */
function countdownTrailers(from: number): Metadata {
  const trailers = new Metadata();
  trailers.set('x-counted', String(from));
  trailers.set('x-tally-bin', Buffer.from([from, 0xff]));
  return trailers;
}

const CountdownIterable: GrpcServerStreamHandler<CountRequest, { left: number }> = async function* (call) {
  for (let left = call.request.from; left > 0; left--) yield { left };
  if (call.request.fail) throw { code: 9, details: 'Out of stock' };
};

const Wait: GrpcServerStreamHandler<CountRequest, { left: number }> = (call) => {
  call.on('cancelled', () => seen.cancelled++);
  call.write({ left: 1 });
};

const Sleep: GrpcUnaryHandler<HelloRequest> = (call, callback) => {
  call.ctx.signal.addEventListener('abort', () => {
    seen.sleepAborts.push(call.ctx.signal.reason);
    callback(null, { message: 'too late' });
  });
};

const Collect: GrpcClientStreamHandler<HelloRequest, { message: string }> = (call, callback) => {
  call.on('data', () => undefined);
  call.on('end', () => callback(null, { message: 'collected' }));
};

/** The hand-written part of the gRPC config, given to both plugins. */
export const GREETER: GrpcServicesConfig = {
  protoPath: GREETER_PROTO,
  services: { [SERVICE]: { SayHello, SayHelloCallback, Fail, Countdown, CountdownIterable, Wait, Sleep, Collect } },
  middleware: [tagCall, 'global'],
};

/** The client's descriptors, from `buf build` of the .proto (not the server's proto-loader path). */
export async function greeterService(): Promise<DescService> {
  const image = await bufImage([{ file: 'demo/v1/greeter.proto', text: readFileSync(GREETER_PROTO, 'utf8') }]);
  const service = createFileRegistry(fromBinary(FileDescriptorSetSchema, image)).getService(SERVICE);
  if (service === undefined) throw new Error(`${SERVICE} is not in the buf image`);
  return service;
}

/** A grpc-js client of the service on the gRPC port. */
export function grpcClient(target: string): Client & Record<string, (...args: unknown[]) => unknown> {
  const definition = loadSync(GREETER_PROTO, DEFAULT_LOADER_OPTIONS);
  const loaded = loadPackageDefinition(definition) as unknown as { demo: { v1: { GreeterService: ServiceClientConstructor } } };
  return new loaded.demo.v1.GreeterService(target, credentials.createInsecure()) as unknown as Client & Record<string, (...args: unknown[]) => unknown>;
}
