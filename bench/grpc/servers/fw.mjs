// gRPC suite (issue 6), fw: createApp({ adapter: { type: 'node-http' }, protocols: { grpc } }) on
// the benchmark proto, default settings (health service on, no middleware) but a free port on
// loopback. The HTTP side listens too, idle.
import { createApp } from '@fw/app';
import { announce } from '../../http/servers/ready.mjs';
import { PROTO_PATH, SERVICE, sayHello } from '../proto.mjs';

const app = createApp({
  adapter: { type: 'node-http' },
  protocols: { grpc: { port: 0, host: '127.0.0.1', protoPath: PROTO_PATH, services: { [SERVICE]: { SayHello: sayHello } } } },
});
await app.listen(0, '127.0.0.1');
announce(app.getProtocolManager().getGrpcAddress().port, ['unary']);
