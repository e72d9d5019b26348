// Fastify with its default settings.
import Fastify from 'fastify';
import { announce } from './ready.mjs';
import { CORE_SCENARIOS, fastifyCoreRoutes } from './routes.mjs';

const app = fastifyCoreRoutes(Fastify());
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port, CORE_SCENARIOS);
