import { request, type ClientRequest } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { eventually, startChild, type Child } from './streams-support.js';
import { send, within } from './support.js';

// One table of stream behaviours, run against every transport (every sink of the shared stream
// pump): server-sent events, GraphQL over SSE, GraphQL over WebSocket, a gRPC server stream. The
// server runs in its own process, so a stream that starved its event loop fails these tests
// instead of freezing the runner. A transport added later is one more row.

interface Opened {
  /** Events received so far. */
  events(): number;
  /** The client leaves. */
  leave(): void;
}

interface Transport {
  readonly name: string;
  open(input: { pace: number; size: number }): Opened;
}

const SUBSCRIPTION = 'subscription($pace: Int!, $size: Int!) { flood(pace: $pace, size: $size) { n } }';

let server: Child;
let port: number;
let grpcTarget: string;
let FloodClient: grpc.ServiceClientConstructor;
const cleanup: Array<() => void> = [];

// Every wait below has its own deadline; the test's bound only has to exceed their sum on a loaded machine.
jest.setTimeout(180_000);

beforeAll(async () => {
  server = startChild('sink-table-server.mjs', [JSON.stringify({ heartbeat: 1000 })]);
  const ready = await server.waitFor(/ready port=(\d+) grpc=(\S+) proto=(\S+)/);
  port = Number(ready[1]);
  grpcTarget = ready[2]!;
  const definition = protoLoader.loadSync(ready[3]!, { keepCase: false, longs: Number, enums: String, defaults: true });
  FloodClient = (grpc.loadPackageDefinition(definition)['table'] as unknown as { Flood: grpc.ServiceClientConstructor }).Flood;
});

afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

afterAll(async () => {
  await server.stop();
});

const TRANSPORTS: readonly Transport[] = [
  {
    name: 'server-sent events',
    open({ pace, size }) {
      let events = 0;
      const req: ClientRequest = request({ host: '127.0.0.1', port, path: `/flood?pace=${pace}&size=${size}`, headers: { accept: 'text/event-stream' } }, (res) => {
        res.on('data', (chunk: Buffer) => (events += chunk.toString().split('data: ').length - 1));
        res.on('error', () => undefined);
      });
      req.on('error', () => undefined);
      req.end();
      return { events: () => events, leave: () => req.destroy() };
    },
  },
  {
    name: 'GraphQL over SSE',
    open(variables) {
      let events = 0;
      const client = createSseClient({ url: `http://127.0.0.1:${port}/graphql`, retryAttempts: 0 });
      const results = client.iterate({ query: SUBSCRIPTION, variables });
      void (async () => {
        for await (const _ of results) events++;
      })().catch(() => undefined);
      return {
        events: () => events,
        leave: () => {
          void results.return?.();
          client.dispose();
        },
      };
    },
  },
  {
    name: 'GraphQL over WebSocket',
    open(variables) {
      let events = 0;
      const client = createWsClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
      const results = client.iterate({ query: SUBSCRIPTION, variables });
      void (async () => {
        for await (const _ of results) events++;
      })().catch(() => undefined);
      return {
        events: () => events,
        leave: () => {
          void results.return?.();
          void client.dispose();
        },
      };
    },
  },
  {
    name: 'a gRPC server stream',
    open(input) {
      let events = 0;
      const client = new FloodClient(grpcTarget, grpc.credentials.createInsecure());
      const call = (client as unknown as Record<string, (r: object) => grpc.ClientReadableStream<unknown>>).Flood!.call(client, input);
      call.on('data', () => events++);
      call.on('error', () => undefined);
      return {
        events: () => events,
        leave: () => {
          call.cancel();
          client.close();
        },
      };
    },
  },
];

/** The server's counters: floods started and finished (their `finally` ran). */
async function stats(): Promise<{ started: number; finished: number }> {
  const match = await server.ask('stats', /stats started=(\d+) finished=(\d+)/);
  return { started: Number(match[1]), finished: Number(match[2]) };
}

describe.each(TRANSPORTS)('the stream policy over $name', (transport) => {
  it('keeps the process answering while a fast client reads a source that never awaits', async () => {
    const before = await stats();
    const stream = transport.open({ pace: 0, size: 64 });
    cleanup.push(() => stream.leave());
    await eventually(() => stream.events() > 100, 'the flood to flow', 20_000);
    // Ten plain requests, one after another, while the flood runs: a starved event loop answers
    // none of them (the deadline only bounds a failure; a working server answers in milliseconds).
    for (let i = 0; i < 10; i++) {
      const reply = await within(send(`http://127.0.0.1:${port}`, { path: '/ok' }), 15_000, undefined);
      expect(reply?.text).toBe('ok');
    }
    const during = stream.events();
    // The flood still flows: fairness, not a stall.
    await eventually(() => stream.events() > during, 'more events after the requests', 20_000);
    stream.leave();
    await eventually2(async () => (await stats()).finished === before.started + 1, "the flood's finally");
  });

  it("runs the handler's finally when the client leaves, and takes the next stream", async () => {
    const before = await stats();
    const stream = transport.open({ pace: 5, size: 16 });
    await eventually(() => stream.events() >= 2, 'two events', 20_000);
    stream.leave();
    await eventually2(async () => (await stats()).finished === before.started + 1, "the handler's finally");
    const next = transport.open({ pace: 5, size: 16 });
    cleanup.push(() => next.leave());
    await eventually(() => next.events() >= 1, 'an event of the next stream', 20_000);
  });
});

/** `eventually` for an asynchronous check. */
async function eventually2(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
