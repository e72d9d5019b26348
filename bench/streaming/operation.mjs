// The benchmark's streaming operation, shared by fw's server and the gRPC client (which generates
// its proto from the same definition, as a client of a generated proto would).
export async function ticksOperation(handler = async function* () {}) {
  const { defineOperation } = await import('@fw/app/validate');
  const { z } = await import('zod');
  const Tick = z.object({ n: z.int32(), at: z.string() }).meta({ id: 'Tick' });
  return defineOperation({
    name: 'ticks',
    input: z.object({}),
    output: Tick,
    stream: true,
    handler,
    rest: { method: 'GET', path: '/events' },
    graphql: { type: 'subscription' },
    grpc: { service: 'bench.Ticker' },
  });
}

/** `ping`: the query the GraphQL schema needs beside the subscription (the peers' schema has it too). */
export async function pingOperation() {
  const { defineOperation } = await import('@fw/app/validate');
  const { z } = await import('zod');
  return defineOperation({ name: 'ping', input: z.object({}), output: z.string(), handler: () => 'pong', graphql: { type: 'query' } });
}
