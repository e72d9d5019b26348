import { buildSchema } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createApp, type App } from '@fw/app';
import { logger } from '@fw/app/middleware';

// logger() on the app whose GraphQL endpoint also takes graphql-ws upgrades, through a real
// socket: the app's middleware runs once per WebSocket connection, at connection_init, and its
// line must say the upgrade was accepted (101) rather than the `[0]` of a response never written.

const schema = buildSchema('type Query { hello: String }');
let app: App;
let url: string;
const lines: string[] = [];

beforeAll(async () => {
  app = createApp({ onLog: () => undefined, health: false, shutdown: false, protocols: { graphql: { schema, rootValue: { hello: () => 'hi' } } } });
  app.use(logger({ stream: (line) => lines.push(line) }));
  const info = await app.listen(0, '127.0.0.1');
  url = `ws://127.0.0.1:${info.port}/graphql`;
});

afterAll(async () => {
  await app.close();
});

it('logs a graphql-ws connection as [101] GET /graphql, once, with the operations it ran', async () => {
  const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
  try {
    const results: unknown[] = [];
    for await (const result of client.iterate({ query: '{ hello }' })) results.push(result);
    expect(results).toEqual([{ data: { hello: 'hi' } }]);
  } finally {
    await client.dispose();
  }
  expect(lines).toEqual([expect.stringMatching(/^\[101\] GET \/graphql - \d+ms$/)]);
});
