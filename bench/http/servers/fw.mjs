// fw: the application object users get from @fw/app, default settings.
import { createApp } from '@fw/app';
import { announce, HELLO } from './ready.mjs';

const app = createApp();
app.get('/json', (ctx) => ctx.json(HELLO));
app.get('/users/:id', (ctx) => ctx.json({ id: ctx.params.id }));
const mw1 = async (_ctx, next) => {
  await next();
};
const mw2 = async (_ctx, next) => {
  await next();
};
const mw3 = async (_ctx, next) => {
  await next();
};
app.get('/mw/json', mw1, mw2, mw3, (ctx) => ctx.json(HELLO));

const { port } = await app.listen(0, '127.0.0.1');
announce(port, ['static', 'param', 'mw3']);
