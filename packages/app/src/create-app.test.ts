import { createApp, HTTPError, Router } from '@fw/app';

describe('createApp', () => {
  it('serves REST routes registered on the app', async () => {
    const app = createApp();
    app.get('/hello', (ctx) => ctx.json({ hello: 'world' }));
    const res = await app.inject({ method: 'GET', url: '/hello' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ hello: 'world' });
  });

  it('re-exports Router and HTTPError from core', async () => {
    const app = createApp();
    const users = new Router({ prefix: '/users' });
    users.get('/:id', (ctx) => {
      if (ctx.params.id === '0') throw new HTTPError(404, 'No such user');
      ctx.json({ id: ctx.params.id });
    });
    app.use(users);
    expect((await app.inject('/users/7')).json()).toEqual({ id: '7' });
    const missing = await app.inject('/users/0');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: true, message: 'No such user', code: 404 });
  });

  it('has no protocol manager when no protocols are configured', () => {
    expect(createApp().getProtocolManager()).toBeFalsy();
  });

  it('rejects an adapter without a type', () => {
    expect(() => createApp({ adapter: {} as { type: string } })).toThrow(/adapter must be an object with a string "type"/);
  });

  it('listens on a real port and closes', async () => {
    const app = createApp();
    app.get('/ping', (ctx) => ctx.text('pong'));
    const info = await app.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`${info.url}/ping`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('pong');
    } finally {
      await app.close();
    }
  });
});
