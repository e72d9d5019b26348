import { resolveGrpcConfig } from './internal/config.js';
import type { GrpcConfig } from './types.js';

/** The only HTTP adapter gRPC runs beside. */
export const GRPC_ADAPTER = 'node-http';

/**
 * Checks a gRPC configuration the way `createApp` needs it, throwing an error that names the
 * culprit: gRPC on an adapter other than `node-http`, `grpc: true` or missing `services`, no proto,
 * a service the proto does not define, a method the proto does not declare, a bad option value.
 * `false`/`undefined` (gRPC off) passes. An undefined `adapterType` means the default adapter, `node-http`.
 * @example
 * validateGrpcConfig({ protoPath: './greeter.proto', services: { 'demo.Greeter': { SayHello } } }, 'node-http');
 */
export function validateGrpcConfig(config: GrpcConfig | boolean | undefined, adapterType?: string): void {
  if (config === undefined || config === false) return;
  if (adapterType !== undefined && adapterType !== GRPC_ADAPTER) {
    throw new Error(
      `gRPC requires the HTTP adapter "${GRPC_ADAPTER}", but adapter.type is "${adapterType}". ` +
        `Use adapter: { type: '${GRPC_ADAPTER}' } or remove protocols.grpc.`,
    );
  }
  if (config === true) {
    throw new Error('gRPC config: protocols.grpc is true, but gRPC needs `services` and `protoPath` (or `packageDefinition`): pass a GrpcConfig object');
  }
  resolveGrpcConfig(config);
}
