// The plugin loads its implementation (internal/implementation.ts: @bufbuild/protobuf, the codecs,
// the transports) on its first call, not with the package: @fw/app imports @fw/connect for every
// app, and an app without Connect never pays for it.
import type * as Implementation from './internal/implementation.js';
import type { ConnectPlugin } from './plugin.js';
import type { ConnectConfig } from './types.js';

let implementation: typeof Implementation | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- synchronous on purpose: createApp and plugin factories are synchronous
const load = (): typeof Implementation => (implementation ??= require('./internal/implementation.js') as typeof Implementation);

/**
 * Creates the Connect plugin: every operation with a `grpc` binding, and the unary and
 * server-streaming methods of hand-written `services`, are served on the app's HTTP port at
 * `POST /<package>.<Service>/<Method>`, over the Connect protocol (unary JSON and binary, server
 * streams, GET for calls without side effects) and gRPC-Web. The options are checked (and the
 * services' proto loaded) now.
 * @example
 * app.register(connectPlugin({ protoOut: './protos' }));
 * // curl -H 'Content-Type: application/json' -d '{"id":"1"}' http://localhost:3000/bookstore.Catalog/GetBook
 */
export function connectPlugin(config: ConnectConfig | true = {}): ConnectPlugin {
  return load().connectPlugin(config);
}
