import type { LogFunction } from '@fw/core/plugin';
import type { GrpcConfig } from '@fw/grpc';

/** Options of `connectPlugin()` (and of `createApp`'s `protocols.connect`). */
export interface ConnectConfig {
  /**
   * Where the generated .proto files are committed, whose field numbers are kept (as `@fw/grpc`'s
   * `protoOut`): the same numbers as the gRPC port. Without it, numbers follow declaration order.
   * @default undefined (createApp passes `protocols.grpc.protoOut` when it is set)
   */
  protoOut?: string;
  /**
   * The largest request message, in bytes, as sent and once decompressed: a larger one is refused
   * with `resource_exhausted` before it is decoded.
   * @default the app's `bodyLimit` (1 MiB)
   */
  maxMessageBytes?: number;
  /**
   * Responses at least this large are compressed (gzip) when the client accepts it; 0 compresses
   * every response, `false` none.
   * @default 1024
   */
  compressMinBytes?: number | false;
  /** Where the plugin logs (server errors, refused streams). @default the app's `onLog` */
  onLog?: LogFunction;
  /**
   * Hand-written gRPC services of your own .proto, as `@fw/grpc`'s `services` (`'<package>.<Service>'`
   * → `{ Method: handler }`, the same handler forms): their unary and server-streaming methods are
   * served over Connect and gRPC-Web too. Give `protoPath` or `packageDefinition` with it.
   * @default undefined (createApp passes `protocols.grpc.services`)
   */
  services?: GrpcConfig['services'];
  /** The .proto file(s) of `services`, loaded with `@grpc/proto-loader` (as `@fw/grpc`'s `protoPath`). @default undefined */
  protoPath?: GrpcConfig['protoPath'];
  /** A package definition of `services` loaded yourself, instead of `protoPath`. @default undefined */
  packageDefinition?: GrpcConfig['packageDefinition'];
  /**
   * proto-loader options for `protoPath`, merged over `@fw/grpc`'s defaults (so handlers get the
   * request objects they get on the gRPC port).
   * @default { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true }
   */
  loaderOptions?: GrpcConfig['loaderOptions'];
  /**
   * The gRPC middleware of `services` (as `@fw/grpc`'s `middleware`), run on the call's
   * `GrpcContext` before the handler. The app's global middleware runs once per request already,
   * so `'global'`, and listed functions that are also global, add nothing here.
   * @default [] (createApp passes `protocols.grpc.middleware`)
   */
  middleware?: GrpcConfig['middleware'];
}
