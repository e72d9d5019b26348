// GraphQL suite (issue 5), the Fastify peer: Fastify 5 with the Mercurius plugin serving the shared
// schema and the shared root value's functions as a resolver map (`resolvers` in
// graphql-schema.mjs: graphql-jit does not call root value functions, so both Mercurius servers get
// field resolvers). Default settings otherwise: Mercurius' parse + validate cache (1,024 documents)
// on, GraphiQL off, Fastify's logger off. `jit` is the one setting the suite varies: 0 (Mercurius'
// default) never compiles; 1 compiles a document with graphql-jit on its second request.
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { GRAPHQL_SCENARIOS, resolvers, schema } from './graphql-schema.mjs';
import { announce } from './ready.mjs';

export async function serveMercurius({ jit }) {
  const app = Fastify();
  await app.register(mercurius, { schema, resolvers, jit });
  await app.listen({ port: 0, host: '127.0.0.1' });
  announce(app.server.address().port, GRAPHQL_SCENARIOS);
}
