import { GraphQLEnumType, GraphQLError, GraphQLInputObjectType, GraphQLObjectType, GraphQLScalarType, GraphQLSchema, GraphQLString, Kind } from 'graphql';
import { gql, serve, type Served } from './helpers.js';

const LEAK = 'pg: column "born_at" of relation "authors" is a timestamptz';

/** A scalar whose code throws an internal TypeError on bad input, the way careless scalars do. */
const DateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize(value) {
    if (!(value instanceof Date)) throw new TypeError(`${LEAK} (serialize)`);
    return value.toISOString().slice(0, 10);
  },
  parseValue(value) {
    if (value === 'strict') throw new GraphQLError('Dates look like 2024-01-31.');
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new TypeError(`${LEAK} (parseValue)`);
    return new Date(value);
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING || !/^\d{4}-\d{2}-\d{2}$/.test(ast.value)) throw new TypeError(`${LEAK} (parseLiteral)`);
    return new Date(ast.value);
  },
});

const Genre = new GraphQLEnumType({ name: 'Genre', values: { FICTION: {}, HISTORY: {} } });
const Filter = new GraphQLInputObjectType({ name: 'Filter', fields: { genre: { type: Genre }, author: { type: GraphQLString } } });

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      hello: { type: GraphQLString, args: { name: { type: GraphQLString } }, resolve: () => 'hi' },
      on: { type: DateScalar, args: { date: { type: DateScalar } }, resolve: (_root, args: { date?: Date }) => args.date },
      broken: { type: DateScalar, resolve: () => 'not a date' },
      books: { type: GraphQLString, args: { filter: { type: Filter } }, resolve: () => 'books' },
      secretAdminReport: { type: GraphQLString, resolve: () => 'secret' },
    },
  }),
});

describe('errors from a custom scalar', () => {
  let served: Served;
  const logged: Array<{ message: string; error: unknown }> = [];

  beforeAll(async () => {
    served = await serve({ schema, onLog: (message, error) => logged.push({ message, error }) });
  });
  afterAll(() => served.close());

  it("keep graphql's message for a bad literal but not the scalar's internal TypeError, which is logged", async () => {
    logged.length = 0;
    const res = await gql(served.endpoint, { query: '{ on(date: "yesterday") }' });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('born_at');
    expect(res.body.errors).toEqual([{ message: 'Expected value of type "Date", found "yesterday".', locations: [{ line: 1, column: 12 }] }]);
    expect(logged.map((l) => l.message)).toEqual([`GraphQL scalar error: ${LEAK} (parseLiteral)`]);
    expect(logged[0]!.error).toBeInstanceOf(TypeError);
  });

  it('keep the variable message for a bad variable, without the internal TypeError', async () => {
    const res = await gql(served.endpoint, { query: 'query ($d: Date) { on(date: $d) }', variables: { d: 'soon' } });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('born_at');
    expect(res.body.errors).toEqual([{ message: 'Variable "$d" got invalid value "soon"; Expected type "Date".', locations: [{ line: 1, column: 8 }] }]);
  });

  it('mask a TypeError from serialize as "Internal server error"', async () => {
    const res = await gql(served.endpoint, { query: '{ broken }' });
    expect(res.text).not.toContain('born_at');
    expect(res.body.errors[0]).toMatchObject({ message: 'Internal server error', path: ['broken'], extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } });
  });

  it('keep a GraphQLError a scalar throws on purpose, and good values still work', async () => {
    const res = await gql(served.endpoint, { query: 'query ($d: Date) { on(date: $d) }', variables: { d: 'strict' } });
    expect(res.body.errors[0].message).toBe('Variable "$d" got invalid value "strict"; Dates look like 2024-01-31.');
    const ok = await gql(served.endpoint, { query: '{ on(date: "2024-01-31") }' });
    expect(ok.body).toEqual({ data: { on: '2024-01-31' } });
  });

  it('are shown with maskErrors: false', async () => {
    const open = await serve({ schema, maskErrors: false, onLog: () => undefined });
    try {
      const res = await gql(open.endpoint, { query: '{ on(date: "yesterday") }' });
      expect(res.body.errors[0].message).toBe(`Expected value of type "Date", found "yesterday"; ${LEAK} (parseLiteral)`);
    } finally {
      await open.close();
    }
  });
});

describe('"Did you mean" suggestions', () => {
  const cases: Array<[string, { query: string; variables?: Record<string, unknown> }, string]> = [
    ['a misspelt field', { query: '{ secretAdminRepor }' }, 'Cannot query field "secretAdminRepor" on type "Query".'],
    ['a misspelt argument', { query: '{ hello(nme: "x") }' }, 'Unknown argument "nme" on field "Query.hello".'],
    ['a misspelt input field', { query: '{ books(filter: { autor: "x" }) }' }, 'Field "autor" is not defined by type "Filter".'],
    ['a misspelt enum value in a variable', { query: 'query ($f: Filter) { books(filter: $f) }', variables: { f: { genre: 'FICTON' } } }, 'Variable "$f" got invalid value "FICTON" at "f.genre"; Value "FICTON" does not exist in "Genre" enum.'],
    ['a misspelt type', { query: 'query ($f: Filtr) { books(filter: $f) }' }, 'Unknown type "Filtr".'],
  ];

  let hidden: Served;
  let open: Served;

  beforeAll(async () => {
    hidden = await serve({ schema, introspection: false });
    open = await serve({ schema });
  });
  afterAll(() => Promise.all([hidden.close(), open.close()]));

  it.each(cases)('are dropped for %s when introspection is off', async (_name, payload, message) => {
    const res = await gql(hidden.endpoint, payload);
    expect(res.body.errors.map((e: { message: string }) => e.message)).toContain(message);
    expect(res.text).not.toMatch(/Did you mean/);
  });

  it.each(cases)('are kept for %s when introspection is on', async (_name, payload, message) => {
    const res = await gql(open.endpoint, payload);
    const first = (res.body.errors as Array<{ message: string }>).find((e) => e.message.startsWith(message.slice(0, -1)));
    expect(first?.message).toMatch(/ Did you mean .+\?$/);
  });
});
