import { HTTPError } from '@fw/core';
import { GraphQLError } from 'graphql';
import { gql, schema, serve, type Served } from './helpers.js';

class DatabaseError extends Error {
  override name = 'DatabaseError';
}

const rootValue = {
  hello: () => 'hi',
  boom: () => {
    throw new DatabaseError('connection refused to 10.0.0.5:5432');
  },
  fail: ({ status, message }: { status: number; message?: string }) => {
    if (status === 422) throw new HTTPError(422, message, { fields: ['title'] });
    if (status === 0) throw new GraphQLError('Custom failure', { extensions: { code: 'CUSTOM', retry: true } });
    if (status === 1) return Promise.reject(new HTTPError(500, 'hidden', undefined, { expose: false }));
    throw new HTTPError(status, message);
  },
};

describe('resolver errors, masked (the default)', () => {
  let served: Served;
  const logged: Array<{ message: string; error: unknown }> = [];

  beforeAll(async () => {
    served = await serve({ schema, rootValue, onLog: (message, error) => logged.push({ message, error }) });
  });
  afterAll(() => served.close());

  it.each([
    [400, 'BAD_REQUEST'],
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [429, 'TOO_MANY_REQUESTS'],
    [503, 'SERVICE_UNAVAILABLE'],
  ])('turns an HTTPError %i into a GraphQL error with extensions { code: %s, status }', async (status, code) => {
    const res = await gql(served.endpoint, { query: `{ hello fail(status: ${status}, message: "nope ${status}") }` });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ hello: 'hi', fail: null });
    expect(res.body.errors).toEqual([{ message: `nope ${status}`, locations: [{ line: 1, column: 9 }], path: ['fail'], extensions: { code, status } }]);
  });

  it('keeps the details of an HTTPError in extensions', async () => {
    const res = await gql(served.endpoint, { query: '{ fail(status: 422, message: "Invalid todo") }' });
    expect(res.body.errors[0].extensions).toEqual({ code: 'UNPROCESSABLE_ENTITY', status: 422, details: { fields: ['title'] } });
  });

  it('masks an unexpected error as "Internal server error" and logs it with its stack', async () => {
    logged.length = 0;
    const res = await gql(served.endpoint, { query: '{ hello boom }' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ hello: 'hi', boom: null });
    expect(res.body.errors).toEqual([
      { message: 'Internal server error', locations: [{ line: 1, column: 9 }], path: ['boom'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } },
    ]);
    expect(res.text).not.toContain('10.0.0.5');
    expect(logged).toHaveLength(1);
    expect(logged[0]!.message).toBe('GraphQL error at boom: connection refused to 10.0.0.5:5432');
    expect(logged[0]!.error).toBeInstanceOf(DatabaseError);
    expect((logged[0]!.error as Error).stack).toContain('boom');
  });

  it('masks an HTTPError that is not exposed', async () => {
    const res = await gql(served.endpoint, { query: '{ fail(status: 1) }' });
    expect(res.body.errors[0]).toMatchObject({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } });
  });

  it('passes a GraphQLError thrown on purpose through with its extensions', async () => {
    logged.length = 0;
    const res = await gql(served.endpoint, { query: '{ fail(status: 0) }' });
    expect(res.body.errors[0]).toMatchObject({ message: 'Custom failure', path: ['fail'], extensions: { code: 'CUSTOM', retry: true } });
    expect(logged).toHaveLength(0);
  });

  it('does not log 4xx errors', async () => {
    logged.length = 0;
    await gql(served.endpoint, { query: '{ fail(status: 404) }' });
    expect(logged).toHaveLength(0);
  });
});

describe('resolver errors with maskErrors: false', () => {
  let served: Served;
  const logged: string[] = [];

  beforeAll(async () => {
    served = await serve({ schema, rootValue, maskErrors: false, onLog: (message) => logged.push(message) });
  });
  afterAll(() => served.close());

  it('shows the message of an unexpected error, and still logs it', async () => {
    const res = await gql(served.endpoint, { query: '{ boom }' });
    expect(res.body.errors[0]).toMatchObject({ message: 'connection refused to 10.0.0.5:5432', extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } });
    expect(logged).toEqual(['GraphQL error at boom: connection refused to 10.0.0.5:5432']);
  });
});

describe('introspection: false', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue, introspection: false });
  });
  afterAll(() => served.close());

  it('rejects __schema with a validation error', async () => {
    const res = await gql(served.endpoint, { query: '{ __schema { types { name } } }' });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].message).toBe('GraphQL introspection has been disabled, but the requested query contained the field "__schema".');
  });

  it('rejects __type, also when hidden in a fragment, and answers 200 under application/json as the spec says', async () => {
    const res = await gql(served.endpoint, { query: '{ ...F } fragment F on Query { __type(name: "User") { name } }' }, { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.body.errors[0].message).toMatch(/introspection has been disabled.*"__type"/);
  });

  it('still answers __typename and ordinary queries', async () => {
    const res = await gql(served.endpoint, { query: '{ __typename hello }' });
    expect(res.body).toEqual({ data: { __typename: 'Query', hello: 'hi' } });
  });
});
