import type { Metadata, sendUnaryData } from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { AnyMiddleware } from '@fw/core';
import { callStateOf } from '../context.js';
import { GrpcError } from '../grpc-error.js';
import { GRPC_STATUS } from '../grpc-status.js';
import type {
  GrpcCall,
  GrpcForeignCallInit,
  GrpcForeignStatus,
  GrpcForeignStream,
  GrpcForeignUnaryResult,
  GrpcServiceMethod,
  GrpcServiceRunner,
  GrpcServiceRunnerHost,
  GrpcServicesConfig,
} from '../types.js';
import type { RunnableMethod } from './call-state.js';
import { resolveGrpcConfig } from './config.js';
import { fixFileDescriptors } from './descriptors.js';
import { callCore, ForeignStreamCall, ForeignUnaryCall, sentMetadata } from './foreign-call.js';
import { headersFromMetadata } from './metadata.js';
import { CallRunner, type ChainSource, type ConfiguredMiddleware } from './runner.js';
import { INTERNAL_DETAILS } from './status.js';

type Definition = MethodDefinition<unknown, unknown>;

interface Served {
  readonly method: RunnableMethod;
  readonly definition: Definition;
}

// The app's wrappers and global middleware ran around the request that carries the call.
const NONE: readonly AnyMiddleware[] = Object.freeze([]);
const ALREADY_RAN: ChainSource = { wrappers: () => NONE, middleware: () => NONE };

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

function headersOf(metadata: Metadata | undefined): Readonly<Record<string, string>> {
  return metadata === undefined ? EMPTY : headersFromMetadata(metadata);
}

/** Where a call's deadline and its client's leaving reach the call: `cancel()` once, at the first. */
function watch(init: GrpcForeignCallInit, cancel: () => void): () => void {
  const timer = init.deadline === undefined ? undefined : setTimeout(cancel, Math.max(0, init.deadline - Date.now()));
  init.signal.addEventListener('abort', cancel, { once: true });
  if (init.signal.aborted) cancel();
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    init.signal.removeEventListener('abort', cancel);
  };
}

/** The status of a call that was cancelled: its deadline passed, or its client left. */
function cancelledStatus(init: GrpcForeignCallInit, error: unknown): GrpcForeignStatus {
  const late = init.deadline !== undefined && Date.now() >= init.deadline;
  return late
    ? { code: GRPC_STATUS.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: EMPTY, error }
    : { code: GRPC_STATUS.CANCELLED, details: 'Call cancelled', metadata: EMPTY, error };
}

function statusOf(status: { code?: unknown; details?: unknown; metadata?: unknown }, error: unknown): GrpcForeignStatus {
  const code = typeof status.code === 'number' ? status.code : GRPC_STATUS.INTERNAL;
  const details = typeof status.details === 'string' ? status.details : INTERNAL_DETAILS;
  return { code, details, metadata: headersOf(status.metadata as Metadata | undefined), error };
}

function invalidRequest(definition: Definition, err: unknown): GrpcForeignStatus {
  const name = (definition.requestType.type as { name?: string }).name ?? 'message';
  return { code: GRPC_STATUS.INVALID_ARGUMENT, details: `The request is not a valid ${name}`, metadata: EMPTY, error: err };
}

class ServiceRunner implements GrpcServiceRunner {
  readonly descriptors: readonly Uint8Array[];
  readonly methods: readonly GrpcServiceMethod[];
  readonly names: ReadonlySet<string>;
  readonly #served = new Map<string, Served>();
  readonly #configured: ConfiguredMiddleware;
  #runner: { ran: readonly AnyMiddleware[]; runner: CallRunner } | undefined = undefined;

  constructor(
    config: GrpcServicesConfig,
    private readonly host: GrpcServiceRunnerHost,
  ) {
    const { services, packageDefinition, middleware } = resolveGrpcConfig({ ...config });
    this.#configured = middleware;
    this.names = new Set(Object.keys(packageDefinition));
    const originals = new Map<string, Uint8Array>();
    for (const entry of Object.values(packageDefinition)) {
      const protos = (entry as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
      if (Array.isArray(protos)) for (const bytes of protos as Uint8Array[]) originals.set(Buffer.from(bytes).toString('base64'), bytes);
    }
    this.descriptors = fixFileDescriptors([...originals.values()]);
    const methods: GrpcServiceMethod[] = [];
    for (const service of services) {
      for (const method of service.methods) {
        const definition = service.definition[method.rpc.method] as Definition;
        this.#served.set(method.path, { method, definition });
        const options = (definition as { options?: { idempotency_level?: unknown } }).options;
        methods.push({
          rpc: method.rpc,
          path: method.path,
          noSideEffects: options?.idempotency_level === 'NO_SIDE_EFFECTS',
        });
      }
    }
    this.methods = methods;
  }

  /** The runner for the app's global middleware as it is now: listed middleware that already ran is left out. */
  #callRunner(): CallRunner {
    const ran = this.host.ran();
    if (this.#runner?.ran === ran) return this.#runner.runner;
    const configured = this.#configured.filter((entry) => entry === 'global' || !ran.includes(entry as AnyMiddleware));
    const runner = new CallRunner(ALREADY_RAN, configured, { trustProxy: this.host.trustProxy, log: this.host.log });
    this.#runner = { ran, runner };
    return runner;
  }

  #method(path: string, type: 'unary' | 'serverStream'): Served {
    const served = this.#served.get(path);
    if (served === undefined) throw new Error(`No hand-written gRPC method is served at ${path}`);
    if (served.method.rpc.type !== type) throw new Error(`${path} is a ${served.method.rpc.type} method, not ${type}`);
    return served;
  }

