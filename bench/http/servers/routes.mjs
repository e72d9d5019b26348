// The core routes (issue 2: static, :param, 3 middleware) of fw and Fastify, shared by the plain
// servers and their traced twins (tracing suite), so both serve exactly the same work.
import { HELLO } from './ready.mjs';

/** The scenarios the core routes serve. */
export const CORE_SCENARIOS = ['static', 'param', 'mw3'];

/** fw: `/json`, `/users/:id`, and `/mw/json` behind 3 route middleware, each `await next()`. */
export function fwCoreRoutes(app) {
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
  return app;
}

/**
 * Fastify: the same routes, async handlers returning the object; the 3 middleware are async
 * onRequest hooks on the route (Fastify's per-route middleware).
 */
export function fastifyCoreRoutes(app) {
  app.get('/json', async () => HELLO);
  app.get('/users/:id', async (req) => ({ id: req.params.id }));
  app.get('/mw/json', { onRequest: [async () => {}, async () => {}, async () => {}] }, async () => HELLO);
  return app;
}
