import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { mintToken } from './auth.js';
import { readConfig } from './config.js';
import { SEED } from './domain/repository.js';
import { PROTO_DIR } from './server.js';

// A first look at all three protocols: one real call each against a running demo.
const config = readConfig();
const base = process.env.DEMO_URL ?? `http://${config.host}:${config.port}`;
const grpcTarget = process.env.DEMO_GRPC ?? `${config.host}:${config.grpcPort}`;
const token = await mintToken(SEED.users[1]!, config.jwtSecret);
const show = (title: string, value: unknown): void => console.log(`\n── ${title}\n${JSON.stringify(value, null, 2)}`);

// REST
const rest = await fetch(`${base}/api/v2/books?genre=fiction&limit=2`);
show(`REST  GET /api/v2/books?genre=fiction&limit=2 → ${rest.status}`, await rest.json());

// GraphQL
const gql = await fetch(`${base}/graphql`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  body: JSON.stringify({ query: 'query Tour($genre: Genre) { listBooks(input: { genre: $genre, limit: 2 }) { title author stock } myOrders { id totalCents } }', variables: { genre: 'science' } }),
});
show(`GraphQL  query Tour (as ${SEED.users[1]!.name}) → ${gql.status}`, await gql.json());

// gRPC, with the .proto generated from the operations (enums by name, int64 as numbers)
const definition = protoLoader.loadSync(join(PROTO_DIR, 'bookstore.proto'), { keepCase: true, longs: Number, enums: String, defaults: true });
const { bookstore } = grpc.loadPackageDefinition(definition) as unknown as {
  bookstore: { Catalog: new (target: string, credentials: grpc.ChannelCredentials) => grpc.Client & Record<string, (...args: unknown[]) => unknown> };
};
const client = new bookstore.Catalog(grpcTarget, grpc.credentials.createInsecure());
const book = await new Promise((resolve, reject) =>
  client.GetBook!({ id: 'b1' }, (err: Error | null, reply: unknown) => (err ? reject(err) : resolve(reply))),
);
show(`gRPC  bookstore.Catalog/GetBook { id: "b1" } at ${grpcTarget}`, book);
const page = await new Promise<{ items: Array<{ title: string }> }>((resolve, reject) =>
  client.ListBooks!({ genre: 'GENRE_FICTION' }, (err: Error | null, reply: { items: Array<{ title: string }> }) => (err ? reject(err) : resolve(reply))),
);
show('gRPC  bookstore.Catalog/ListBooks { genre: GENRE_FICTION }', page.items.map((b) => b.title));
client.close();
