/**
 * @fw/connect — serves the app's gRPC operations, and the hand-written gRPC services of its own
 * .proto, on its HTTP port over the Connect protocol and gRPC-Web, with canonical proto3 JSON (and
 * binary) from @bufbuild/protobuf: browsers and Connect clients call the same operations as gRPC,
 * REST and GraphQL clients, without a proxy.
 */
export { connectPlugin } from './lazy.js';
export type { ConnectPlugin } from './plugin.js';
export type { ConnectConfig } from './types.js';
export { CONNECT_CORS_ALLOWED_HEADERS, CONNECT_CORS_EXPOSED_HEADERS, CONNECT_DEFAULTS, CONNECT_OPTION_NAMES } from './options.js';
export { CONNECT_CODE_OF_CODE, CONNECT_HTTP_STATUS, connectCodeOf, GRPC_WEB_STATUS } from './code.js';
export type { ConnectCode } from './code.js';
