import { HTTPError } from '@fw/core';
import type { GraphQLScalarType} from 'graphql';
import { buildSchema, GraphQLError, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { gql, serve, type Served } from './helpers.js';

// With `executor: 'jit'`, a document runs through graphql-js on its first request and compiled by
// graphql-jit from its second on (when graphql-jit answers it as graphql-js does). Each test sends a
// document several times and wants the same answer every time; `engine` tells which executor ran:
// graphql-jit runs against a copy of the schema (with graphql-js's default resolution on every
// field), so `info.schema` is not the served one.

const schema: GraphQLSchema = buildSchema(/* GraphQL */ `
  directive @audit(reason: String) on FIELD
  scalar Date
  interface Named {
    name: String!
  }
  type Cat implements Named {
    name: String!
    lives: Int!
  }
  type Dog implements Named {
    name: String!
    good: Boolean!
  }
  union Pet = Cat | Dog
  type Query {
    engine: String
    hello(name: String, on: Date): String
    user(id: ID!): User
    pets: [Pet!]!
    named: [Named!]!
    today: Date
    broken: Date
    missing: String!
    fail(status: Int!): String
  }
  type Mutation {
    createUser(input: CreateUserInput!): User!
  }
  input CreateUserInput {
    name: String!
    tags: [String!]
  }
  type User {
    id: ID
    name: String
    friends(first: Int = 2): [User!]!
    friend(n: Int = 1): User
    missing: String!
  }
`);

/** A source object whose field is a method, as graphql-js's default resolver calls it. */
class UserRecord {
  constructor(
    readonly id: string,
    readonly name: string,
  ) {}
  friends({ first }: { first: number }): UserRecord[] {
    return Array.from({ length: first }, (_, i) => this.friend({ n: i + 1 }));
  }
  friend({ n }: { n: number }): UserRecord {
    return new UserRecord(`${this.id}.${n}`, `Friend ${n}`);
  }
}

const engines: string[] = [];
const rootValue = {
  engine: (_args: unknown, _ctx: unknown, info: GraphQLResolveInfo) => {
    const engine = info.schema === schema ? 'graphql-js' : 'graphql-jit';
    engines.push(engine);
    return engine;
  },
  hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}`,
  user: ({ id }: { id: string }) => new UserRecord(id, `User ${id}`),
  pets: () => [
    { __typename: 'Cat', name: 'Tom', lives: 9 },
    { __typename: 'Dog', name: 'Rex', good: true },
  ],
  named: async () => [{ kind: 'cat', name: 'Tom', lives: 9 }],
  today: () => new Date('2024-01-31T00:00:00Z'),
  broken: () => 'not a date',
  missing: () => null,
  fail: ({ status }: { status: number }) => {
    throw new HTTPError(status, `failed with ${status}`);
  },
  createUser: ({ input }: { input: { name: string; tags?: string[] } }) => new UserRecord(`new-${input.tags?.length ?? 0}`, input.name),
};

// Async resolveType: graphql-jit resolves abstract types synchronously only.
(schema.getType('Named') as unknown as { resolveType: (value: { kind: string }) => Promise<string> }).resolveType = async (value) =>
  value.kind === 'cat' ? 'Cat' : 'Dog';
const date = schema.getType('Date') as GraphQLScalarType;
date.serialize = (value: unknown) => {
  if (!(value instanceof Date)) throw new TypeError(`pg: column "born_at" is not a date (${String(value)})`);
  return value.toISOString().slice(0, 10);
};
date.parseValue = (value: unknown) => {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new GraphQLError('Dates look like 2024-01-31.');
  return new Date(value);
};

const logged: string[] = [];
let served: Served;

beforeAll(async () => {
  served = await serve({ schema, rootValue, executor: 'jit', onLog: (message) => void logged.push(message) });
});

afterAll(() => served.close());

beforeEach(() => {
  engines.length = 0;
  logged.length = 0;
});

/** Sends the same request `times` times; returns every status and body text. */
async function repeat(payload: Parameters<typeof gql>[1], times = 3, options: Parameters<typeof gql>[2] = {}): Promise<Array<{ status: number; text: string }>> {
  const out: Array<{ status: number; text: string }> = [];
  for (let i = 0; i < times; i++) {
    const res = await gql(served.endpoint, payload, options);
    out.push({ status: res.status, text: res.text });
  }
  return out;
}

function expectSame(answers: Array<{ status: number; text: string }>, expected: { status: number; body: unknown }): void {
  for (const answer of answers) {
    expect(answer.status).toBe(expected.status);
    expect(JSON.parse(answer.text)).toEqual(expected.body);
  }
  // Byte for byte, but for which executor ran.
  expect(new Set(answers.map((a) => a.text.replace(/"graphql-j(s|it)"/g, '"engine"'))).size).toBe(1);
}

describe('compiled execution (graphql-jit)', () => {
  it('compiles a document on its second request', async () => {
    const answers = await repeat({ query: '{ engine }' }, 3);
    expect(engines).toEqual(['graphql-js', 'graphql-jit', 'graphql-jit']);
    expect(answers.map((a) => JSON.parse(a.text).data.engine)).toEqual(['graphql-js', 'graphql-jit', 'graphql-jit']);
  });

  it('compiles without assigning globalThis.Function (graphql-jit gets a Function of its own)', async () => {
    const original = Object.getOwnPropertyDescriptor(globalThis, 'Function')!;
    const assigned: unknown[] = [];
    Object.defineProperty(globalThis, 'Function', { configurable: true, get: () => original.value as unknown, set: (value: unknown) => void assigned.push(value) });
    try {
      await repeat({ query: '{ engine hello(name: "Function") }' }, 3);
    } finally {
      Object.defineProperty(globalThis, 'Function', original);
    }
    expect(engines).toEqual(['graphql-js', 'graphql-jit', 'graphql-jit']);
    expect(assigned).toEqual([]);
  });

  it('calls root value functions with (args, context, info), as graphql-js does', async () => {
    expectSame(await repeat({ query: '{ a: hello b: hello(name: "fw") engine }' }, 3), {
      status: 200,
      body: { data: { a: 'Hello world', b: 'Hello fw', engine: expect.any(String) } },
    });
    expect(engines.at(-1)).toBe('graphql-jit');
  });

  it('calls methods of source objects, nested, with their arguments', async () => {
    const query = 'query ($id: ID!, $n: Int!) { engine user(id: $id) { id name friend(n: $n) { id friend { name } } } }';
    const answers = await repeat({ query, variables: { id: '7', n: 2 } }, 3);
    expect(engines.at(-1)).toBe('graphql-jit');
    expectSame(answers, {
      status: 200,
      body: { data: { engine: expect.any(String), user: { id: '7', name: 'User 7', friend: { id: '7.2', friend: { name: 'Friend 1' } } } } },
    });
  });

  it('writes the compiled result byte for byte as JSON.stringify does: escapes, nulls, aliases, fragments', async () => {
    const name = 'q"\\ \u0000\u001f \u2028\u2029 \ud800 é 😀 </script>';
    const query =
      'query ($name: String, $id: ID!) { a: hello(name: $name) engine ...F user(id: $id) { ... on User { id } name friend(n: 0) { id } } missingUser: user(id: "none") { id } } fragment F on Query { b: hello }';
    const answers = await repeat({ query, variables: { name, id: '3' } }, 3);
    expect(engines.at(-1)).toBe('graphql-jit');
    expectSame(answers, {
      status: 200,
      body: { data: { a: `Hello ${name}`, engine: expect.any(String), b: 'Hello world', user: { id: '3', name: 'User 3', friend: { id: '3.0' } }, missingUser: { id: 'none' } } },
    });
    expect(answers[2]!.text).toBe(JSON.stringify(JSON.parse(answers[2]!.text)));
  });

  it('runs a mutation with an input object in variables', async () => {
    const query = 'mutation ($input: CreateUserInput!) { engine: createUser(input: $input) { id name } }';
    expectSame(await repeat({ query, variables: { input: { name: 'Ada', tags: ['a', 'b'] } } }, 3), {
      status: 200,
      body: { data: { engine: { id: 'new-2', name: 'Ada' } } },
    });
  });

  it('ignores custom directives on fields, as graphql-js does', async () => {
    expectSame(await repeat({ query: '{ hello @audit(reason: "x") engine @audit }' }, 3), {
      status: 200,
      body: { data: { hello: 'Hello world', engine: expect.any(String) } },
    });
    expect(engines.at(-1)).toBe('graphql-jit');
  });

  it('keeps @skip and @include with variables', async () => {
    const query = 'query ($yes: Boolean!) { hello @include(if: $yes) engine @skip(if: $yes) }';
    expectSame(await repeat({ query, variables: { yes: true } }, 3), { status: 200, body: { data: { hello: 'Hello world' } } });
    expectSame(await repeat({ query, variables: { yes: false } }, 3), { status: 200, body: { data: { engine: expect.any(String) } } });
  });

  it("answers variables that do not coerce with graphql-js's message, the scalar's own included", async () => {
    const query = 'query ($d: Date) { hello(on: $d) engine }';
    expectSame(await repeat({ query, variables: { d: '2024-01-31' } }, 2), { status: 200, body: { data: { hello: 'Hello world', engine: expect.any(String) } } });
    expect(engines.at(-1)).toBe('graphql-jit');
    const bad = await repeat({ query, variables: { d: 'strict' } }, 3);
    expectSame(bad, { status: 400, body: { errors: [expect.objectContaining({ message: 'Variable "$d" got invalid value "strict"; Dates look like 2024-01-31.' })] } });
    const missing = await repeat({ query: 'query ($n: String!) { hello(name: $n) engine }' }, 3);
    expectSame(missing, { status: 400, body: { errors: [expect.objectContaining({ message: 'Variable "$n" of required type "String!" was not provided.' })] } });
  });

  it('keeps the locations and extensions of resolver errors', async () => {
    expectSame(await repeat({ query: '{ engine fail(status: 404) }' }, 3), {
      status: 200,
      body: {
        data: { engine: expect.any(String), fail: null },
        errors: [{ message: 'failed with 404', locations: [{ line: 1, column: 10 }], path: ['fail'], extensions: { code: 'NOT_FOUND', status: 404 } }],
      },
    });
    expect(engines.at(-1)).toBe('graphql-jit');
  });

  it('masks and logs a null in a non-null field, as graphql-js does', async () => {
    const answers = await repeat({ query: '{ engine user(id: "1") { missing } }' }, 3);
    expectSame(answers, {
      status: 200,
      body: {
        data: { engine: expect.any(String), user: null },
        errors: [{ message: 'Internal server error', locations: [{ line: 1, column: 26 }], path: ['user', 'missing'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }],
      },
    });
    expect(engines.at(-1)).toBe('graphql-jit');
    expect(logged).toHaveLength(3);
    expect(logged.every((m) => m.includes('Cannot return null for non-nullable field User.missing.'))).toBe(true);
    // Alone at the root, it takes the whole data away.
    const alone = await repeat({ query: '{ missing }' }, 3);
    expectSame(alone, {
      status: 200,
      body: { data: null, errors: [{ message: 'Internal server error', locations: [{ line: 1, column: 3 }], path: ['missing'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] },
    });
  });
});

describe('the default executor', () => {
  it('is graphql-js, on every run', async () => {
    const plain = await serve({ schema, rootValue });
    try {
      for (let i = 0; i < 3; i++) expect((await gql(plain.endpoint, { query: '{ engine }' })).body).toEqual({ data: { engine: 'graphql-js' } });
    } finally {
      await plain.close();
    }
  });
});

describe('documents graphql-js keeps executing', () => {
  it('lists', async () => {
    expectSame(await repeat({ query: '{ engine user(id: "7") { friends(first: 1) { id } } }' }, 3), {
      status: 200,
      body: { data: { engine: 'graphql-js', user: { friends: [{ id: '7.1' }] } } },
    });
  });

  it('a non-null field beside other fields', async () => {
    expectSame(await repeat({ query: '{ engine missing }' }, 3), {
      status: 200,
      body: { data: null, errors: [{ message: 'Internal server error', locations: [{ line: 1, column: 10 }], path: ['missing'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }] },
    });
    expect(engines).toEqual(['graphql-js', 'graphql-js', 'graphql-js']);
  });

  it('union selections (type resolved by __typename)', async () => {
    expectSame(await repeat({ query: '{ engine pets { __typename ... on Cat { lives } ... on Dog { good } } }' }, 3), {
      status: 200,
      body: { data: { engine: 'graphql-js', pets: [{ __typename: 'Cat', lives: 9 }, { __typename: 'Dog', good: true }] } },
    });
  });

  it('interface selections with an async resolveType', async () => {
    expectSame(await repeat({ query: '{ engine named { name ... on Cat { lives } } }' }, 3), {
      status: 200,
      body: { data: { engine: 'graphql-js', named: [{ name: 'Tom', lives: 9 }] } },
    });
  });

  it("custom scalars in the result: the serializer's errors stay masked", async () => {
    expectSame(await repeat({ query: '{ engine today broken }' }, 3), {
      status: 200,
      body: {
        data: { engine: 'graphql-js', today: '2024-01-31', broken: null },
        errors: [{ message: 'Internal server error', locations: [{ line: 1, column: 16 }], path: ['broken'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } }],
      },
    });
  });

  it('introspection', async () => {
    const answers = await repeat({ query: '{ engine __type(name: "User") { name fields { name } } }' }, 3);
    expect(JSON.parse(answers[2]!.text).data).toEqual({ engine: 'graphql-js', __type: { name: 'User', fields: [{ name: 'id' }, { name: 'name' }, { name: 'friends' }, { name: 'friend' }, { name: 'missing' }] } });
  });
});
