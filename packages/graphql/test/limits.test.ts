import type { ValidationRule } from 'graphql';
import { chain, gql, nestedQuery, schema, serve, type Served } from './helpers.js';

const rootValue = {
  hello: () => 'hi',
  node: () => {
    const make = (n: number): unknown => ({ value: n, child: () => make(n + 1) });
    return make(1);
  },
};

/** A validation rule that counts how often the document is validated. */
function countingRule(): { rule: ValidationRule; count: () => number } {
  let runs = 0;
  const rule: ValidationRule = () => {
    runs += 1;
    return {};
  };
  return { rule, count: () => runs };
}

describe('the default limits', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue });
  });
  afterAll(() => served.close());

  it('allow a query at the maximum depth of 15', async () => {
    const res = await gql(served.endpoint, { query: nestedQuery(15) });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  it('refuse a query deeper than 15 with 400 and a clear error, whatever the client accepts', async () => {
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const res = await gql(served.endpoint, { query: nestedQuery(16) }, { accept });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [
          {
            message: 'The operation is too deep: depth 16 exceeds the maximum depth of 15.',
            extensions: { code: 'BAD_REQUEST', status: 400, limit: 'maxDepth' },
          },
        ],
      });
    }
  });

  it('count depth through fragments', async () => {
    // node (1) + A's two levels (3) + B's 13 levels = 16.
    const query = `query Deep { node { ...A } } fragment A on Node { child { child { ...B } } } fragment B on Node { ${chain(13)} }`;
    const res = await gql(served.endpoint, { query });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('Operation "Deep" is too deep: depth 16 exceeds the maximum depth of 15.');
  });

  it('refuse more than 30 aliases', async () => {
    const fields = (n: number): string => Array.from({ length: n }, (_, i) => `a${i}: value`).join(' ');
    expect((await gql(served.endpoint, { query: `{ node { ${fields(30)} } }` })).status).toBe(200);
    const res = await gql(served.endpoint, { query: `{ node { ${fields(31)} } }` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: 'The operation uses 31 aliases; the maximum is 30.', extensions: { limit: 'maxAliases' } });
  });

  it('refuse more than 20 root fields', async () => {
    const res = await gql(served.endpoint, { query: `{ ${'hello '.repeat(21)} }` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: 'The operation selects 21 root fields; the maximum is 20.', extensions: { limit: 'maxRootFields' } });
  });

  it('refuse a document over 64 KiB before parsing it', async () => {
    const res = await gql(served.endpoint, { query: `{ hello } # ${'x'.repeat(65_536)}` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: 'The query is too large: 65548 bytes exceeds the maximum of 65536 bytes.', extensions: { limit: 'maxDocumentSize' } });
  });

  it('answer 400, not 500, for nesting too deep for the parser', async () => {
    const res = await gql(served.endpoint, { query: `${'{ node '.repeat(5000)}${'}'.repeat(5000)}` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.limit).toBe('maxDepth');
  });
});

describe('limits set in the configuration', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue, limits: { maxDepth: 3, maxAliases: 1, maxRootFields: 2, maxDocumentSize: 200, maxTokens: 40 } });
  });
  afterAll(() => served.close());

  it('apply their own values', async () => {
    expect((await gql(served.endpoint, { query: nestedQuery(3) })).status).toBe(200);
    expect((await gql(served.endpoint, { query: nestedQuery(4) })).body.errors[0].message).toMatch(/depth 4 exceeds the maximum depth of 3/);
    expect((await gql(served.endpoint, { query: '{ a: hello b: hello }' })).body.errors[0].message).toMatch(/uses 2 aliases; the maximum is 1/);
    expect((await gql(served.endpoint, { query: '{ hello __typename ... on Query { hello } }' })).body.errors[0].message).toMatch(/selects 3 root fields; the maximum is 2/);
    expect((await gql(served.endpoint, { query: `{ hello(name: "${'é'.repeat(100)}") }` })).body.errors[0].message).toMatch(/\d+ bytes exceeds the maximum of 200 bytes/);
  });

  it('count tokens with the parser', async () => {
    const res = await gql(served.endpoint, { query: `{ ${'a '.repeat(45)}}` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: 'The query is too large: it has more than 40 tokens, the maximum.', extensions: { limit: 'maxTokens' } });
  });
});

describe('limits turned off', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue, limits: { maxDepth: false, maxAliases: false, maxRootFields: false } });
  });
  afterAll(() => served.close());

  it('let deep and wide queries through', async () => {
    const res = await gql(served.endpoint, { query: nestedQuery(40) });
    expect(res.status).toBe(200);
    const wide = await gql(served.endpoint, { query: `{ ${Array.from({ length: 50 }, (_, i) => `h${i}: hello`).join(' ')} }` });
    expect(wide.status).toBe(200);
    expect(Object.keys(wide.body.data)).toHaveLength(50);
  });
});

describe('the document cache', () => {
  it('parses and validates a repeated query once', async () => {
    const counter = countingRule();
    const served = await serve({ schema, rootValue, validationRules: [counter.rule] });
    try {
      for (let i = 0; i < 3; i++) expect((await gql(served.endpoint, { query: '{ hello }' })).body).toEqual({ data: { hello: 'hi' } });
      expect(counter.count()).toBe(1);
      // The key is the query text: variables and operation names do not make a new entry.
      await gql(served.endpoint, { query: 'query Q($n: String) { hello(name: $n) }', variables: { n: 'a' } });
      await gql(served.endpoint, { query: 'query Q($n: String) { hello(name: $n) }', variables: { n: 'b' }, operationName: 'Q' });
      expect(counter.count()).toBe(2);
      // GET and POST share the cache.
      await gql(served.endpoint, { query: '{ hello }' }, { method: 'GET' });
      expect(counter.count()).toBe(2);
    } finally {
      await served.close();
    }
  });

  it('does not cache documents that fail validation', async () => {
    const counter = countingRule();
    const served = await serve({ schema, rootValue, validationRules: [counter.rule] });
    try {
      await gql(served.endpoint, { query: '{ nope }' });
      await gql(served.endpoint, { query: '{ nope }' });
      expect(counter.count()).toBe(2);
    } finally {
      await served.close();
    }
  });

  it('is bounded: the least recently used document is evicted', async () => {
    const counter = countingRule();
    const served = await serve({ schema, rootValue, validationRules: [counter.rule], documentCache: { maxEntries: 2 } });
    try {
      await gql(served.endpoint, { query: '{ a: hello }' });
      await gql(served.endpoint, { query: '{ b: hello }' });
      await gql(served.endpoint, { query: '{ a: hello }' }); // a is now the most recent
      await gql(served.endpoint, { query: '{ c: hello }' }); // evicts b
      expect(counter.count()).toBe(3);
      await gql(served.endpoint, { query: '{ a: hello }' });
      expect(counter.count()).toBe(3);
      await gql(served.endpoint, { query: '{ b: hello }' });
      expect(counter.count()).toBe(4);
    } finally {
      await served.close();
    }
  });

  it('can be turned off', async () => {
    const counter = countingRule();
    const served = await serve({ schema, rootValue, validationRules: [counter.rule], documentCache: false });
    try {
      for (let i = 0; i < 3; i++) await gql(served.endpoint, { query: '{ hello }' });
      expect(counter.count()).toBe(3);
    } finally {
      await served.close();
    }
  });
});
