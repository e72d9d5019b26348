// The HTTP scenarios. Each server implements the ones it can (see servers/*.mjs) and names them
// when it announces itself; a suite (suites.mjs) runs its scenarios on its servers that serve them.
// To add one: append it here, implement it in the servers that should run it, list it in a suite.
//   request: what wrk sends (method/headers/body go into a generated wrk Lua script);
//   expect:  what the pre-check requires once before loading: status, JSON body, and optionally
//            response headers (name → exact value, or true for "present");
//   invalid: optionally, a request that must be refused with `status` (proves e.g. that
//            validation is really on); checked once before loading, never loaded;
//   sameAs:  the scenario it should cost the same as (the "within 10%" targets).

import { CATALOG } from './servers/ready.mjs';

const HELLO = { hello: 'world' };

/** The 10-field JSON body of the validation suite (issue 4), valid for both servers' schemas. */
const USER = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  age: 36,
  active: true,
  role: 'admin',
  score: 97.5,
  tags: ['math', 'poetry'],
  country: 'GB',
  zip: '12345',
  createdAt: '2024-05-01T12:00:00Z',
};
const JSON_POST = { method: 'POST', headers: { 'content-type': 'application/json' } };

const GQL_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const GQL_VARS_QUERY =
  'query User($id: ID!, $first: Int!) { user(id: $id) { id name email friends(first: $first) { id name friends(first: 1) { id } } } }';
const friend = (id) => ({ id, name: `User ${id}`, friends: [{ id: `${id}.1` }] });
const GQL_MUTATION =
  'mutation CreateUser($input: CreateUserInput!) { createUser(input: $input) { id name email } }';
const GQL_INPUT = { name: 'Ada Lovelace', email: 'ada@example.com', age: 36, tags: ['math', 'poetry'] };

export const scenarios = [
  // Core (issue 2).
  {
    name: 'static',
    label: 'static JSON: GET /json → {"hello":"world"}',
    request: { method: 'GET', path: '/json' },
    expect: { status: 200, json: HELLO },
  },
  {
    name: 'param',
    label: ':param route: GET /users/:id → {"id":"12345"}',
    request: { method: 'GET', path: '/users/12345' },
    expect: { status: 200, json: { id: '12345' } },
    sameAs: 'static',
  },
  {
    name: 'mw3',
    label: 'static JSON behind 3 route middleware (each `await next()`): GET /mw/json',
    request: { method: 'GET', path: '/mw/json' },
    expect: { status: 200, json: HELLO },
    sameAs: 'static',
  },
  // Middleware (issue 3): a cross-origin GET, so CORS has a header to answer.
  {
    name: 'cors-rl',
    label: 'static JSON behind CORS + rate limit: GET /cors/json with Origin',
    request: { method: 'GET', path: '/cors/json', headers: { origin: 'https://app.example.com' } },
    expect: { status: 200, json: HELLO, headers: { 'access-control-allow-origin': '*', 'x-ratelimit-limit': '1000000000', 'x-ratelimit-remaining': true } },
  },
  // Connect: one unary call of the same service, JSON and binary (bench.v1.Catalog/GetBook).
  {
    name: 'connect-json',
    label: 'Connect unary, JSON: POST /bench.v1.Catalog/GetBook {"id":"b1"}',
    request: { method: 'POST', path: '/bench.v1.Catalog/GetBook', headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' }, body: '{"id":"b1"}' },
    expect: { status: 200, json: { book: { id: 'b1', title: 'The Left Hand of Darkness', priceCents: 1299 } } },
  },
  {
    name: 'connect-proto',
    label: 'Connect unary, binary: the same call as application/proto',
    // GetBookRequest { id: "b1" }
    request: { method: 'POST', path: '/bench.v1.Catalog/GetBook', headers: { 'content-type': 'application/proto', 'connect-protocol-version': '1' }, body: Uint8Array.from([0x0a, 0x02, 0x62, 0x31]) },
    expect: { status: 200, headers: { 'content-type': 'application/proto' }, bodyHex: Buffer.from([0x0a, 0x22, 0x0a, 0x02, 0x62, 0x31, 0x12, 0x19, ...Buffer.from('The Left Hand of Darkness'), 0x18, 0x93, 0x0a]).toString('hex') },
  },
  // Compression: a 10 KB JSON answer to a client that accepts one coding.
  {
    name: 'json10k-gzip',
    label: '10 KB JSON, gzip: GET /catalog with Accept-Encoding: gzip',
    request: { method: 'GET', path: '/catalog', headers: { 'accept-encoding': 'gzip' } },
    expect: { status: 200, json: CATALOG, headers: { 'content-encoding': 'gzip' } },
  },
  {
    name: 'json10k-br',
    label: '10 KB JSON, brotli: GET /catalog with Accept-Encoding: br (both at their default quality, 4)',
    request: { method: 'GET', path: '/catalog', headers: { 'accept-encoding': 'br' } },
    expect: { status: 200, json: CATALOG, headers: { 'content-encoding': 'br' } },
  },
  // Validation (issue 4).
  {
    name: 'post',
    label: 'POST /users, 10-field JSON body echoed, no validation',
    request: { ...JSON_POST, path: '/users', body: USER },
    expect: { status: 200, json: USER },
  },
  {
    name: 'post-validated',
    label: 'POST /users/validated, 10-field JSON body validated, then echoed',
    request: { ...JSON_POST, path: '/users/validated', body: USER },
    expect: { status: 200, json: USER },
    invalid: { request: { ...JSON_POST, path: '/users/validated', body: { ...USER, email: 'not-an-email' } }, status: 400 },
  },
  // GraphQL (issue 5): POST application/json.
  {
    name: 'gql-hello',
    label: 'GraphQL `{ hello }`: POST /graphql',
    request: { method: 'POST', path: '/graphql', headers: GQL_HEADERS, body: { query: '{ hello }' } },
    expect: { status: 200, json: { data: { hello: 'world' } } },
  },
  {
    name: 'gql-user',
    label: 'GraphQL `{ user(id: "1") { id name } }`: POST /graphql',
    request: { method: 'POST', path: '/graphql', headers: GQL_HEADERS, body: { query: '{ user(id: "1") { id name } }' } },
    expect: { status: 200, json: { data: { user: { id: '1', name: 'User 1' } } } },
  },
  {
    name: 'gql-vars',
    label: 'GraphQL query with variables, user → 3 friends → 1 friend each (3 levels): POST /graphql',
    request: { method: 'POST', path: '/graphql', headers: GQL_HEADERS, body: { query: GQL_VARS_QUERY, variables: { id: '42', first: 3 } } },
    expect: {
      status: 200,
      json: { data: { user: { id: '42', name: 'User 42', email: 'user42@example.com', friends: [friend('42.1'), friend('42.2'), friend('42.3')] } } },
    },
  },
  {
    name: 'gql-mutation',
    label: 'GraphQL mutation with an input object in variables: POST /graphql',
    request: { method: 'POST', path: '/graphql', headers: GQL_HEADERS, body: { query: GQL_MUTATION, variables: { input: GQL_INPUT } } },
    expect: { status: 200, json: { data: { createUser: { id: 'new-36-2', name: 'Ada Lovelace', email: 'ada@example.com' } } } },
  },
];
