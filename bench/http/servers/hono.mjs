// Hono on @hono/node-server, default router (SmartRouter).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { announce, HELLO } from './ready.mjs';

const app = new Hono();
app.get('/json', (c) => c.json(HELLO));
app.get('/users/:id', (c) => c.json({ id: c.req.param('id') }));
const mw1 = async (_c, next) => {
  await next();
};
const mw2 = async (_c, next) => {
  await next();
};
const mw3 = async (_c, next) => {
  await next();
};
app.get('/mw/json', mw1, mw2, mw3, (c) => c.json(HELLO));

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port, ['static', 'param', 'mw3']));
