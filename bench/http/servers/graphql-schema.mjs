// GraphQL suite (issue 5): the one schema and root value every GraphQL server serves (fw, the bare
// graphql-http handler, Mercurius with and without JIT, GraphQL Yoga).
import { buildSchema } from 'graphql';

export const schema = buildSchema(`
  type Query {
    hello: String!
    user(id: ID!): User
  }
  type Mutation {
    createUser(input: CreateUserInput!): User!
  }
  input CreateUserInput {
    name: String!
    email: String!
    age: Int
    tags: [String!]
  }
  type User {
    id: ID!
    name: String!
    email: String!
    friends(first: Int = 2): [User!]!
  }
`);

function user(id, name = `User ${id}`, email = `user${id}@example.com`) {
  return {
    id,
    name,
    email,
    friends: ({ first }) => Array.from({ length: first }, (_, i) => user(`${id}.${i + 1}`)),
  };
}

/**
 * Resolvers as root value functions, called with (args, context, info). The mutation keeps no
 * state (its id is derived from the input), so a long run grows nothing.
 */
export const rootValue = {
  hello: () => 'world',
  user: ({ id }) => user(id),
  createUser: ({ input }) => user(`new-${input.age ?? 0}-${input.tags?.length ?? 0}`, input.name, input.email),
};

/**
 * The same root value as a resolver map, for servers whose executor does not call root value
 * functions: graphql-jit (Mercurius with `jit`) reads a function-valued field as the value itself
 * ("String cannot represent value: [function hello]"), so every function becomes a field resolver.
 */
export const resolvers = {
  Query: {
    hello: (_root, args, context, info) => rootValue.hello(args, context, info),
    user: (_root, args, context, info) => rootValue.user(args, context, info),
  },
  Mutation: {
    createUser: (_root, args, context, info) => rootValue.createUser(args, context, info),
  },
  User: {
    friends: (parent, args, context, info) => parent.friends(args, context, info),
  },
};

/** The GraphQL scenarios every GraphQL server of the suite serves (see http/scenarios.mjs). */
export const GRAPHQL_SCENARIOS = ['gql-hello', 'gql-user', 'gql-vars', 'gql-mutation'];
