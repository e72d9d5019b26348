import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import { Application, HTTPError, type ApplicationConfig, type Middleware, type Operation, type RequestContext } from '@fw/core';
import { generateProtos } from '@fw/grpc';
import { defineOperation } from '@fw/validate';
import { bufImage } from '../../../tooling/testing/buf.js';
import { connectPlugin, type ConnectConfig } from '../src/index.js';

/**
 * The operations the tests serve: a book store with a read (REST GET: Connect GET may call it), a
 * write behind authentication, a server stream and a call that waits for its deadline.
 */

/** No token: 401; `Bearer guest`: 403; `Bearer admin`: through. */
export const requireAdmin: Middleware<RequestContext> = async (ctx, next) => {
  const token = ctx.headers.authorization;
  if (token === undefined) throw new HTTPError(401, 'Authentication required', undefined, { headers: { 'www-authenticate': 'Bearer' } });
  if (token !== 'Bearer admin') throw new HTTPError(403, 'Admins only');
  await next();
};

const Genre = z.enum(['fiction', 'science-fiction', 'poetry']).meta({ id: 'Genre' });
const Book = z.object({ id: z.string(), title: z.string(), priceCents: z.number().int(), genre: Genre, subtitle: z.string().optional() }).meta({ id: 'Book' });

export const calls = { getBook: 0, streamsFinished: 0, slowAborted: 0, tickersFinished: 0 };

export const getBook = defineOperation({
  name: 'getBook',
  input: z.object({ id: z.string().min(1) }),
  output: Book,
  rest: { method: 'GET', path: '/books/:id' },
  grpc: { service: 'bookstore.v1.Catalog' },
  handler: ({ id }) => {
    calls.getBook++;
    if (id === 'missing') throw new HTTPError(404, `No book ${id}`);
    if (id === 'broken') throw new Error('database on fire');
    return { id, title: 'Dune', priceCents: 1299, genre: 'science-fiction' as const };
  },
});

export const addBook = defineOperation({
  name: 'addBook',
  input: z.object({ title: z.string().min(2), priceCents: z.number().int().min(0), genre: Genre }),
  output: Book,
  middleware: [requireAdmin],
  rest: { method: 'POST', path: '/books' },
  grpc: { service: 'bookstore.v1.Catalog' },
  handler: (input) => ({ id: 'b2', ...input }),
});

export const countdown = defineOperation({
  name: 'countdown',
  input: z.object({ from: z.number().int().min(0).max(1000), fail: z.boolean().optional() }),
  output: z.object({ left: z.number().int() }).meta({ id: 'Count' }),
  stream: true,
  grpc: { service: 'bookstore.v1.Catalog' },
  handler: async function* (input) {
    try {
      for (let left = input.from; left > 0; left--) yield { left };
      if (input.fail === true) throw new HTTPError(409, 'Out of stock', undefined, { code: 'failed_precondition' });
    } finally {
      calls.streamsFinished++;
    }
  },
});

/** One event, then waits until its stream is over (the client left, the app closed). */
export const ticker = defineOperation({
  name: 'ticker',
  input: z.object({}),
  output: z.object({ n: z.number().int() }).meta({ id: 'Tick' }),
  stream: true,
  grpc: { service: 'bookstore.v1.Catalog' },
  handler: async function* (_input, ctx) {
    try {
      yield { n: 1 };
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    } finally {
      calls.tickersFinished++;
    }
  },
});

export const slow = defineOperation({
  name: 'slow',
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  rest: { method: 'POST', path: '/slow' },
  grpc: { service: 'bookstore.v1.Catalog' },
  handler: async (_input, ctx) => {
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener(
        'abort',
        () => {
          calls.slowAborted++;
          resolve();
        },
        { once: true },
      );
    });
    return { ok: false };
  },
});

export const OPERATIONS: readonly Operation[] = [getBook, addBook, countdown, ticker, slow];

/** An app serving the operations over Connect. */
export function connectApp(config: ConnectConfig = {}, operations: readonly Operation[] = OPERATIONS, appConfig: ApplicationConfig = {}): Application {
  const app = new Application({ onLog: () => undefined, ...appConfig });
  app.register(connectPlugin(config));
  for (const op of operations) app.operation(op);
  return app;
}

/**
 * The client's descriptors, built by `buf build` from the .proto files fw emits (not by the
 * protobufjs path the server uses): what a team calling the service from its own code would do.
 */
export async function clientRegistry(operations: readonly Operation[] = OPERATIONS): Promise<FileRegistry> {
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, await bufImage(generateProtos(operations))));
}

/** One envelope as a client sends it: a flags byte, a 4-byte big-endian length, the payload. */
export function enveloped(payload: Buffer, flags = 0): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = flags;
  prefix.writeUInt32BE(payload.length, 1);
  return Buffer.concat([prefix, payload]);
}

/** The frames of an enveloped body: each flag and payload. */
export function frames(body: Buffer): Array<{ flags: number; payload: Buffer }> {
  const out: Array<{ flags: number; payload: Buffer }> = [];
  let pos = 0;
  while (pos + 5 <= body.length) {
    const length = body.readUInt32BE(pos + 1);
    out.push({ flags: body[pos]!, payload: body.subarray(pos + 5, pos + 5 + length) });
    pos += 5 + length;
  }
  return out;
}
