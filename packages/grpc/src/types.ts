import type {
  ChannelOptions,
  ServerCredentials,
  ServerDuplexStream,
  ServerReadableStream,
  ServerUnaryCall,
  ServerWritableStream,
  ServerErrorResponse,
  StatusObject,
  Metadata,
} from '@grpc/grpc-js';
import type { Options as ProtoLoaderOptions, PackageDefinition } from '@grpc/proto-loader';
import type { AnyMiddleware, Middleware, ProcedureInfo, RequestContext, TraceInfo } from '@fw/core';
import type { LogFunction, TrustProxy } from '@fw/core/plugin';
import type { GrpcContext } from './context.js';

/** The four kinds of gRPC method. */
export type GrpcMethodType = 'unary' | 'clientStream' | 'serverStream' | 'bidi';

/** The called RPC of a gRPC call: its `service` (`package.Service`) and `method`, as the .proto declares them (core's `ProcedureInfo`). */
export type RpcInfo = ProcedureInfo;

/** Which RPC a call is for: `RpcInfo` (`service`, `method` as the .proto declares them) and the kind of method. */
export interface GrpcRpcInfo extends RpcInfo {
  /** The kind of method. */
  readonly type: GrpcMethodType;
}

/** What every call object carries besides grpc-js's own members: the per-call context. */
export interface GrpcCallExtras {
  /** The per-call context (headers, state, user, deadline, signal, setHeader…). */
  ctx: GrpcContext;
}

/** A unary call: `call.request` is the request message. */
export type GrpcUnaryCall<TRequest = unknown, TResponse = unknown> = ServerUnaryCall<TRequest, TResponse> & GrpcCallExtras;
/** A client-streaming call: read request messages from it (`for await`, `'data'`). */
export type GrpcClientStreamCall<TRequest = unknown, TResponse = unknown> = ServerReadableStream<TRequest, TResponse> & GrpcCallExtras;
/** A server-streaming call: `call.request`, then `call.write()` responses and `call.end()`. */
export type GrpcServerStreamCall<TRequest = unknown, TResponse = unknown> = ServerWritableStream<TRequest, TResponse> & GrpcCallExtras;
/** A bidirectional call: read requests and write responses. */
export type GrpcBidiCall<TRequest = unknown, TResponse = unknown> = ServerDuplexStream<TRequest, TResponse> & GrpcCallExtras;
/** Any call object a handler receives. */
export type GrpcCall = GrpcUnaryCall | GrpcClientStreamCall | GrpcServerStreamCall | GrpcBidiCall;

/**
 * The callback of the `(call, callback)` forms: `callback(error, response, trailers?)`. The error may be
 * an HTTPError (mapped) or a grpc-js status, `{ code, details }` or a plain `{ code, message }` (sent as it is).
 */
export type GrpcCallback<TResponse = unknown> = (
  error: Error | ServerErrorResponse | Partial<StatusObject> | null | undefined,
  value?: TResponse | null,
  trailer?: Metadata,
  flags?: number,
) => void;

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/**
 * A unary method: grpc-js's `(call, callback)`, or `(call) => response` / `async (call) => response`.
 * A handler that declares the callback parameter answers through it; otherwise its return value is sent.
 */
export type GrpcUnaryHandler<TRequest = unknown, TResponse = unknown> = (
  call: GrpcUnaryCall<TRequest, TResponse>,
  callback: GrpcCallback<TResponse>,
) => Awaitable<TResponse | void>;

/** A client-streaming method: `(call, callback)` or `async (call) => response` after reading the requests. */
export type GrpcClientStreamHandler<TRequest = unknown, TResponse = unknown> = (
  call: GrpcClientStreamCall<TRequest, TResponse>,
  callback: GrpcCallback<TResponse>,
) => Awaitable<TResponse | void>;

/**
 * A server-streaming method: write to the call and end it, or return an (async) iterable of responses.
 * When an async handler's promise resolves, the stream is ended if the handler did not end it.
 */
export type GrpcServerStreamHandler<TRequest = unknown, TResponse = unknown> = (
  call: GrpcServerStreamCall<TRequest, TResponse>,
) => void | Promise<void> | AsyncIterable<TResponse> | Iterable<TResponse>;

