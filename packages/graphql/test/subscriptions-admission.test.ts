import type { Context } from '@fw/core';
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { serve, type Served } from './helpers.js';

// Who may call what over GraphQL over SSE, on real sockets: the request body's media type (a page
// on another site can POST text/plain or a form without asking), the Accept header's preference,
// the owner of a single-connection reservation, and how many reservations a client may hold.

/** Who each `transfer` mutation ran as, in order. */
const ledger: string[] = [];

const userOf = (context: unknown): string => ((context as Context).user as { id?: string } | undefined)?.id ?? 'anonymous';

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { hello: { type: GraphQLString, resolve: () => 'world' } } }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      transfer: {
        type: GraphQLString,
        args: { amount: { type: new GraphQLNonNull(GraphQLInt) } },
        resolve: (_root: unknown, { amount }: { amount: number }, context: unknown) => {
          ledger.push(userOf(context));
          return `${amount} sent`;
        },
      },
    },
  }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      whoami: {
        type: GraphQLString,
        subscribe: async function* (_root: unknown, _args: unknown, context: unknown) {
          yield userOf(context);
        },
        resolve: (value: unknown) => value,
      },
    },
  }),
});

describe('the Accept header of a GraphQL request', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema });
  });

  afterAll(() => served.close());

  const post = (accept: string, query = '{ hello }'): Promise<Response> =>
    fetch(served.endpoint, { method: 'POST', headers: { accept, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

  it.each([
    ['application/graphql-response+json, text/event-stream;q=0', 'application/graphql-response+json; charset=utf-8'],
    // urql's: JSON first, the event stream for when the server only streams.
    ['application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed', 'application/graphql-response+json; charset=utf-8'],
    ['text/event-stream;q=0.5, application/json', 'application/json; charset=utf-8'],
    ['text/event-stream;q=0.9, */*', 'application/json; charset=utf-8'],
  ])('answers JSON to Accept %j, which prefers JSON', async (accept, contentType) => {
    const res = await post(accept);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(contentType);
    expect(await res.json()).toEqual({ data: { hello: 'world' } });
  });

  it.each([['text/event-stream'], ['application/json;q=0.5, text/event-stream'], ['text/event-stream, application/json'], ['*/*;q=0.1, text/*']])(
    'answers an event stream to Accept %j, which prefers it',
    async (accept) => {
      const res = await post(accept);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(await res.text()).toContain('data: {"data":{"hello":"world"}}');
    },
  );

  it('answers 406 when the only type listed is the event stream at q=0', async () => {
    const res = await post('text/event-stream;q=0');
    expect(res.status).toBe(406);
  });

  it('answers a GET by the same negotiation: a stream when it prefers the stream, JSON when it prefers JSON', async () => {
    const url = `${served.endpoint}?query=${encodeURIComponent('{ hello }')}`;
    const streamed = await fetch(url, { headers: { accept: 'application/json;q=0.2, text/event-stream' } });
    expect(streamed.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await streamed.text();
    const json = await fetch(url, { headers: { accept: 'text/event-stream;q=0.2, application/json' } });
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
