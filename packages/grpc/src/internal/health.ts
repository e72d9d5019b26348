import { status as grpcStatus, type Server, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { ServiceDefinition } from '@grpc/proto-loader';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { GrpcServingStatus } from '../types.js';

export { healthProtoPath };

/**
 * The standard `grpc.health.v1.Health` service (grpc-health-check), plus what readiness and
 * shutdown need: while the whole server ('') is NOT_SERVING (the app is not ready: starting,
 * draining, a readiness check failing), every service reports NOT_SERVING too, and gets its own
 * status back when the server serves again; on shutdown every status turns NOT_SERVING and open
 * Watch streams are ended, so that they do not hold `tryShutdown` open until the grace period
 * runs out.
 */
export class HealthService {
  private readonly impl = new HealthImplementation();
  private readonly statuses = new Map<string, GrpcServingStatus>();
  private readonly watchers = new Set<ServerWritableStream<unknown, unknown>>();
  /** Open Watch streams per connection (the peer address names the connection). */
  private readonly perConnection = new Map<string, number>();

  /** Watch streams are refused past these caps: each one holds a call open for as long as the client likes. */
  constructor(private readonly limits: { perConnection: number; total: number }) {}

  /** Registers the service on `server` with '' (the whole server) and `services` SERVING. */
  addToServer(server: Server, services: readonly string[], overrides: ReadonlyMap<string, GrpcServingStatus>): void {
    for (const name of ['', ...services]) this.setStatus(name, 'SERVING');
    for (const [name, status] of overrides) this.setStatus(name, status);
    const watch = (call: ServerWritableStream<unknown, unknown>, start: (call: ServerWritableStream<unknown, unknown>) => void): void => {
      const peer = call.getPeer();
      const open = this.perConnection.get(peer) ?? 0;
      if (open >= this.limits.perConnection || this.watchers.size >= this.limits.total) {
        call.emit('error', {
          code: grpcStatus.RESOURCE_EXHAUSTED,
          details: open >= this.limits.perConnection ? 'Too many health Watch streams on this connection' : 'Too many health Watch streams',
        });
        return;
      }
      this.watchers.add(call);
      this.perConnection.set(peer, open + 1);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        this.watchers.delete(call);
        const left = (this.perConnection.get(peer) ?? 1) - 1;
        if (left > 0) this.perConnection.set(peer, left);
        else this.perConnection.delete(peer);
        this.forgetIdleService(call);
      };
      call.once('cancelled', release);
      call.once('finish', release);
      call.once('close', release);
      start(call);
    };
    this.impl.addToServer({
      addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation) {
        const start = implementation.watch as (call: ServerWritableStream<unknown, unknown>) => void;
        server.addService(definition, { ...implementation, watch: (call: ServerWritableStream<unknown, unknown>) => watch(call, start) });
      },
    });
  }

  /**
   * grpc-health-check keeps one watcher set per service name a client ever watched, even once
   * empty: names are chosen by clients, so drop the empty set when the last watcher of a name leaves.
   */
  private forgetIdleService(call: ServerWritableStream<unknown, unknown>): void {
    const name = (call.request as { service?: unknown } | undefined)?.service;
    const sets = (this.impl as unknown as { watchers?: unknown }).watchers;
    if (typeof name !== 'string' || !(sets instanceof Map)) return;
    // grpc-health-check removes its watcher on 'cancelled' too; let it run first.
    queueMicrotask(() => {
      const set = sets.get(name) as Set<unknown> | undefined;
      if (set !== undefined && set.size === 0) sets.delete(name);
    });
  }

  /** Sets the status one service (or '' for the server) reports. */
  setStatus(service: string, status: GrpcServingStatus): void {
    this.statuses.set(service, status);
    if (service !== '') {
      this.impl.setStatus(service, this.effective(service));
      return;
    }
    this.impl.setStatus('', status);
    // The server's status bounds every service's: a server that does not serve serves nothing.
    for (const name of this.statuses.keys()) if (name !== '') this.impl.setStatus(name, this.effective(name));
  }

  /** What a service reports: NOT_SERVING while the whole server is, else its own status. */
  private effective(service: string): GrpcServingStatus {
    const own = this.statuses.get(service) ?? 'UNKNOWN';
    return this.statuses.get('') === 'NOT_SERVING' ? 'NOT_SERVING' : own;
  }

  /** Reports NOT_SERVING everywhere and ends the Watch streams (after they have been told). */
  shutdown(): void {
    for (const name of this.statuses.keys()) this.setStatus(name, 'NOT_SERVING');
    for (const call of [...this.watchers]) if (!call.cancelled && !call.writableEnded) call.end();
    this.watchers.clear();
    this.perConnection.clear();
  }
}