/** A bidirectional method: read and write the call; same ending rules as server streaming. */
export type GrpcBidiHandler<TRequest = unknown, TResponse = unknown> = (
  call: GrpcBidiCall<TRequest, TResponse>,
) => void | Promise<void> | AsyncIterable<TResponse> | Iterable<TResponse>;

/** Any grpc-js server call object, without our `ctx` (what handlers typed with grpc-js's own types expect). */
export type GrpcAnyServerCall =
  | ServerUnaryCall<unknown, unknown>
  | ServerReadableStream<unknown, unknown>
  | ServerWritableStream<unknown, unknown>
  | ServerDuplexStream<unknown, unknown>;

/**
 * One method implementation, any kind. Declared with method syntax so that handlers typed with
 * their own messages — through the `Grpc*Handler` aliases (which type `call.ctx`) or grpc-js's
 * `handleUnaryCall`/`ServerDuplexStream`… types — are all accepted.
 */
export type GrpcMethodImplementation = {
  // An inline handler sees `call.ctx` typed too (always present at run time; optional here so that
  // handlers typed with grpc-js's own call types, which lack it, are accepted).
  bivarianceHack(call: GrpcAnyServerCall & { readonly ctx?: GrpcContext }, callback: GrpcCallback): unknown;
}['bivarianceHack'];

/** The implementations of one service, by method name (`SayHello`, or its camelCase `sayHello`). */
export type GrpcServiceImplementation = Record<string, GrpcMethodImplementation>;

/** A middleware written for gRPC calls (middleware typed on core's `RequestContext` is one too). */
export type GrpcMiddleware = Middleware<GrpcContext>;

/** Options of `@grpc/proto-loader` (`includeDirs`, `keepCase`, `longs`, `enums`, `defaults`, `oneofs`…). */
export type GrpcLoaderOptions = ProtoLoaderOptions;

/** A package definition as `@grpc/proto-loader`'s `load`/`loadSync` returns it. */
export type GrpcPackageDefinition = PackageDefinition;

/** Health status of a service in `grpc.health.v1.Health`. */
export type GrpcServingStatus = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN';

