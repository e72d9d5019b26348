import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const SHOP_PROTO = join(__dirname, 'fixtures', 'shop.proto');

interface ItemsClient extends grpc.Client {
  Get(request: { id: string }, metadata: grpc.Metadata, callback: (err: grpc.ServiceError | null, item?: { id: string; owner: string }) => void): void;
  Stream(request: { count: number }, metadata?: grpc.Metadata): grpc.ClientReadableStream<{ id: string; owner: string }>;
}

/** A real grpc-js client for the shop.Items service. */
export function itemsClient(target: string): ItemsClient {
  const definition = protoLoader.loadSync(SHOP_PROTO, { keepCase: true, defaults: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { shop: { Items: new (t: string, c: grpc.ChannelCredentials) => ItemsClient } };
  return new pkg.shop.Items(target, grpc.credentials.createInsecure());
}

/** Calls Items.Get and resolves with the item or rejects with the gRPC error. */
export function getItem(client: ItemsClient, id: string, token?: string): Promise<{ id: string; owner: string }> {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve, reject) => client.Get({ id }, metadata, (err, item) => (err ? reject(err) : resolve(item!))));
}

/** Sends a GraphQL operation over a real socket. */
export async function graphqlRequest(url: string, query: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify({ query }) });
  return { status: res.status, body: (await res.json()) as never };
}
