import { ROUTE_SCHEMA, Router } from '@fw/core';
import { z } from 'zod';
import { failure, send, serve, type Served } from '../test/helpers.js';
import { createHandler } from './create-handler.js';

const CreateUser = z.object({
  name: z.string().min(1),
  age: z.coerce.number().int(),
  roles: z.array(z.enum(['admin', 'user'])).default(['user']),
});
const TeamParams = z.object({ teamId: z.coerce.number().int() });
const Notify = z.object({ notify: z.enum(['yes', 'no']).transform((v) => v === 'yes').default(false) });

describe('createHandler() spread into a route', () => {
  let server: Served;

  beforeAll(async () => {
    server = await serve((app) => {
      app.post(
        '/teams/:teamId/users',
        ...createHandler({ body: CreateUser, params: TeamParams, query: Notify }, (ctx) => {
          // Typed from the schemas' outputs: numbers, booleans and defaults, no casts.
          const nextYear: number = ctx.body.age + 1;
          const team: number = ctx.params.teamId;
          const notify: boolean = ctx.query.notify;
          ctx.json({ name: ctx.body.name, nextYear, team, notify, roles: ctx.body.roles }, 201);
        }),
      );
      app.group('/api/v1', (api) => {
        api.put(
          '/teams/:teamId',
          ...createHandler({ params: TeamParams }, async (ctx, next) => {
            ctx.state.team = ctx.params.teamId * 10;
            await next();
          }),
          (ctx) => ctx.json({ team: ctx.state.team, raw: ctx.params.teamId }),
        );
      });
      const router = new Router({ prefix: '/r' });
      router.post('/echo', ...createHandler({ body: z.object({ text: z.string().transform((t) => t.length) }) }, (ctx) => ctx.json({ length: ctx.body.text })));
      app.use(router);
    });
  });

  afterAll(() => server.close());

  it('validates, then runs the handler with the typed, replaced context', async () => {
    const res = await send(server.url, '/teams/5/users?notify=yes', { json: { name: 'Ada', age: '36' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'Ada', nextYear: 37, team: 5, notify: true, roles: ['user'] });
  });

  it('answers 400 before the handler runs when validation fails', async () => {
    const res = await send(server.url, '/teams/abc/users?notify=maybe', { json: { name: '', age: 'x', roles: ['root'] } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      failure([
        { field: 'body.name', code: 'too_small' },
        { field: 'body.age', code: 'invalid_type' },
        { field: 'body.roles.0', code: 'invalid_value' },
        { field: 'query.notify', code: 'invalid_value' },
        { field: 'params.teamId', code: 'invalid_type' },
      ]),
    );
  });

  it('works inside groups and routers, and the handler may call next', async () => {
    const put = await send(server.url, '/api/v1/teams/3', { method: 'PUT' });
    expect(put.body).toEqual({ team: 30, raw: 3 });
    const echo = await send(server.url, '/r/echo', { json: { text: 'hello' } });
    expect(echo.body).toEqual({ length: 5 });
  });

  it('makes getRoutes() report the schemas of the route', () => {
    const route = server.app.getRoutes().find((r) => r.path === '/teams/:teamId/users');
    expect(route?.schema).toEqual({ body: CreateUser, query: Notify, params: TeamParams });
    expect(route?.middleware).toHaveLength(1);
  });

  it('returns the validation middleware followed by the handler', () => {
    const handler = (): void => undefined;
    const pair = createHandler({ body: CreateUser }, handler);
    expect(pair).toHaveLength(2);
    expect(pair[0][ROUTE_SCHEMA]).toEqual({ body: CreateUser });
    expect(pair[1]).toBe(handler);
  });

  it('refuses a missing handler', () => {
    expect(() => createHandler({ body: CreateUser }, undefined as never)).toThrow('createHandler(schema, handler) needs a handler function');
  });

  it('names itself, not validate(), in the errors of its schema', () => {
    const handler = (): void => undefined;
    expect(() => createHandler({ bdy: CreateUser } as never, handler)).toThrow('createHandler(): unknown part "bdy"; use body, query or params');
    expect(() => createHandler(null as never, handler)).toThrow('createHandler() expects an object with body, query and/or params schemas');
    expect(() => createHandler({ body: { type: 'object' } as never }, handler)).toThrow('createHandler(): the body schema is neither a zod schema nor a Standard Schema validator');
    expect(() => createHandler({ params: z.object({ teamId: z.number() }) }, handler)).toThrow(
      'createHandler(): params.teamId: z.number() never accepts the string a path parameter is, so every request would be refused with 400 (use z.coerce.number())',
    );
  });
});