/** Configuration of the gRPC server (`protocols.grpc` of `createApp`, or `grpcPlugin(config)`). */
export interface GrpcConfig {
  /** Port of the gRPC server (0 picks a free port; read it from the plugin's `address`). @default 50051 */
  port?: number;
  /** Host/interface the gRPC server binds. @default '0.0.0.0' */
  host?: string;
  /**
   * Fully-qualified service name (`<package>.<Service>`) → method implementations of your own
   * .proto. Required unless operations (`app.operation()`) name gRPC services.
   */
  services?: Record<string, GrpcServiceImplementation>;
  /** Transport security (`ServerCredentials.createSsl(...)`). @default ServerCredentials.createInsecure() */
  credentials?: ServerCredentials;
  /** The program's .proto file(s); loaded with `@grpc/proto-loader`. Give this or `packageDefinition` with `services`. */
  protoPath?: string | string[];
  /**
   * The directory where the .proto files generated from operations are kept (and committed).
   * `listen()` reads the field numbers from the files there (it never writes); `writeProtos()`
   * (`fw emit`) writes them. Without it, field numbers follow declaration order.
   * @default undefined
   */
  protoOut?: string;
  /**
   * Options for loading `protoPath`, merged over our defaults.
   * @default { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }
   */
  loaderOptions?: GrpcLoaderOptions;
  /** An already loaded package definition (from `@grpc/proto-loader`), instead of `protoPath`. */
  packageDefinition?: GrpcPackageDefinition;
  /** Serve `grpc.health.v1.Health` (SERVING while up, NOT_SERVING once close() starts). @default true */
  health?: boolean;
  /** Serve gRPC server reflection (`grpc.reflection.v1` and `v1alpha`). @default false */
  reflection?: boolean;
  /** Largest request message in bytes; larger ones are answered RESOURCE_EXHAUSTED. @default 4194304 (4 MiB) */
  maxReceiveMessageLength?: number;
  /** Largest response message in bytes; larger ones fail with RESOURCE_EXHAUSTED. @default unlimited */
  maxSendMessageLength?: number;
  /**
   * Most calls one connection may run at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS, grpc-js's
   * `grpc.max_concurrent_streams`); a client's further calls wait for a free slot.
   * @default 100
   */
  maxConcurrentStreams?: number;
  /**
   * Age in ms after which a connection is asked to go away (GOAWAY; clients reconnect), bounding how
   * long one connection and the streams on it can hold server resources (`grpc.max_connection_age_ms`).
   * @default 1800000 (30 minutes)
   */
  maxConnectionAge?: number;
  /** How long calls on a connection past `maxConnectionAge` may still run before it is closed, in ms (`grpc.max_connection_age_grace_ms`). @default 300000 (5 minutes) */
  maxConnectionAgeGrace?: number;
  /**
   * Largest request metadata (all headers of one call, HTTP/2 SETTINGS_MAX_HEADER_LIST_SIZE) in
   * bytes; a call with more is refused (RESOURCE_EXHAUSTED) without touching other calls.
   * @default 16384 (16 KiB)
   */
  maxMetadataSize?: number;
  /** Caps on open `grpc.health.v1.Health/Watch` streams; further ones are refused with RESOURCE_EXHAUSTED. @default { perConnection: 10, total: 1000 } */
  maxHealthWatches?: GrpcHealthWatchLimits;
  /** How long close() lets in-flight calls finish (tryShutdown) before cutting them (forceShutdown), in ms. @default 5000 */
  closeTimeout?: number;
  /**
   * Middleware run for every gRPC call, inside the wrappers plugins add with `host.wrap()` (which always run).
   * `'global'`: the app's `use()` middleware, as it is at each call (so `use()` after `listen()` applies).
   * An array: exactly these (may include `'global'` to splice the app's middleware in at that place).
   * @default [] (only the app's wrappers)
   */
  middleware?: 'global' | ReadonlyArray<GrpcMiddleware | AnyMiddleware | 'global'>;
  /** Extra grpc-js server options (keepalive, compression…); the explicit options above win. @default {} */
  serverOptions?: ChannelOptions;
  /** Where server errors (INTERNAL causes) and start-up warnings are reported. @default the app's logger (its `onLog`) */
  onLog?: LogFunction;
}

/** Caps on open health Watch streams. */
export interface GrpcHealthWatchLimits {
  /** Open Watch streams one connection may hold. @default 10 */
  perConnection?: number;
  /** Open Watch streams across all connections. @default 1000 */
  total?: number;
}

/** Where the gRPC server listens. */
export interface GrpcAddress {
  /** The bound host as configured (`0.0.0.0`, `127.0.0.1`, `::`…). */
  host: string;
  /** The bound port (the real one when 0 was configured). */
  port: number;
  /** A target a client on this machine can dial: `<host>:<port>`, with `localhost` for a wildcard host. */
  target: string;
}

/** @deprecated Use `TraceInfo` from `@fw/core`; this alias goes away with the next release. */
export type GrpcTraceContext = TraceInfo;

/** @deprecated Contexts are made by the server from the app's settings; this type goes away with the next release. */
export interface GrpcContextSettings {
  /** The app's `trustProxy`. */
  trustProxy: TrustProxy;
  /** Where server errors are reported. */
  log: LogFunction;
}

/** @deprecated Internal to the server; this type goes away with the next release. */
export interface GrpcStatusObject {
  code: number;
  details: string;
  metadata: Metadata;
}

/** The hand-written part of a gRPC config, as `createGrpcServiceRunner` takes it (same meaning as in `GrpcConfig`). */
export type GrpcServicesConfig = Pick<GrpcConfig, 'services' | 'protoPath' | 'packageDefinition' | 'loaderOptions' | 'middleware'>;

/** What a service runner reads from the application of the transport that uses it. */
export interface GrpcServiceRunnerHost {
  /**
   * The app's global middleware that already ran for the request carrying a call: the runner
   * leaves it out of the gRPC `middleware` list (`'global'` and listed functions alike), so that
   * it runs once per call. Read at each call.
   */
  ran(): readonly AnyMiddleware[];
  /** The app's `trustProxy`: which `x-forwarded-for` hops `ctx.ip` believes. */
  readonly trustProxy: TrustProxy;
  /** Where server errors are reported. */
  readonly log: LogFunction;
}

