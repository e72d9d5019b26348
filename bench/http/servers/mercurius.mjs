// GraphQL suite (issue 5): Fastify + Mercurius, JIT off (Mercurius' default, `jit: 0`).
import { serveMercurius } from './mercurius-app.mjs';

await serveMercurius({ jit: 0 });
