/**
 * The option names of `connectPlugin()`, alone: `createApp` checks `protocols.connect` with them
 * without loading the Connect codecs.
 */
import type { ConnectConfig } from './types.js';

// Every option name, typed: the compiler fails here when an option is added to the config type
// but not to this list, so a valid option is never refused.
const CONFIG_KEYS: Record<keyof ConnectConfig, true> = {
  protoOut: true,
  maxMessageBytes: true,
  compressMinBytes: true,
  onLog: true,
  services: true,
  protoPath: true,
  packageDefinition: true,
  loaderOptions: true,
  middleware: true,
};

/** The option names of `connectPlugin()` (and of `createApp`'s `protocols.connect`). */
export const CONNECT_OPTION_NAMES: readonly string[] = Object.freeze(Object.keys(CONFIG_KEYS));

/** The defaults of the options that have one of their own. */
export const CONNECT_DEFAULTS = Object.freeze({ compressMinBytes: 1024 });

/** The request headers Connect and gRPC-Web clients send, which a browser's preflight must see allowed (`cors({ allowedHeaders })`). */
export const CONNECT_CORS_ALLOWED_HEADERS: readonly string[] = Object.freeze([
  'Connect-Protocol-Version',
  'Connect-Timeout-Ms',
  'Connect-Content-Encoding',
  'Connect-Accept-Encoding',
  'Content-Encoding',
  'Accept-Encoding',
  'Grpc-Timeout',
  'Grpc-Encoding',
  'Grpc-Accept-Encoding',
  'X-Grpc-Web',
  'X-User-Agent',
]);

/** The response headers a browser client of Connect and gRPC-Web reads (`cors({ exposedHeaders })`). */
export const CONNECT_CORS_EXPOSED_HEADERS: readonly string[] = Object.freeze(['Grpc-Status', 'Grpc-Message', 'Grpc-Status-Details-Bin', 'Content-Encoding', 'Connect-Content-Encoding']);