/** One method of the hand-written services, as another transport serves it. */
export interface GrpcServiceMethod {
  /** The service, method and kind. */
  readonly rpc: GrpcRpcInfo;
  /** `/<package>.<Service>/<Method>`. */
  readonly path: string;
  /** The .proto says `option idempotency_level = NO_SIDE_EFFECTS;`. */
  readonly noSideEffects: boolean;
}

/** One call of a hand-written method made by another transport. */
export interface GrpcForeignCallInit {
  /** The request message, protobuf binary. */
  readonly request: Uint8Array;
  /** The request's headers: the call's metadata (transport headers left out, `-bin` values base64-decoded). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The peer as grpc-js's `getPeer()` gives it: `<address>:<port>`. */
  readonly peer: string;
  /** When the call's deadline passes, in ms since the epoch: the handler's `'cancelled'`, then DEADLINE_EXCEEDED. */
  readonly deadline?: number | undefined;
  /** Aborted when the client leaves: the call is cancelled (the handler sees `'cancelled'`). */
  readonly signal: AbortSignal;
  /**
   * The context of the request that carries the call, whose global middleware ran already: the
   * call's context starts with its `user`, `state`, per-call variables and tracing members.
   */
  readonly carrier?: RequestContext | undefined;
}

/** How a call failed, as the gRPC port sends it. */
export interface GrpcForeignStatus {
  /** The gRPC status code (1–16). */
  readonly code: number;
  /** The status message (masked for server faults). */
  readonly details: string;
  /** The trailers of the status (the error's headers, the headers the call set), as headers; `-bin` values base64. */
  readonly metadata: Readonly<Record<string, string>>;
  /** What was thrown, passed to the callback or emitted (the status is already mapped and logged). */
  readonly error: unknown;
}

/** The outcome of a unary call. */
export type GrpcForeignUnaryResult =
  | {
      readonly ok: true;
      /** The response message, protobuf binary (the method's own serializer). */
      readonly message: Uint8Array;
      /** The response metadata sent with it (`ctx.setHeader`, `call.sendMetadata`), as headers. */
      readonly headers: Readonly<Record<string, string>>;
      /** The trailers given to the callback, as headers. */
      readonly trailers: Readonly<Record<string, string>>;
    }
  | { readonly ok: false; readonly status: GrpcForeignStatus };

/** A server-streaming call in progress. */
export interface GrpcForeignStream {
  /**
   * The response messages (protobuf binary), each taken with back-pressure: a `call.write()` that
   * finds one waiting returns false and `'drain'` follows when it was taken. Ends when the call
   * ends; throws when it failed (`failure()` then says how). `return()` cancels the call.
   */
  readonly messages: AsyncIterableIterator<Uint8Array>;
  /** How the call failed, once `messages` threw; undefined while it runs or when it succeeded. */
  failure(): GrpcForeignStatus | undefined;
  /** The response metadata sent so far (`ctx.setHeader` before the handler ran, `call.sendMetadata`), as headers. */
  headers(): Readonly<Record<string, string>>;
  /** The trailing metadata the handler ended the stream with (`call.end(metadata)`), as headers (`-bin` values in base64); empty until then. */
  trailers(): Readonly<Record<string, string>>;
}

/** The hand-written services of a gRPC config, run for another transport (`@fw/connect`). */
export interface GrpcServiceRunner {
  /** One serialized `google.protobuf.FileDescriptorProto` per file of the definition, valid for strict descriptor pools. */
  readonly descriptors: readonly Uint8Array[];
  /** The methods of the configured services, implemented or not. */
  readonly methods: readonly GrpcServiceMethod[];
  /** The fully-qualified names the definition declares (generated types may not reuse them). */
  readonly names: ReadonlySet<string>;
  /** Runs a unary call of the method at `path` through the gRPC `middleware` and its handler. */
  unary(path: string, init: GrpcForeignCallInit): Promise<GrpcForeignUnaryResult>;
  /** Starts a server-streaming call of the method at `path`. */
  serverStream(path: string, init: GrpcForeignCallInit): GrpcForeignStream;
}
