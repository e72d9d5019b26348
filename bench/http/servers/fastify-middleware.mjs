// Middleware suite (issue 3), Fastify: the bare static route, and the same route in an
// encapsulated plugin with @fastify/cors + @fastify/rate-limit (their hooks apply to that
// plugin's routes only), default settings but a limit no benchmark reaches.
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import { announce, HELLO, NO_LIMIT } from './ready.mjs';

const app = Fastify();
app.get('/json', async () => HELLO);
app.register(
  async (child) => {
    await child.register(cors);
    await child.register(rateLimit, { max: NO_LIMIT });
    child.get('/json', async () => HELLO);
  },
  { prefix: '/cors' },
);

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port, ['static', 'cors-rl']);
