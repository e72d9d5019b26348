// The README's example, compiled and run as printed, except for ports 0 and 127.0.0.1 instead of the defaults.
import path from 'node:path';
import * as grpcJs from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { Application, HTTPError } from '@fw/core';
import { grpcPlugin, type GrpcUnaryHandler } from '../src/index.js';

interface HelloRequest {
  name: string;
}
interface HelloReply {
  message: string;
}

const SayHello: GrpcUnaryHandler<HelloRequest, HelloReply> = async (call) => {
  if (!call.request.name) throw new HTTPError(400, 'name is required'); // → INVALID_ARGUMENT
  return { message: `Hello ${call.request.name}` };
};

describe('the README example', () => {
  it('serves demo.Greeter beside the HTTP app', async () => {
    const protoPath = path.join(__dirname, 'fixtures', 'greeter.proto');
    const app = new Application();
    app.get('/health', (ctx) => ctx.json({ ok: true }));
    const grpc = grpcPlugin({ port: 0, host: '127.0.0.1', protoPath, services: { 'demo.Greeter': { SayHello } } });
    app.register(grpc);
    await app.listen(0, '127.0.0.1');
    const demo = grpcJs.loadPackageDefinition(loadSync(protoPath)) as unknown as { demo: { Greeter: grpcJs.ServiceClientConstructor } };
    const greeter = new demo.demo.Greeter(grpc.address!.target, grpcJs.credentials.createInsecure()) as unknown as grpcJs.Client & {
      SayHello(request: HelloRequest, callback: grpcJs.requestCallback<HelloReply>): void;
    };
    try {
      const say = (name: string): Promise<HelloReply> =>
        new Promise((resolve, reject) => greeter.SayHello({ name }, (err, reply) => (err ? reject(err) : resolve(reply!))));
      expect(grpc.address!.target).toBe(`127.0.0.1:${grpc.address!.port}`);
      expect(await say('Ada')).toEqual({ message: 'Hello Ada' });
      await expect(say('')).rejects.toMatchObject({ code: grpcJs.status.INVALID_ARGUMENT, details: 'name is required' });
    } finally {
      greeter.close();
      await app.close();
    }
  });
});
