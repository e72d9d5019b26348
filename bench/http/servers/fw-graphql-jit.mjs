// GraphQL suite (issue 5), fw with compiled execution: createApp({ protocols: { graphql } }) with the
// shared schema and `executor: 'jit'` (graphql-jit compiles a cached document on its second request,
// where it answers as graphql-js does), defaults otherwise. Its peer is Mercurius with `jit: 1`.
import { createApp } from '@fw/app';
import { GRAPHQL_SCENARIOS, schema, rootValue } from './graphql-schema.mjs';
import { announce } from './ready.mjs';

const app = createApp({ protocols: { graphql: { schema, rootValue, executor: 'jit' } } });
const { port } = await app.listen(0, '127.0.0.1');
announce(port, GRAPHQL_SCENARIOS);
