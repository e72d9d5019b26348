import { gql, schema, serve, type Served } from './helpers.js';

const rootValue = {
  hello: () => 'hi',
  node: () => ({ value: 1, child: () => ({ value: 2, child: null }) }),
};

const repeat = (n: number, text: string | ((i: number) => string)): string =>
  Array.from({ length: n }, (_, i) => (typeof text === 'string' ? text : text(i))).join(' ');

const TOO_MANY = 'The document has more than 2000 selections (fields, fragment spreads and inline fragments, a fragment counted again wherever it is spread); the maximum is 2000.';
const TOO_MANY_PAIRS = 'The document has more than 5000 pairs of selections with the same name at the same place for validation to compare; the maximum is 5000.';

describe('the selection limits, with the default values', () => {
  let served: Served;

  beforeAll(async () => {
    served = await serve({ schema, rootValue });
  });
  afterAll(() => served.close());

  it('refuses a field repeated thousands of times with 400 naming maxSelections, before validation', async () => {
    // 7,000 repeats fit under the size and token limits; validating them used to take seconds.
    const res = await gql(served.endpoint, { query: `{ node { child { ${repeat(7000, 'value')} } } }` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ message: TOO_MANY, extensions: { code: 'BAD_REQUEST', status: 400, limit: 'maxSelections' } }] });
  });

  it('counts the selections inside fragment definitions, used or not', async () => {
    const unused = await gql(served.endpoint, { query: `{ hello } fragment F on Node { ${repeat(2000, (i) => `...G${i % 50}`)} }` });
    expect(unused.status).toBe(400);
    expect(unused.body.errors[0]).toMatchObject({ message: TOO_MANY, extensions: { limit: 'maxSelections' } });
  });

  it('counts a fragment again at every place it is spread', async () => {
    // 48 selections in the text, 208 once F is counted under each of the 20 roots.
    const query = `{ ${repeat(20, (i) => `n${i}: node { ...F }`)} } fragment F on Node { value __typename child { value __typename child { value __typename } } }`;
    const strict = await serve({ schema, rootValue, limits: { maxSelections: 200 } });
    const loose = await serve({ schema, rootValue, limits: { maxSelections: 208 } });
    try {
      const res = await gql(strict.endpoint, { query });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.limit).toBe('maxSelections');
      expect((await gql(loose.endpoint, { query })).status).toBe(200);
    } finally {
      await Promise.all([strict.close(), loose.close()]);
    }
  });

  it('refuses one field selected 101 times at one place (5050 pairs to compare) naming maxFieldPairs', async () => {
    const res = await gql(served.endpoint, { query: `{ node { ${repeat(101, 'value')} } }` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ message: TOO_MANY_PAIRS, extensions: { code: 'BAD_REQUEST', status: 400, limit: 'maxFieldPairs' } });
    const atLimit = await gql(served.endpoint, { query: `{ node { ${repeat(100, 'value')} } }` });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toEqual({ data: { node: { value: 1 } } });
  });

  it('counts repeats through inline fragments, in repeated sub-selections and across fragment spreads', async () => {
    const inline = await gql(served.endpoint, { query: `{ node { ${repeat(101, '... on Node { value }')} } }` });
    expect(inline.body.errors[0].extensions.limit).toBe('maxFieldPairs');
    // 71 `child { value }`: 2485 pairs of child and 2485 of child.value; 72 make 5112.
    expect((await gql(served.endpoint, { query: `{ node { ${repeat(71, 'child { value }')} } }` })).status).toBe(200);
    const sub = await gql(served.endpoint, { query: `{ node { ${repeat(72, 'child { value }')} } }` });
    expect(sub.body.errors[0].extensions.limit).toBe('maxFieldPairs');
    // 101 distinct fragments spread at one place: their `value` fields are compared pairwise.
    const spreads = await gql(served.endpoint, {
      query: `{ node { ${repeat(101, (i) => `...F${i}`)} } } ${repeat(101, (i) => `fragment F${i} on Node { value }`)}`,
    });
    expect(spreads.body.errors[0].extensions.limit).toBe('maxFieldPairs');
  });

  it('weighs a pair by the arguments validation prints to compare it', async () => {
    const wide = await serve({ schema, rootValue, limits: { maxRootFields: false } });
    try {
      // 23 `hello(name: "a")`: 253 pairs weighing 19 (the pair, and 8 + 1 for the argument on each side) = 4807.
      const under = await gql(wide.endpoint, { query: `{ ${repeat(23, 'hello(name: "a")')} }` });
      expect(under.status).toBe(200);
      expect(under.body).toEqual({ data: { hello: 'hi' } });
      // 24 make 276 pairs, 5244 with their arguments.
      const over = await gql(wide.endpoint, { query: `{ ${repeat(24, 'hello(name: "a")')} }` });
      expect(over.status).toBe(400);
      expect(over.body.errors[0].extensions.limit).toBe('maxFieldPairs');
    } finally {
      await wide.close();
    }
  });

  it('lets the same fragment spread many times at one place through: validation compares it once', async () => {
    const res = await gql(served.endpoint, { query: `{ node { ${repeat(200, '...F')} } } fragment F on Node { value }` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { node: { value: 1 } } });
  });

  it('answers an ordinary union-style query that repeats fields in a few inline fragments', async () => {
    const res = await gql(served.endpoint, { query: `{ node { ${repeat(20, '... on Node { value child { value } }')} } }` });
    expect(res.status).toBe(200);
    expect(res.body.data.node.child).toEqual({ value: 2 });
  });
});

describe('the selection limits, configured', () => {
  it('apply their own values, and false turns them off', async () => {
    const strict = await serve({ schema, rootValue, limits: { maxSelections: 4, maxFieldPairs: 1 } });
    const off = await serve({ schema, rootValue, limits: { maxSelections: false, maxFieldPairs: false, maxTokens: false, maxDocumentSize: false } });
    try {
      expect((await gql(strict.endpoint, { query: '{ node { value } hello __typename }' })).status).toBe(200);
      const tooMany = await gql(strict.endpoint, { query: '{ node { value } hello __typename whoami }' });
      expect(tooMany.body.errors[0].message).toBe('The document has more than 4 selections (fields, fragment spreads and inline fragments, a fragment counted again wherever it is spread); the maximum is 4.');
      expect((await gql(strict.endpoint, { query: '{ node { value value } }' })).status).toBe(200);
      const pairs = await gql(strict.endpoint, { query: '{ node { value value value } }' }, { accept: 'application/json' });
      expect(pairs.status).toBe(400);
      expect(pairs.body.errors[0].message).toMatch(/more than 1 pairs of selections/);
      const wide = await gql(off.endpoint, { query: `{ node { ${repeat(150, 'value')} } }` });
      expect(wide.status).toBe(200);
    } finally {
      await Promise.all([strict.close(), off.close()]);
    }
  });
});
