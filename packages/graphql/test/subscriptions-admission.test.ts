import { connect } from 'node:net';
import type { Application, Context } from '@fw/core';
import { createClient } from 'graphql-sse';
import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { serve, type Served } from './helpers.js';

// Who may call what over GraphQL over SSE, on real sockets: the request body's media type (a page
// on another site can POST text/plain or a form without asking), the Accept header's preference,
// the owner of a single-connection reservation, and how many reservations a client may hold.

const TOKEN = 'x-graphql-event-stream-token';

interface ErrorsBody {
  errors: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

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

/** The app's authentication: a bearer token or a session cookie names the user. */
const authenticate = (app: Application): void => {
  app.use(async (ctx, next) => {
    const auth = ctx.headers.authorization;
    const cookie = ctx.headers.cookie;
    const name = auth?.startsWith('Bearer ') ? auth.slice(7) : cookie?.startsWith('session=') ? cookie.slice(8) : undefined;
    if (name !== undefined) ctx.user = { id: name };
    await next();
  });
};

const MUTATION = JSON.stringify({ query: 'mutation { transfer(amount: 100) }' });

/** A reservation, then its event stream open, as graphql-sse's single-connection client makes them. */
interface OpenStream {
  readonly token: string;
  /** Reads the stream until `text` has arrived. */
  readUntil(text: string): Promise<string>;
  close(): void;
}

async function reserve(endpoint: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(endpoint, { method: 'PUT', headers });
  expect(res.status).toBe(201);
  return res.text();
}

async function openStream(endpoint: string, headers: Record<string, string>): Promise<OpenStream> {
  const token = await reserve(endpoint, headers);
  const controller = new AbortController();
  const res = await fetch(endpoint, { headers: { ...headers, accept: 'text/event-stream', [TOKEN]: token }, signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  return {
    token,
    readUntil: async (text) => {
      while (!seen.includes(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += decoder.decode(value, { stream: true });
      }
      return seen;
    },
    close: () => controller.abort(),
  };
}

describe('the media type of a GraphQL-over-SSE request body', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema }, authenticate);
  });

  afterAll(() => served.close());

  beforeEach(() => {
    ledger.length = 0;
  });

  // Each of these a page on another site can send with the victim's cookie, without a preflight:
  // their media type is text/plain or a form, whatever the parameters say.
  const crossSite = ['text/plain;application/json', 'text/plain; charset=application/json', 'application/x-www-form-urlencoded; x=application/json'];

