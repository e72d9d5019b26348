// GraphQL suite (issue 5), fw: createApp({ protocols: { graphql } }) with the shared schema,
// default settings (graphql-js executes every request, document cache on, limits on, playground
// on). Its peer is Mercurius with `jit: 0`; fw-graphql-jit.mjs is the compiled twin.
import { createApp } from '@fw/app';
import { GRAPHQL_SCENARIOS, schema, rootValue } from './graphql-schema.mjs';
import { announce } from './ready.mjs';

const app = createApp({ protocols: { graphql: { schema, rootValue } } });
const { port } = await app.listen(0, '127.0.0.1');
announce(port, GRAPHQL_SCENARIOS);
