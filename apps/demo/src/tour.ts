import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { mintToken } from './auth.js';
import { readConfig } from './config.js';
import { SEED } from './domain/repository.js';
import { PROTO_PATH } from './grpc/services.js';

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
  body: JSON.stringify({ query: 'query Tour($genre: Genre) { books(genre: $genre, limit: 2) { total items { title author stock } } myOrders { id totalCents } }', variables: { genre: 'science' } }),
});
show(`GraphQL  query Tour (as ${SEED.users[1]!.name}) → ${gql.status}`, await gql.json());

// gRPC
const definition = protoLoader.loadSync(PROTO_PATH, { keepCase: true, defaults: true });
const { bookstore } = grpc.loadPackageDefinition(definition) as unknown as {
  bookstore: { Catalog: new (target: string, credentials: grpc.ChannelCredentials) => grpc.Client & Record<string, (...args: unknown[]) => unknown> };
};
const client = new bookstore.Catalog(grpcTarget, grpc.credentials.createInsecure());
const book = await new Promise((resolve, reject) =>
  client.GetBook!({ id: 'b1' }, (err: Error | null, reply: unknown) => (err ? reject(err) : resolve(reply))),
);
show(`gRPC  bookstore.Catalog/GetBook { id: "b1" } at ${grpcTarget}`, book);
const titles: string[] = [];
await new Promise<void>((resolve, reject) => {
  const stream = client.ListBooks!({ genre: 'fiction' }) as grpc.ClientReadableStream<{ title: string }>;
  stream.on('data', (b: { title: string }) => titles.push(b.title));
  stream.on('end', () => resolve());
  stream.on('error', reject);
});
show('gRPC  bookstore.Catalog/ListBooks { genre: "fiction" } (server stream)', titles);
client.close();
