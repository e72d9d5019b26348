import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Application } from './application.js';
import { Context } from './context.js';
import type { PluginHost } from './plugin-host.js';
import { createContextKey } from './request-context.js';
import { withStreamSignal } from './stream-scope.js';

/** A context as a transport makes one for a connection (a WebSocket's upgrade request): nothing is written to its response. */
function contextOf(): { ctx: Context; leave: () => void } {
  const app = new Application();
  let host: PluginHost | undefined;
  app.register({ name: 'probe', setup: (h) => void (host = h) });
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/x';
  const res = new ServerResponse(req);
  return { ctx: new Context(req, res, host!.contextSettings), leave: () => res.emit('close') };
}

describe('withStreamSignal()', () => {
  it("aborts the view's signal when the stream's own signal aborts, leaving the context's signal alone", () => {
    const { ctx } = contextOf();
    const stream = new AbortController();
    const view = withStreamSignal(ctx, stream.signal);
    expect(view.signal.aborted).toBe(false);
    stream.abort();
    expect(view.signal.aborted).toBe(true);
    expect(ctx.signal.aborted).toBe(false);
  });

  it("aborts the view's signal when the context's signal aborts (the connection closed)", () => {
    const { ctx, leave } = contextOf();
    const view = withStreamSignal(ctx, new AbortController().signal);
    leave();
    expect(ctx.signal.aborted).toBe(true);
    expect(view.signal.aborted).toBe(true);
  });

  it('reads, writes and calls through to the context itself, private state included', () => {
    const { ctx } = contextOf();
    const view = withStreamSignal(ctx, new AbortController().signal);
    const key = createContextKey<string>('test.scoped');
    view.set(key, 'set through the view');
    expect(ctx.get(key)).toBe('set through the view');
    view.user = { id: 'u1' };
    expect(ctx.user).toEqual({ id: 'u1' });
    expect(view.path).toBe('/x');
    expect(view.get).toBe(view.get);
  });
});
