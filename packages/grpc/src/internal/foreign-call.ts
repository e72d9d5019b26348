import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { Metadata } from '@grpc/grpc-js';
import type { RequestContext } from '@fw/core';
import { CARRIER, type GrpcContext } from '../context.js';
import type { GrpcForeignCallInit } from '../types.js';
import { grpcJs } from './libraries.js';
import { CONNECTION_HEADERS } from './metadata.js';

/**
 * The call objects a handler gets when another transport (Connect, gRPC-Web) carries its call: the
 * members of grpc-js's server calls that handlers and the runner use (`request`, `metadata`,
 * `cancelled` and `'cancelled'`, `getDeadline()`, `getPeer()`, `sendMetadata()`; on streams
 * `write()`/`end(trailers)` with `'drain'`), driven by the transport instead of an HTTP/2 stream.
 */

// What carries a call and is not metadata: the HTTP/1.1 connection, the protocols' own headers.
const TRANSPORT_HEADERS = new Set([
  'host',
  ...CONNECTION_HEADERS,
  'content-type',
  'content-length',
  'content-encoding',
  'accept-encoding',
  'x-grpc-web',
  'x-user-agent',
]);

/** Request headers as grpc-js metadata: transport headers left out, `-bin` values decoded from base64. */
export function metadataFromHeaders(headers: GrpcForeignCallInit['headers']): Metadata {
  const metadata = new (grpcJs().Metadata)();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (TRANSPORT_HEADERS.has(key) || key.startsWith(':') || key.startsWith('grpc-') || key.startsWith('connect-')) continue;
    for (const item of typeof value === 'string' ? [value] : value) {
      try {
        if (key.endsWith('-bin')) for (const part of item.split(',')) metadata.add(key, Buffer.from(part.trim(), 'base64'));
        else metadata.add(key, item);
      } catch {
        // A header grpc-js refuses as metadata (a name gRPC does not allow) is not part of the call.
      }
    }
  }
  return metadata;
}

/** grpc-js's per-call load report recorder, as its server calls have it (`PerRequestMetricRecorder`). */
interface LoadReportRecorder {
  recordRequestCostMetric(name: string, value: number): void;
  recordUtilizationMetric(name: string, value: number): void;
  recordNamedMetric(name: string, value: number): void;
  recordCPUUtilizationMetric(value: number): void;
  recordMemoryUtilizationMetric(value: number): void;
  recordApplicationUtilizationMetric(value: number): void;
  recordQpsMetric(value: number): void;
  recordEpsMetric(value: number): void;
  serialize(): Buffer;
}

const ignore = (): void => undefined;

/** The metrics recorder of a call another transport carries: every measurement dropped (see `getMetricsRecorder`). */
const DROPPED_LOAD_REPORT: LoadReportRecorder = Object.freeze({
  recordRequestCostMetric: ignore,
  recordUtilizationMetric: ignore,
  recordNamedMetric: ignore,
  recordCPUUtilizationMetric: ignore,
  recordMemoryUtilizationMetric: ignore,
  recordApplicationUtilizationMetric: ignore,
  recordQpsMetric: ignore,
  recordEpsMetric: ignore,
  serialize: (): Buffer => Buffer.alloc(0),
});

/** What both call objects share: the request side, cancellation and the initial metadata. */
class CallCore {
  readonly metadata: Metadata;
  cancelled = false;
  /** The initial metadata the call sent (once, as grpc-js sends it). */
  sent: Metadata | undefined = undefined;

  constructor(
    readonly init: GrpcForeignCallInit,
    readonly path: string,
  ) {
    this.metadata = metadataFromHeaders(init.headers);
  }

  deadline(): Date | number {
    return this.init.deadline === undefined ? Infinity : new Date(this.init.deadline);
  }

  host(): string {
    const host = this.init.headers.host;
    return typeof host === 'string' ? host : '';
  }
}

/** The call's state, shared by the members every call object has (the mixin below). */
const CORE: unique symbol = Symbol('fw.grpc.foreignCallCore');

// A mixin's constructor must take `any[]` (TypeScript's rule for mixin classes).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EmitterClass = abstract new (...args: any[]) => EventEmitter;

/**
 * What a unary call and a stream have alike, as grpc-js's server calls have it: the metadata,
 * cancellation, the peer, the deadline, the path and host, the initial metadata it sends. The two
 * extend different node classes (an emitter, a Writable), hence a mixin over either.
 */