  unary(path: string, init: GrpcForeignCallInit): Promise<GrpcForeignUnaryResult> {
    const { method, definition } = this.#method(path, 'unary');
    let request: unknown;
    try {
      request = definition.requestDeserialize(Buffer.from(init.request.buffer, init.request.byteOffset, init.request.byteLength));
    } catch (err) {
      return Promise.resolve({ ok: false, status: invalidRequest(definition, err) });
    }
    const core = callCore(init, path);
    const call = new ForeignUnaryCall(request, core);
    return new Promise<GrpcForeignUnaryResult>((resolve) => {
      let settled = false;
      const settle = (result: GrpcForeignUnaryResult): void => {
        if (settled) return;
        settled = true;
        unwatch();
        resolve(result);
      };
      const unwatch = watch(init, () => {
        call.cancel();
        settle({ ok: false, status: cancelledStatus(init, call.ctx === undefined ? undefined : callStateOf(call.ctx).cancelReason) });
      });
      const respond: sendUnaryData<unknown> = (error, value, trailer) => {
        if (error !== null && error !== undefined) {
          settle({ ok: false, status: statusOf(error, callStateOf(call.ctx).error) });
          return;
        }
        let message: Uint8Array;
        try {
          message = definition.responseSerialize(value);
        } catch (err) {
          this.host.log(`Could not serialize the response of ${path}`, err);
          settle({ ok: false, status: { code: GRPC_STATUS.INTERNAL, details: INTERNAL_DETAILS, metadata: EMPTY, error: err } });
          return;
        }
        settle({ ok: true, message, headers: headersOf(sentMetadata(core)), trailers: headersOf(trailer) });
      };
      if (settled) return;
      const handler = this.#callRunner().handler(method) as (call: GrpcCall, respond: sendUnaryData<unknown>) => void;
      handler(call as unknown as GrpcCall, respond);
    });
  }

  serverStream(path: string, init: GrpcForeignCallInit): GrpcForeignStream {
    const { method, definition } = this.#method(path, 'serverStream');
    let request: unknown;
    let refused: GrpcForeignStatus | undefined;
    try {
      request = definition.requestDeserialize(Buffer.from(init.request.buffer, init.request.byteOffset, init.request.byteLength));
    } catch (err) {
      refused = invalidRequest(definition, err);
    }
    const core = callCore(init, path);
    const call = new ForeignStreamCall(request, core, (value) => definition.responseSerialize(value));
    let failure: GrpcForeignStatus | undefined = refused;
    const unwatch = refused === undefined ? watch(init, () => call.cancel()) : () => undefined;
    // A call whose deadline passed (or whose client left) before it started is not run.
    if (refused === undefined && !call.cancelled) {
      const handler = this.#callRunner().handler(method) as (call: GrpcCall) => void;
      handler(call as unknown as GrpcCall);
    }
    const over = (): IteratorResult<Uint8Array> => {
      unwatch();
      if (failure === undefined && call.cancelled) failure = cancelledStatus(init, callStateOf(call.ctx).cancelReason);
      else if (failure === undefined && call.failure !== undefined) failure = statusOf(call.failure, callStateOf(call.ctx).error);
      if (failure !== undefined) throw new GrpcError(failure.code, failure.details);
      return { done: true, value: undefined };
    };
    const messages: AsyncIterableIterator<Uint8Array> = {
      [Symbol.asyncIterator]() {
        return messages;
      },
      async next() {
        if (refused !== undefined) return over();
        const bytes = await call.take();
        return bytes === undefined ? over() : { done: false, value: bytes };
      },
      async return() {
        unwatch();
        call.cancel();
        return { done: true, value: undefined };
      },
    };
    return {
      messages,
      headers: () => headersOf(sentMetadata(core)),
      trailers: () => headersOf(call.trailers),
      failure: () => failure,
    };
  }
}

/**
 * The implementation of `createGrpcServiceRunner`: the package exports ../lazy.ts's, which loads
 * this on its first call.
 */
export function createGrpcServiceRunner(config: GrpcServicesConfig, host: GrpcServiceRunnerHost): GrpcServiceRunner {
  return new ServiceRunner(config, host);
}
