// Operations benchmark server: one fw app serving `sayHello` on REST, GraphQL and gRPC, either as
// an operation (`VARIANT=operation`: defineOperation + app.operation) or hand-written
// (`VARIANT=handwritten`: a createHandler route, a graphql-js resolver and a gRPC method
// on a .proto written by hand). Both run the same logic — validate the input with the same zod
// schema, build the reply — and put the same bytes on the wire: the hand-written schema and proto
// are the ones generated from the operation. HTTP on a free port, gRPC on GRPC_PORT.
import { createApp, HTTPError } from '@fw/app';
import { createHandler, defineOperation } from '@fw/app/validate';
import { buildSchema } from 'graphql';
import { z } from 'zod';
import { announce } from '../http/servers/ready.mjs';
import { PROTO_PATH } from '../grpc/proto.mjs';

const Input = z.object({ name: z.string().min(1).max(100) });
const Output = z.object({ message: z.string() });
const reply = ({ name }) => ({ message: `Hello ${name}` });

/** The hand-written GraphQL schema: what the operation generates (a query takes flat arguments). */
const SDL = `
type SayHelloOutput { message: String! }
type Query { sayHello(name: String!): SayHelloOutput! }
`;

/** Hand-written validation, as a resolver or a gRPC method would do it: zod, 400 on failure. */
function parsed(raw) {
  const result = Input.safeParse(raw);
  if (!result.success) throw new HTTPError(400, 'Validation failed', { errors: result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message, code: i.code })) });
  return result.data;
}

const variant = process.env.VARIANT;
const grpcPort = Number(process.env.GRPC_PORT);
if (!Number.isInteger(grpcPort) || grpcPort <= 0) throw new Error('GRPC_PORT must be set to a free port');
let app;
if (variant === 'operation') {
  app = createApp({ protocols: { graphql: {}, grpc: { port: grpcPort, host: '127.0.0.1' } } });
  app.operation(
    defineOperation({
      name: 'sayHello',
      input: Input,
      output: Output,
      handler: async (input) => reply(input),
      rest: { method: 'POST', path: '/hello' },
      graphql: { type: 'query' },
      // rpc SayHello(SayHelloRequest) returns (SayHelloResponse): bench.proto's Greeter, byte for byte.
      grpc: { service: 'bench.Greeter' },
    }),
  );
} else if (variant === 'handwritten') {
  app = createApp({
    protocols: {
      graphql: { schema: buildSchema(SDL), rootValue: { sayHello: async (args) => reply(parsed(args)) } },
      grpc: { port: grpcPort, host: '127.0.0.1', protoPath: PROTO_PATH, services: { 'bench.Greeter': { SayHello: async (call) => reply(parsed(call.request)) } } },
    },
  });
  app.post('/hello', ...createHandler({ body: Input }, async (ctx) => ctx.json(reply(ctx.body))));
} else {
  throw new Error(`VARIANT must be operation or handwritten (got ${variant})`);
}
await app.listen(0, '127.0.0.1');
announce(app.server.address().port, ['rest', 'graphql', 'grpc']);
