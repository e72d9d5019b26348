import { fetchRaw, start, type Started } from '../hostile/support.js';

// Nesting-depth limit of JSON bodies, through a real socket: a deep body is refused with 400
// before any middleware or handler sees it, and the server keeps serving.

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const json = { 'content-type': 'application/json' };

describe('JSON body nesting limit on a real socket', () => {
  const servers: Started[] = [];
  afterAll(async () => {
    for (const s of servers) await s.app.close();
  });

  async function serve(config: { maxJsonDepth?: number }): Promise<{ port: number; seen: unknown[] }> {
    const seen: unknown[] = [];
    const started = await start(config, (app) => {
      app.use(async (ctx, next) => {
        seen.push(await ctx.parseBody());
        await next();
      });
      app.post('/echo', (ctx) => ctx.json({ array: Array.isArray(ctx.body) }));
      app.get('/ok', (ctx) => ctx.text('ok'));
    });
    servers.push(started);
    return { port: started.port, seen };
  }

  it('answers 400 to 2,400 levels (62 KB) before any middleware sees the body', async () => {
    const { port, seen } = await serve({});
    const body = `${'[{"a":'.repeat(1200)}1${'}]'.repeat(1200)}`;
    expect(body.length).toBeGreaterThan(8000);
    const res = await fetchRaw(port, '/echo', { method: 'POST', headers: json, body });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: true, message: 'JSON nested deeper than 64 levels', code: 400 });
    expect(seen).toEqual([]);
    expect((await fetchRaw(port, '/ok')).status).toBe(200);
  });

  it('accepts a body nested exactly 64 levels and refuses 65', async () => {
    const { port } = await serve({});
    const at = await fetchRaw(port, '/echo', { method: 'POST', headers: json, body: nested(64) });
    expect(at.status).toBe(200);
    expect(JSON.parse(at.text)).toEqual({ array: true });
    const over = await fetchRaw(port, '/echo', { method: 'POST', headers: json, body: nested(65) });
    expect(over.status).toBe(400);
  });

  it('answers 400, not a server error, to 100,000 levels of brackets', async () => {
    const { port } = await serve({});
    const res = await fetchRaw(port, '/echo', { method: 'POST', headers: json, body: '['.repeat(100_000) });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).message).toBe('JSON nested deeper than 64 levels');
  });

  it('takes the limit from maxJsonDepth', async () => {
    const { port } = await serve({ maxJsonDepth: 3 });
    expect((await fetchRaw(port, '/echo', { method: 'POST', headers: json, body: nested(3) })).status).toBe(200);
    const over = await fetchRaw(port, '/echo', { method: 'POST', headers: json, body: nested(4) });
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text).message).toBe('JSON nested deeper than 3 levels');
    const { port: deepPort } = await serve({ maxJsonDepth: 200 });
    expect((await fetchRaw(deepPort, '/echo', { method: 'POST', headers: json, body: nested(150) })).status).toBe(200);
  });
});
