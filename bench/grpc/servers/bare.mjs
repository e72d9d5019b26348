// gRPC suite (issue 6), the reference: a bare grpc-js Server with the same proto, loader options
// and handler, bound on loopback.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { announce } from '../../http/servers/ready.mjs';
import { LOADER_OPTIONS, PROTO_PATH, sayHello } from '../proto.mjs';

const proto = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS));
const server = new grpc.Server();
server.addService(proto.bench.Greeter.service, { SayHello: sayHello });
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  announce(port, ['unary']);
});
