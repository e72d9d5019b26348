// GraphQL suite (issue 5): GraphQL Yoga 5 on node:http (`createServer(yoga)`, as its docs show) with
// its default settings (parse + validate cache on, CORS on, GraphiQL on, masked errors). Yoga has
// no root value option; the one-line envelop plugin below sets it on the arguments `execute` gets
// (an `onExecute` hook's `args` are what envelop hands to `execute`).
import { createServer } from 'node:http';
import { createYoga } from 'graphql-yoga';
import { GRAPHQL_SCENARIOS, schema, rootValue } from './graphql-schema.mjs';
import { announce } from './ready.mjs';

const yoga = createYoga({
  schema,
  plugins: [{ onExecute: ({ args }) => void (args.rootValue = rootValue) }],
});
const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => announce(server.address().port, GRAPHQL_SCENARIOS));
