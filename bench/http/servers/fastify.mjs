// Fastify with its default settings. The 3 middleware are async onRequest hooks on the route
// (Fastify's per-route middleware; returning from an async hook continues the chain).
import Fastify from 'fastify';
import { announce, HELLO } from './ready.mjs';

const app = Fastify();
app.get('/json', async () => HELLO);
app.get('/users/:id', async (req) => ({ id: req.params.id }));
app.get('/mw/json', { onRequest: [async () => {}, async () => {}, async () => {}] }, async () => HELLO);

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port, ['static', 'param', 'mw3']);
