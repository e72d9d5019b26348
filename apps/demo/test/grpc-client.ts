import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

type Callback<T> = (err: grpc.ServiceError | null, res?: T) => void;

/** The generated proto of the demo's operations (package `bookstore`, in its package directory). */
export const PROTO_FILE = join(__dirname, '..', 'proto', 'bookstore', 'bookstore.proto');

/** A book as the generated `Book` message reads with keepCase: lower_snake_case fields. */
export type BookMessage = Record<string, unknown> & { id: string; price_cents: number };
/** An order as the generated `Order` message reads. */
export type OrderMessage = Record<string, unknown> & { id: string; user_id: string; total_cents: number; status: string };
/** One message of the `OrderEvents` stream: the event as one field, named after its message. */
export interface OrderEventsResponse {
  order_event: { event_id: string; order_id: string; status: string; total_cents: number; at: string };
}
/** One message of the `StockEvents` stream. */
export interface StockEventsResponse {
  stock_event: { event_id: string; book_id: string; title: string; stock: number; reason: string };
}

export type CatalogClient = grpc.Client & {
  GetBook(req: { id?: string }, md: grpc.Metadata, cb: Callback<{ book: BookMessage }>): grpc.ClientUnaryCall;
  ListBooks(req: { genre?: string; author?: string; limit?: number; offset?: number }, md: grpc.Metadata, cb: Callback<{ items: BookMessage[] }>): grpc.ClientUnaryCall;
  PlaceOrder(req: { lines: Array<{ book_id: string; quantity: number }> }, md: grpc.Metadata, cb: Callback<{ order: OrderMessage }>): grpc.ClientUnaryCall;
  MyOrders(req: Record<string, never>, md: grpc.Metadata, cb: Callback<{ items: OrderMessage[] }>): grpc.ClientUnaryCall;
  OrderEvents(req: { order_id?: string }, md: grpc.Metadata): grpc.ClientReadableStream<OrderEventsResponse>;
  StockEvents(req: { book_id?: string }, md: grpc.Metadata): grpc.ClientReadableStream<StockEventsResponse>;
};

/**
 * A real grpc-js client for the proto generated from the demo's operations: proto-loader with
 * keepCase, so fields are the proto's lower_snake_case names; enums by name, int64 as numbers.
 */
export function catalogClient(target: string): CatalogClient {
  const definition = protoLoader.loadSync(PROTO_FILE, { keepCase: true, longs: Number, enums: String, defaults: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { bookstore: { Catalog: new (t: string, c: grpc.ChannelCredentials) => CatalogClient } };
  return new pkg.bookstore.Catalog(target, grpc.credentials.createInsecure());
}

export function metadata(token?: string): grpc.Metadata {
  const md = new grpc.Metadata();
  if (token !== undefined) md.set('authorization', `Bearer ${token}`);
  return md;
}

export function unary<T>(fn: (cb: (err: grpc.ServiceError | null, res?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, res) => (err ? reject(err) : resolve(res as T))));
}

interface ReflectionResponse {
  list_services_response?: { service: Array<{ name: string }> };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

type ReflectionClient = grpc.Client & { ServerReflectionInfo(): grpc.ClientDuplexStream<Record<string, string>, ReflectionResponse> };

/** Asks the server's reflection service (grpc.reflection.v1) one question, as grpcurl does. */
export function reflect(target: string, request: { list_services: string } | { file_containing_symbol: string }): Promise<ReflectionResponse> {
  const definition = protoLoader.loadSync(join(__dirname, 'fixtures', 'reflection.proto'), { keepCase: true, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { grpc: { reflection: { v1: { ServerReflection: new (t: string, c: grpc.ChannelCredentials) => ReflectionClient } } } };
  const client = new pkg.grpc.reflection.v1.ServerReflection(target, grpc.credentials.createInsecure());
  return new Promise<ReflectionResponse>((resolve, reject) => {
    const call = client.ServerReflectionInfo();
    call.on('data', (response: ReflectionResponse) => {
      resolve(response);
      call.end();
    });
    call.on('error', reject);
    call.write(request);
  }).finally(() => client.close());
}