function withCallMembers<TBase extends EmitterClass>(Base: TBase) {
  abstract class CallMembers extends Base {
    declare ctx: GrpcContext;
    declare [CORE]: CallCore;

    get metadata(): Metadata {
      return this[CORE].metadata;
    }

    get cancelled(): boolean {
      return this[CORE].cancelled;
    }

    getPeer(): string {
      return this[CORE].init.peer;
    }

    getDeadline(): Date | number {
      return this[CORE].deadline();
    }

    getPath(): string {
      return this[CORE].path;
    }

    getHost(): string {
      return this[CORE].host();
    }

    /** No TLS peer: the transport that carries the call terminates it (or not) before the app. */
    getAuthContext(): Record<string, never> {
      return {};
    }

    sendMetadata(metadata: Metadata): void {
      this[CORE].sent ??= metadata.clone();
    }

    /**
     * grpc-js's per-call load report (ORCA), sent to gRPC load balancers in the trailers: no such
     * balancer reads a call carried by another transport, so what is recorded is dropped.
     */
    getMetricsRecorder(): LoadReportRecorder {
      return DROPPED_LOAD_REPORT;
    }
  }
  return CallMembers;
}

/** A unary call. */
export class ForeignUnaryCall extends withCallMembers(EventEmitter) {
  readonly [CARRIER]: RequestContext | undefined;

  constructor(
    readonly request: unknown,
    core: CallCore,
  ) {
    super();
    this[CORE] = core;
    this[CARRIER] = core.init.carrier;
  }

  /** Cancels the call: the handler sees `cancelled` and `'cancelled'`. */
  cancel(): void {
    if (this[CORE].cancelled) return;
    this[CORE].cancelled = true;
    this.emit('cancelled', 'cancelled');
  }
}

/** The status a stream ended with, as the runner emits it on `'error'`. */
interface EmittedStatus {
  code?: unknown;
  details?: unknown;
  metadata?: unknown;
}

/**
 * A server-streaming call: each message the handler writes is serialized and waits until the
 * transport takes it (`take()`), so a write that finds one waiting returns false and `'drain'`
 * follows once it was taken.
 */
export class ForeignStreamCall extends withCallMembers(Writable) {
  readonly [CARRIER]: RequestContext | undefined;
  /** The trailers given to `end(metadata)`. */
  trailers: Metadata | undefined = undefined;
  /** The status the call failed with (emitted on `'error'`). */
  failure: EmittedStatus | undefined = undefined;
  readonly #queue: Array<{ bytes: Uint8Array; taken: () => void }> = [];
  #over = false;
  #wake: (() => void) | undefined = undefined;

  constructor(
    readonly request: unknown,
    core: CallCore,
    private readonly serialize: (value: unknown) => Uint8Array,
  ) {
    super({ objectMode: true, highWaterMark: 1 });
    this[CORE] = core;
    this[CARRIER] = core.init.carrier;
    // As grpc-js: an emitted error (the runner maps it to a status first) ends the call with that status.
    this.on('error', (status: EmittedStatus) => {
      this.failure ??= status;
      if (!this.writableEnded && !this.destroyed) this.end();
      this.#finish();
    });
    this.once('finish', () => this.#finish());
    this.once('close', () => this.#finish());
  }

  /** grpc-js's `end(metadata?)`: the trailers, then the end of the stream. */
  // @ts-expect-error -- grpc-js's server stream redefines `end` with the trailers as its one argument
  override end(metadata?: Metadata): this {
    if (metadata instanceof grpcJs().Metadata) this.trailers = metadata;
    return super.end();
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // Nobody reads a cancelled call: what is written is dropped, so a handler waiting for 'drain' goes on.
    if (this[CORE].cancelled) {
      callback();
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = this.serialize(chunk);
    } catch (err) {
      callback(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.#queue.push({ bytes, taken: () => callback() });
    this.#wakeUp();
  }

  /** The next message, once the handler wrote one; undefined when the call is over (ended, failed or cancelled). */
  async take(): Promise<Uint8Array | undefined> {
    for (;;) {
      const item = this.#queue.shift();
      if (item !== undefined) {
        item.taken();
        return item.bytes;
      }
      if (this.#over) return undefined;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** Cancels the call: the handler sees `cancelled` and `'cancelled'`; what it writes from now on is dropped. */
  cancel(): void {
    if (this[CORE].cancelled) return;
    this[CORE].cancelled = true;
    this.emit('cancelled', 'cancelled');
    for (const item of this.#queue.splice(0)) item.taken();
    this.#finish();
  }

  #finish(): void {
    this.#over = true;
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** The shared request side of a call made by another transport. */
export function callCore(init: GrpcForeignCallInit, path: string): CallCore {
  return new CallCore(init, path);
}

/** The initial metadata a call sent, if any. */
export function sentMetadata(core: CallCore): Metadata | undefined {
  return core.sent;
}

export type { CallCore };
