// GraphQL suite (issue 5): Fastify + Mercurius, JIT on (`jit: 1`: graphql-jit compiles a document on
// its second request; the warm-up makes every measured request run compiled code).
import { serveMercurius } from './mercurius-app.mjs';

await serveMercurius({ jit: 1 });
