import { HTTPError } from '@fw/core';
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';

/** What the subscribe resolvers saw: how many generators ran their `finally`, and the contexts they got. */
export interface Probe {
  finallies: number;
  contexts: unknown[];
  /** Resolves the next time a generator runs its `finally`. */
  nextFinally(): Promise<void>;
}

export function createProbe(): Probe {
  let waiting: Array<() => void> = [];
  const probe: Probe = {
    finallies: 0,
    contexts: [],
    nextFinally: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
  const ran = (): void => {
    probe.finallies += 1;
    const done = waiting;
    waiting = [];
    for (const resolve of done) resolve();
  };
  (probe as Probe & { ran: () => void }).ran = ran;
  return probe;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A user schema whose `Subscription` fields have `subscribe` resolvers that are async generators:
 * `count(to)` yields 1..to, `boom(after, status)` yields `after` numbers then throws (an HTTPError
 * with `status`, or a plain Error), `ticks` yields every 20 ms until the client leaves, `whoami`
 * yields the context's `user` once, `waits` yields once then waits for the context's `signal`,
 * `big(size)` yields a string of `size` characters then a small one, `flood(size)` yields strings
 * of `size` characters for as long as it is pulled.
 */
export function subscriptionSchema(probe: Probe): GraphQLSchema {
  const ran = (probe as Probe & { ran: () => void }).ran;
  const int = new GraphQLNonNull(GraphQLInt);
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { hello: { type: GraphQLString, resolve: () => 'world' } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        count: {
          type: int,
          args: { to: { type: int } },
          subscribe: async function* (_root: unknown, { to }: { to: number }) {
            try {
              for (let i = 1; i <= to; i++) yield i;
            } finally {
              ran();
            }
          },
          resolve: (value: unknown) => value,
        },
        boom: {
          type: int,
          args: { after: { type: int }, status: { type: GraphQLInt } },
          subscribe: async function* (_root: unknown, { after, status }: { after: number; status?: number | null }) {
            try {
              for (let i = 1; i <= after; i++) yield i;
              throw status == null ? new Error('database password is hunter2') : new HTTPError(status, `refused with ${status}`);
            } finally {
              ran();
            }
          },
          resolve: (value: unknown) => value,
        },
        ticks: {
          type: int,
          subscribe: async function* (_root: unknown, _args: unknown, context: unknown) {
            probe.contexts.push(context);
            try {
              for (let i = 1; ; i++) {
                yield i;
                await sleep(20);
              }
            } finally {
              ran();
            }
          },
          resolve: (value: unknown) => value,
        },
        waits: {
          type: int,
          subscribe: async function* (_root: unknown, _args: unknown, context: unknown) {
            const signal = (context as { signal: AbortSignal }).signal;
            try {
              yield 1;
              // Nothing more comes: only the context's signal ends the wait.
              await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
            } finally {
              ran();
            }
          },
          resolve: (value: unknown) => value,
        },
        big: {
          type: GraphQLString,
          args: { size: { type: int } },
          subscribe: async function* (_root: unknown, { size }: { size: number }) {
            yield 'x'.repeat(size);
            yield 'small';
          },
          resolve: (value: unknown) => value,
        },
        flood: {
          type: GraphQLString,
          args: { size: { type: int } },
          subscribe: async function* (_root: unknown, { size }: { size: number }) {
            const text = 'x'.repeat(size);
            try {
              // As fast as it is pulled: only the transport's bounds keep memory flat.
              for (;;) yield text;
            } finally {
              ran();
            }
          },
          resolve: (value: unknown) => value,
        },
        whoami: {
          type: GraphQLString,
          subscribe: async function* (_root: unknown, _args: unknown, context: unknown) {
            probe.contexts.push(context);
            yield (context as { user?: string }).user ?? 'nobody';
          },
          resolve: (value: unknown) => value,
        },
      },
    }),
  });
}

/** Collects every result of an async iterable. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
