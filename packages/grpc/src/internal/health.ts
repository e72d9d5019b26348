import type { Server, ServerWritableStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { ServiceDefinition } from '@grpc/proto-loader';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { GrpcServingStatus } from '../types.js';

export { healthProtoPath };

/**
 * The standard `grpc.health.v1.Health` service (grpc-health-check), plus what shutdown needs:
 * every status turns NOT_SERVING and open Watch streams are ended, so that they do not hold
 * `tryShutdown` open until the grace period runs out.
 */
export class HealthService {
  private readonly impl = new HealthImplementation();
  private readonly statuses = new Map<string, GrpcServingStatus>();
  private readonly watchers = new Set<ServerWritableStream<unknown, unknown>>();

  /** Registers the service on `server` with '' (the whole server) and `services` SERVING. */
  addToServer(server: Server, services: readonly string[], overrides: ReadonlyMap<string, GrpcServingStatus>): void {
    for (const name of ['', ...services]) this.setStatus(name, 'SERVING');
    for (const [name, status] of overrides) this.setStatus(name, status);
    const watchers = this.watchers;
    this.impl.addToServer({
      addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation) {
        const watch = implementation.watch as (call: ServerWritableStream<unknown, unknown>) => void;
        server.addService(definition, {
          ...implementation,
          watch(call: ServerWritableStream<unknown, unknown>) {
            watchers.add(call);
            call.once('cancelled', () => watchers.delete(call));
            watch(call);
          },
        });
      },
    });
  }

  /** Sets the status one service (or '' for the server) reports. */
  setStatus(service: string, status: GrpcServingStatus): void {
    this.statuses.set(service, status);
    this.impl.setStatus(service, status);
  }

  /** Reports NOT_SERVING everywhere and ends the Watch streams (after they have been told). */
  shutdown(): void {
    for (const name of this.statuses.keys()) this.setStatus(name, 'NOT_SERVING');
    for (const call of this.watchers) if (!call.cancelled && !call.writableEnded) call.end();
    this.watchers.clear();
  }
}