  it.each(crossSite)('answers 415 to a POST for an event stream with Content-Type %j, and runs nothing', async (contentType) => {
    const res = await fetch(served.endpoint, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': contentType, cookie: 'session=alice' }, body: MUTATION });
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toBeNull();
    expect(await res.text()).toBe('');
    expect(ledger).toEqual([]);
  });

  it.each(crossSite)('answers a plain GraphQL POST with Content-Type %j the same 415', async (contentType) => {
    const res = await fetch(served.endpoint, { method: 'POST', headers: { accept: 'application/json', 'content-type': contentType, cookie: 'session=alice' }, body: MUTATION });
    expect(res.status).toBe(415);
    expect(await res.text()).toBe('');
    expect(ledger).toEqual([]);
  });

  it.each(crossSite)('answers 415 to an operation POSTed to a single-connection stream with Content-Type %j, and runs nothing', async (contentType) => {
    const headers = { cookie: 'session=alice' };
    const stream = await openStream(served.endpoint, headers);
    try {
      const body = JSON.stringify({ query: 'mutation { transfer(amount: 100) }', extensions: { operationId: '1' } });
      const res = await fetch(served.endpoint, { method: 'POST', headers: { ...headers, [TOKEN]: stream.token, 'content-type': contentType }, body });
      expect(res.status).toBe(415);
      expect(ledger).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('still runs a JSON POST, with a charset, parameters in any case, or a +json type', async () => {
    for (const contentType of ['application/json', 'Application/JSON; Charset="UTF-8"', 'application/graphql-response+json']) {
      const res = await fetch(served.endpoint, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': contentType, cookie: 'session=alice' }, body: MUTATION });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('"transfer":"100 sent"');
    }
    expect(ledger).toEqual(['alice', 'alice', 'alice']);
  });
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

describe('the owner of a single-connection reservation', () => {
  let served: Served;
  const clients: Array<{ dispose(): void }> = [];

  beforeAll(async () => {
    served = await serve({ schema }, authenticate, { trustProxy: true });
  });

  afterAll(async () => {
    for (const client of clients) client.dispose();
    await served.close();
  });

  beforeEach(() => {
    ledger.length = 0;
  });

  const alice = { authorization: 'Bearer alice', 'x-forwarded-for': '203.0.113.1' };
  const operation = (id: string): string => JSON.stringify({ query: 'mutation { transfer(amount: 100) }', extensions: { operationId: id } });
  const postOperation = (token: string, headers: Record<string, string>, id: string): Promise<Response> =>
    fetch(served.endpoint, { method: 'POST', headers: { ...headers, [TOKEN]: token, 'content-type': 'application/json' }, body: operation(id) });

  it("runs the owner's operations on the owner's stream", async () => {
    const stream = await openStream(served.endpoint, alice);
    try {
      const res = await postOperation(stream.token, alice, 'own');
      expect(res.status).toBe(202);
      expect(await stream.readUntil('"id":"own"')).toContain('"transfer":"100 sent"');
      expect(ledger).toEqual(['alice']);
    } finally {
      stream.close();
    }
  });

  it.each([
    ['another user', { authorization: 'Bearer mallory', 'x-forwarded-for': '203.0.113.1' }],
    ['an anonymous client at the same address', { 'x-forwarded-for': '203.0.113.1' }],
    ['the same user from another address', { authorization: 'Bearer alice', 'x-forwarded-for': '198.51.100.9' }],
  ])("answers 404 to %s POSTing an operation with the owner's token, and runs nothing", async (_who, headers) => {
    const stream = await openStream(served.endpoint, alice);
    try {
      const res = await postOperation(stream.token, headers, 'stolen');
      expect(res.status).toBe(404);
      expect((await res.json()) as ErrorsBody).toEqual({ errors: [{ message: 'Stream not found' }] });
      const stop = await fetch(`${served.endpoint}?operationId=own`, { method: 'DELETE', headers: { ...headers, [TOKEN]: stream.token } });
      expect(stop.status).toBe(404);
      expect(ledger).toEqual([]);
      // The owner's stream is still theirs.
      expect((await postOperation(stream.token, alice, 'after')).status).toBe(202);
      await stream.readUntil('"id":"after"');
      expect(ledger).toEqual(['alice']);
    } finally {
      stream.close();
    }
  });

  it("answers 404 to another user opening the event stream of the owner's reservation, which the owner still can", async () => {
    const token = await reserve(served.endpoint, alice);
    const mallory = { authorization: 'Bearer mallory', 'x-forwarded-for': '203.0.113.1' };
    const taken = await fetch(served.endpoint, { headers: { ...mallory, accept: 'text/event-stream', [TOKEN]: token } });
    expect(taken.status).toBe(404);
    await taken.text();
    const controller = new AbortController();
    const own = await fetch(served.endpoint, { headers: { ...alice, accept: 'text/event-stream', [TOKEN]: token }, signal: controller.signal });
    expect(own.status).toBe(200);
    controller.abort();
  });

  it("gives graphql-sse's single-connection client its own user's context", async () => {
    const client = createClient({ url: served.endpoint, singleConnection: true, retryAttempts: 0, headers: alice });
    clients.push(client);
    const results: unknown[] = [];
    for await (const result of client.iterate({ query: 'subscription { whoami }' })) results.push(result);
    expect(results).toEqual([{ data: { whoami: 'alice' } }]);
  });
});

/** Statuses of `count` reservation PUTs, pipelined `perSocket` to a socket so that they arrive together. */
async function pipelinedReservations(served: Served, count: number, perSocket: number): Promise<number[]> {
  const { hostname, port } = new URL(served.url);
  const sockets = Math.ceil(count / perSocket);
  const answers = await Promise.all(
    Array.from({ length: sockets }, (_, s) => {
      const n = Math.min(perSocket, count - s * perSocket);
      let requests = '';
      for (let i = 0; i < n; i++) {
        const last = i === n - 1;
        requests += `PUT /graphql HTTP/1.1\r\nhost: ${hostname}\r\nx-forwarded-for: 10.1.${s}.${i}\r\ncontent-length: 0\r\n${last ? 'connection: close\r\n' : ''}\r\n`;
      }
      return new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => socket.write(requests));
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    }),
  );
  return answers.flatMap((text) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1])));
}

describe('how many reservations wait for their event stream', () => {
  it('answers a client past streams.maxPerClient pending reservations 429, while another client still gets one', async () => {
    const served = await serve({ schema }, undefined, { trustProxy: true, streams: { maxPerClient: 3 } });
    try {
      const put = (client: string): Promise<Response> => fetch(served.endpoint, { method: 'PUT', headers: { 'x-forwarded-for': client } });
      for (let i = 0; i < 3; i++) expect((await put('192.0.2.1')).status).toBe(201);
      const refused = await put('192.0.2.1');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('3');
      expect(((await refused.json()) as ErrorsBody).errors[0]).toEqual({
        message: 'Too many event streams reserved by this client: at most 3 wait for their event stream at once.',
        extensions: { code: 'TOO_MANY_REQUESTS', status: 429 },
      });
      const other = await put('192.0.2.2');
      expect(other.status).toBe(201);
    } finally {
      await served.close();
    }
  });

  it('gives a PUT that names a token a new one, counted as any other, and never the token it named', async () => {
    const served = await serve({ schema }, undefined, { streams: { maxPerClient: 1 } });
    try {
      const named = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
      const res = await fetch(served.endpoint, { method: 'PUT', headers: { [TOKEN]: named } });
      expect(res.status).toBe(201);
      const token = await res.text();
      expect(token).not.toBe(named);
      expect(token).toMatch(/^[0-9a-f-]{36}$/);
      expect((await fetch(served.endpoint, { method: 'PUT', headers: { [TOKEN]: token } })).status).toBe(429);
      const unknown = await fetch(served.endpoint, { method: 'POST', headers: { [TOKEN]: named, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }', extensions: { operationId: '1' } }) });
      expect(unknown.status).toBe(404);
    } finally {
      await served.close();
    }
  });

  it('frees a reservation once its event stream is open, so its client may reserve again', async () => {
    const served = await serve({ schema }, undefined, { streams: { maxPerClient: 1 } });
    try {
      const stream = await openStream(served.endpoint, {});
      const next = await fetch(served.endpoint, { method: 'PUT' });
      expect(next.status).toBe(201);
      stream.close();
    } finally {
      await served.close();
    }
  });

  it('accepts exactly streams.maxOpen reservations of 120 that arrive at once, and answers the others 503', async () => {
    const served = await serve({ schema }, undefined, { trustProxy: true, streams: { maxOpen: 20, maxPerClient: 1000 } });
    try {
      const statuses = await pipelinedReservations(served, 120, 30);
      expect(statuses).toHaveLength(120);
      expect(statuses.filter((status) => status === 201)).toHaveLength(20);
      expect(statuses.filter((status) => status === 503)).toHaveLength(100);
    } finally {
      await served.close();
    }
  });
});
