import { createHandler } from 'graphql-http';
import { schema, serve, type Served } from './helpers.js';

// The endpoint negotiates media types itself; graphql-http's handler is the reference. For each
// Accept header and each POST content type, both pick the same status and content type, and the
// refusals (406, 415) are the same answer; the few headers graphql-http misreads are listed apart.
const rootValue = { hello: () => 'world' };
const reference = createHandler({ schema, rootValue });
let served: Served;

beforeAll(async () => {
  served = await serve({ schema, rootValue, playground: false });
});

afterAll(() => served.close());

/** What a client sees of an answer that the two must agree on. */
interface Seen {
  status: number;
  contentType: string | null;
  accept: string | null;
  body: string;
}

async function ours(method: 'GET' | 'POST', headers: Record<string, string>, body?: string): Promise<Seen> {
  const url = method === 'GET' ? `${served.endpoint}?query=${encodeURIComponent('{ hello }')}` : served.endpoint;
  const res = await fetch(url, { method, headers, body });
  return { status: res.status, contentType: res.headers.get('content-type'), accept: res.headers.get('accept'), body: await res.text() };
}

async function theirs(method: 'GET' | 'POST', headers: Record<string, string>, body?: string): Promise<Seen> {
  const url = method === 'GET' ? `/graphql?query=${encodeURIComponent('{ hello }')}` : '/graphql';
  const [text, init] = await reference({ method, url, headers, body: body ?? null, raw: undefined, context: undefined });
  const answered = init.headers;
  return { status: init.status, contentType: answered?.['content-type'] ?? null, accept: answered?.accept ?? null, body: text ?? '' };
}

describe("the endpoint's media types, against graphql-http's handler", () => {
  it.each([
    ['application/graphql-response+json'],
    ['application/json'],
    ['application/graphql-response+json, application/json;q=0.9'],
    ['application/json; charset=utf-8'],
    ['application/json; charset=utf8'],
    ['application/*'],
    ['*/*'],
    ['text/html, application/json'],
    ['text/xml'],
    ['application/json; charset=latin1'],
    ['application/graphql-response+json; charset=utf8'],
    ['image/png, text/plain'],
  ])('answers a GET with Accept %j as graphql-http does', async (accept) => {
    expect(await ours('GET', { accept })).toEqual(await theirs('GET', { accept }));
  });

  it.each([
    ['application/json'],
    ['application/json; charset=utf-8'],
    ['Application/JSON ; charset=UTF-8'],
    ['application/json; charset=latin1'],
    ['text/plain'],
    ['application/x-www-form-urlencoded'],
    ['application/graphql'],
  ])('answers a POST with Content-Type %j as graphql-http does', async (contentType) => {
    const headers = { accept: 'application/graphql-response+json', 'content-type': contentType };
    const body = JSON.stringify({ query: '{ hello }' });
    expect(await ours('POST', headers, body)).toEqual(await theirs('POST', headers, body));
  });

  // Where graphql-http reads a header against its RFC, the endpoint follows the RFC (core's
  // negotiate and admittedBodyType): q-values, and parameters other than charset.
  it.each([
    ['application/json;q=0.5, application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
    ['application/graphql-response+json;q=0, application/json', 'application/json; charset=utf-8'],
  ])('answers Accept %j by its q-values, which graphql-http ignores', async (accept, contentType) => {
    const seen = await ours('GET', { accept });
    expect(seen.status).toBe(200);
    expect(seen.contentType).toBe(contentType);
  });

  it('takes a JSON body with a parameter other than charset, which graphql-http reads as the charset', async () => {
    const headers = { accept: 'application/graphql-response+json', 'content-type': 'application/json; boundary=x' };
    const seen = await ours('POST', headers, JSON.stringify({ query: '{ hello }' }));
    expect(seen.status).toBe(200);
    expect(JSON.parse(seen.body)).toEqual({ data: { hello: 'world' } });
    expect((await theirs('POST', headers, JSON.stringify({ query: '{ hello }' }))).status).toBe(415);
  });

  it('refuses an Accept header with nothing acceptable before reading the method, as graphql-http does', async () => {
    const headers = { accept: 'text/xml', 'content-type': 'text/plain' };
    expect(await ours('POST', headers, 'x')).toEqual(await theirs('POST', headers, 'x'));
  });
});
