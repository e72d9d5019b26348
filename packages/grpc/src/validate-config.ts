import { resolveGrpcConfig } from './internal/config.js';
import { grpcJs } from './internal/libraries.js';
import type { GrpcConfig } from './types.js';

/** The only HTTP adapter gRPC runs beside. */
export const GRPC_ADAPTER = 'node-http';

/**
 * Checks a gRPC configuration the way `createApp` needs it, throwing an error that names the
 * culprit: gRPC on an adapter other than `node-http`, services without a proto, a service the
 * proto does not define, a method the proto does not declare, a bad option value.
 * `false`/`undefined` (gRPC off) passes; so do `true` and a config without `services`, for apps
 * whose operations name gRPC services (`listen()` fails when there is nothing to serve).
 * An undefined `adapterType` means the default adapter, `node-http`.
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
  // The config of a server about to be served: its library must be there (a missing @grpc/grpc-js
  // is reported before any mistake in the config, whose fix would not be enough).
  grpcJs();
  resolveGrpcConfig(config);
}
