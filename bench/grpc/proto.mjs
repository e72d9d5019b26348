// The benchmark proto, loaded with the options @fw/grpc loads protos with by default, so both
// servers and the client (de)serialise alike.
import { fileURLToPath } from 'node:url';

export const PROTO_PATH = fileURLToPath(new URL('./bench.proto', import.meta.url));
export const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
export const SERVICE = 'bench.Greeter';

/** The unary handler both servers run, in the spec's (call, callback) form. */
export function sayHello(call, callback) {
  callback(null, { message: `Hello ${call.request.name}` });
}
