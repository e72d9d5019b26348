import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { Application, type ApplicationConfig, type Middleware, type RequestContext } from '@fw/core';
import { grpcPlugin, type GrpcConfig, type GrpcPlugin } from '../src/index.js';

/** The test .proto. */
export const PROTO = path.join(__dirname, 'fixtures', 'echo.proto');

const definition = loadSync(PROTO, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
const loaded = grpc.loadPackageDefinition(definition) as unknown as {
  fwtest: { Echo: grpc.ServiceClientConstructor; Admin: grpc.ServiceClientConstructor };
};

/** Request and reply shapes of the test proto (as loaded with the default loader options). */
export interface EchoRequest {
  message?: string;
  count?: number;
  delay_ms?: number;
  payload?: Buffer;
}
export interface EchoReply {
  message: string;
  index: number;
  user: string;
  remaining_ms: string;
  peer: string;
}

type Unary = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<EchoReply>) => grpc.ClientUnaryCall;

/** A grpc-js client of `fwtest.Echo` (or `fwtest.Admin`). */
export function client(target: string, service: 'Echo' | 'Admin' = 'Echo', credentials = grpc.credentials.createInsecure(), options?: grpc.ClientOptions): grpc.Client {
  return new loaded.fwtest[service](target, credentials, options);
}

/** The streaming methods of the Echo client, typed. */
export interface EchoStreams {
  ServerStream(request: unknown, metadata?: grpc.Metadata): grpc.ClientReadableStream<EchoReply>;
  ServerStreamIterable(request: unknown): grpc.ClientReadableStream<EchoReply>;
  ClientStream(callback: grpc.requestCallback<EchoReply>): grpc.ClientWritableStream<unknown>;
  Bidi(metadata?: grpc.Metadata): grpc.ClientDuplexStream<unknown, EchoReply>;
}

/** The client's streaming methods. */
export function streams(c: grpc.Client): EchoStreams {
  return c as unknown as EchoStreams;
}

/** Result of a unary call: the reply plus the initial metadata the server sent. */
export interface UnaryResult {
  reply: EchoReply;
  metadata: grpc.Metadata;
}

/** Calls a unary method; rejects with the grpc-js ServiceError. */
export function unary(
  c: grpc.Client,
  method: string,
  request: unknown,
  options: { metadata?: Record<string, string>; deadlineMs?: number } = {},
): Promise<UnaryResult> {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
  const callOptions: grpc.CallOptions = options.deadlineMs !== undefined ? { deadline: Date.now() + options.deadlineMs } : {};
  return new Promise((resolve, reject) => {
    let initial = new grpc.Metadata();
    const fn = (c as unknown as Record<string, Unary>)[method]!.bind(c);
    const call = fn(request, metadata, callOptions, (err, reply) => {
      if (err) reject(err);
      else resolve({ reply: reply!, metadata: initial });
    });
    call.on('metadata', (md: grpc.Metadata) => {
      initial = md;
    });
  });
}

/** Expects a promise to reject with a gRPC status; returns the ServiceError. */
export async function failure(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

/** Reads a whole server stream. */
export function collect<T>(stream: grpc.ClientReadableStream<T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    stream.on('data', (item: T) => items.push(item));
    stream.on('error', reject);
    stream.on('end', () => resolve(items));
  });
}

/** An app with the gRPC plugin listening on free ports of 127.0.0.1. */
export interface Started {
  app: Application;
  grpc: GrpcPlugin;
  target: string;
  logs: Array<{ message: string; error: unknown }>;
}

/** Builds an Application, registers `grpcPlugin` (port 0, 127.0.0.1, the test proto) and listens. */
export async function start(
  config: Partial<GrpcConfig> & Pick<GrpcConfig, 'services'>,
  prepare?: (app: Application) => void,
  appConfig: ApplicationConfig = {},
): Promise<Started> {
  const logs: Started['logs'] = [];
  const app = new Application(appConfig);
  prepare?.(app);
  const plugin = grpcPlugin({ port: 0, host: '127.0.0.1', protoPath: PROTO, onLog: (message, error) => logs.push({ message, error }), ...config });
  app.register(plugin);
  await app.listen(0, '127.0.0.1');
  return { app, grpc: plugin, target: plugin.address!.target, logs };
}

/** Closes the clients, then the app (and with it the gRPC server). */
export async function stop(server: Started, ...clients: grpc.Client[]): Promise<void> {
  for (const c of clients) c.close();
  await server.app.close();
}

let wrappers = 0;

/** Adds a wrapper to the app the way plugins do (`host.wrap`), around every call and request. */
export function wrap(app: Application, wrapper: Middleware<RequestContext>): void {
  app.register({ name: `test-wrapper-${++wrappers}`, setup: (host) => void host.wrap(wrapper) });
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
