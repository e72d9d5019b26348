// Koa with @koa/router, default settings.
import Router from '@koa/router';
import Koa from 'koa';
import { announce, HELLO } from './ready.mjs';

const app = new Koa();
const router = new Router();
router.get('/json', (ctx) => {
  ctx.body = HELLO;
});
router.get('/users/:id', (ctx) => {
  ctx.body = { id: ctx.params.id };
});
const mw1 = async (_ctx, next) => {
  await next();
};
const mw2 = async (_ctx, next) => {
  await next();
};
const mw3 = async (_ctx, next) => {
  await next();
};
router.get('/mw/json', mw1, mw2, mw3, (ctx) => {
  ctx.body = HELLO;
});
app.use(router.routes());

const server = app.listen(0, '127.0.0.1', () => announce(server.address().port, ['static', 'param', 'mw3']));
