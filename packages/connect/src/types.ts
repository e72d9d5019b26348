import type { LogFunction } from '@fw/core/plugin';

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
}
