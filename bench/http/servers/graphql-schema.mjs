// GraphQL suite (issue 5): the one schema and root value both GraphQL servers serve.
import { buildSchema } from 'graphql';

export const schema = buildSchema(`
  type Query {
    hello: String!
    user(id: ID!): User
  }
  type User {
    id: ID!
    name: String!
    email: String!
    friends(first: Int = 2): [User!]!
  }
`);

function user(id) {
  return {
    id,
    name: `User ${id}`,
    email: `user${id}@example.com`,
    friends: ({ first }) => Array.from({ length: first }, (_, i) => user(`${id}.${i + 1}`)),
  };
}

/** Resolvers as root value functions, called with (args, context, info). */
export const rootValue = {
  hello: () => 'world',
  user: ({ id }) => user(id),
};
