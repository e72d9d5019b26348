import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { buildSchema } from 'graphql';
import { z } from 'zod';
import { createApp, defineOperation, type App } from '@fw/app';
import type { StreamsConfig } from '@fw/app/core';

// One streaming operation, `feed`, served on REST (server-sent events), GraphQL (a subscription)
// and gRPC (a server stream), for the hostile stream tests: it yields events of `size` bytes every
// `pace` ms (0: as fast as it is asked), and counts per `tag` what it produced and whether its
// `finally` ran.

export interface FeedStats {
  events: number;
  bytes: number;
  finished: boolean;
}

export interface FeedServer {
  readonly app: App;
  readonly port: number;
  readonly base: string;
  readonly stats: Map<string, FeedStats>;
  /** A grpc-js client of the generated `hostile.Feed` service. */
  readonly grpcClient: grpc.Client;
  /** Opens the `Feed` server stream with grpc-js. */
  rpc(input: FeedInput, metadata?: grpc.Metadata): grpc.ClientReadableStream<FeedMessage>;
  close(): Promise<void>;
}

/** A `FeedResponse` as grpc-js reads it: the event in its field. */
export interface FeedMessage {
  feedEvent: { n: number; pad: string };
}

export type FeedInput = {
  tag: string;
  size: number;
  pace: number;
};

export const FEED_SUBSCRIPTION = 'subscription($tag: String!, $size: Int!, $pace: Int!) { feed(tag: $tag, size: $size, pace: $pace) { n pad } }';

export async function startFeed(options: { streams: StreamsConfig; bodyLimit?: number; graphql?: Record<string, unknown>; grpc?: Record<string, unknown>; log?: (message: string) => void }): Promise<FeedServer> {
  const stats = new Map<string, FeedStats>();
  const pads = new Map<number, string>();
  const feed = defineOperation({
    name: 'feed',
    input: z.object({ tag: z.string(), size: z.coerce.number().int().min(1).max(4_000_000), pace: z.coerce.number().int().min(0) }),
    output: z.object({ n: z.number().int(), pad: z.string() }).meta({ id: 'FeedEvent' }),
    stream: true,
    rest: { path: '/feed' },
    grpc: { service: 'hostile.Feed' },
    handler: async function* (input, ctx) {
      yield* produce(input, ctx.signal);
    },
  });
  async function* produce(input: FeedInput, signal: AbortSignal): AsyncGenerator<{ n: number; pad: string }> {
      const own: FeedStats = { events: 0, bytes: 0, finished: false };
      stats.set(input.tag, own);
      let pad = pads.get(input.size);
      if (pad === undefined) pads.set(input.size, (pad = 'x'.repeat(input.size)));
      try {
        for (let n = 0; !signal.aborted; n++) {
          own.events++;
          own.bytes += input.size;
          yield { n, pad };
          if (input.pace > 0) await sleep(input.pace, undefined, { signal }).catch(() => undefined);
        }
      } finally {
        own.finished = true;
      }
  }
  // GraphQL: the same feed as a Subscription field of a schema (its context is the fw Context).
  const schema = buildSchema(`
    type Query { ok: Boolean! }
    type FeedEvent { n: Int!, pad: String! }
    type Subscription { feed(tag: String!, size: Int!, pace: Int!): FeedEvent! }
  `);
  const subscription = schema.getSubscriptionType()!.getFields()['feed']!;
  subscription.subscribe = (_root, args: FeedInput, ctx: { signal: AbortSignal }) => produce(args, ctx.signal);
  subscription.resolve = (event: unknown) => event;
  const app = createApp({
    onLog: (message, error) => options.log?.(`${message} ${error instanceof Error ? error.message : ''}`),
    streams: options.streams,
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    protocols: { graphql: { schema, rootValue: { ok: true }, ...options.graphql }, grpc: { port: 0, host: '127.0.0.1', ...options.grpc } },
  });
  app.operation(feed);
  app.get('/ping', (ctx) => ctx.text('pong'));
  const protoDir = await mkdtemp(join(tmpdir(), 'fw-hostile-streams-'));
  const files = app.getProtocolManager()!.grpc!.generateProtos();
  for (const { file, text } of files) await writeFile(join(protoDir, file.replace(/\//g, '_')), text);
  const info = await app.listen(0, '127.0.0.1');
  const file = files.find((f) => f.text.includes('service Feed'))!;
  const definition = protoLoader.loadSync(join(protoDir, file.file.replace(/\//g, '_')), { keepCase: false, longs: Number, enums: String, defaults: true });
  const Feed = (grpc.loadPackageDefinition(definition)['hostile'] as unknown as { Feed: grpc.ServiceClientConstructor }).Feed;
  const grpcClient = new Feed(app.getProtocolManager()!.getGrpcAddress()!.target, grpc.credentials.createInsecure());
  return {
    app,
    port: info.port,
    base: info.url,
    stats,
    grpcClient,
    rpc: (input, metadata = new grpc.Metadata()) => {
      const call = (grpcClient as unknown as Record<string, (r: object, m: grpc.Metadata) => grpc.ClientReadableStream<{ feedEvent?: { n: number; pad: string } }>>)['Feed']!.call(grpcClient, input, metadata);
      return call as unknown as grpc.ClientReadableStream<FeedMessage>;
    },
    close: async () => {
      grpcClient.close();
      await app.close();
      await rm(protoDir, { recursive: true, force: true });
    },
  };
}
