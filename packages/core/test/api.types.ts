// Type-level tests: `tsc -p tsconfig.json --noEmit` checks this file. Each `@ts-expect-error` line
// fails the check when the line it marks compiles, so the types cannot silently get looser.
import { Application, createContextKey, Router, tracked, withMeta, type Context, type HTTPError, type Middleware, type Next, type RequestContext, type RouteMeta, type StreamEvent, type Tracked } from '../src/index.js';
import type { PluginHost } from '../src/plugin.js';

declare module '../src/index.js' {
  interface RouteMeta {
    /** A key declared by merging, as a package would. */
    audited?: boolean;
  }
}

const app = new Application();

// withMeta: declared keys with their types; undeclared keys and wrong types do not compile.
const mw = withMeta((_ctx: Context, next: Next) => next(), { description: 'x', tags: ['a'], audited: true });
app.use(mw);
const returned: (ctx: Context, next: Next) => Promise<void> = mw;
void returned;
// @ts-expect-error an undeclared key
withMeta((_ctx: Context, next: Next) => next(), { rolez: ['admin'] });
// @ts-expect-error description is a string
withMeta((_ctx: Context, next: Next) => next(), { description: 42 });
// @ts-expect-error a merged key keeps its declared type
withMeta((_ctx: Context, next: Next) => next(), { audited: 'yes' });
// @ts-expect-error only functions carry meta
withMeta({ not: 'a function' }, {});
const meta: RouteMeta = { description: 'd' };
void meta;

// Context keys: the value type follows the key; a default removes `undefined`.
const TENANT = createContextKey<string>('tenant', { default: 'public' });
const COUNT = createContextKey<number>('count');
app.get('/', (ctx) => {
  const tenant: string = ctx.get(TENANT);
  const count: number | undefined = ctx.get(COUNT);
  // @ts-expect-error without a default, get may return undefined
  const sure: number = ctx.get(COUNT);
  ctx.set(TENANT, 'acme');
  // @ts-expect-error the value must have the key's type
  ctx.set(TENANT, 42);
  // @ts-expect-error the value must have the key's type
  ctx.set(COUNT, 'three');
  // @ts-expect-error a default must have the key's type
  createContextKey<number>('bad', { default: 'zero' });
  void [tenant, count, sure];
});

// RequestContext middleware is accepted wherever HTTP middleware is.
const neutral: Middleware<RequestContext> = async (ctx, next) => {
  ctx.setHeader('x-protocol', ctx.protocol);
  const status: number = ctx.statusCode;
  void status;
  // @ts-expect-error the protocol-neutral context has no raw HTTP response
  void ctx.res;
  await next();
};
app.use(neutral);
app.get('/n', neutral, (ctx) => ctx.text('n'));
declare const http: Context;
const asNeutral: RequestContext = http;
void asNeutral;

// Route methods keep returning the application and type params from the path.
const chained: Application = app.get('/users/:id', (ctx) => {
  const id: string = ctx.params.id;
  void id;
});
void chained;

// Every verb, on a router and on the application: params typed from the path (`satisfies string`
// fails for a verb whose `id` is not typed from the path; a name not in the path may be missing, and
// the `@ts-expect-error` lines fail for a verb whose params are untyped), the receiver returned for
// chaining, handlers only functions.
const router = new Router();
const viaRouter: Router[] = [
  router.get('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  router.post('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  router.put('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  router.patch('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  router.delete('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  router.options('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  router.head('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  router.all('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
];
const viaApp: Application[] = [
  app.get('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  app.post('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  app.put('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  app.patch('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  app.delete('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  app.options('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  app.head('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
  app.all('/v/:id', (ctx) => void (ctx.params.id satisfies string)),
];
void [viaRouter, viaApp];
// @ts-expect-error `other` is not in the path
router.get('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
router.post('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
router.put('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
router.patch('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
router.delete('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
router.options('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
router.head('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
router.all('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.get('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.post('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.put('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.patch('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.delete('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.options('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.head('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error `other` is not in the path
app.all('/w/:id', (ctx) => void (ctx.params.other satisfies string));
// @ts-expect-error handlers are functions
router.put('/w', 42);
// @ts-expect-error handlers are functions
app.delete('/w', 'handler');

// The plugin host: what plugins use, nothing of the user-facing app.
app.register({
  name: 'typed',
  setup(host) {
    const same: PluginHost = host;
    host.claimPath('/p', (ctx) => ctx.text('p'), { protocol: 'http' });
    host.onResponse((ctx, status) => void [ctx.path, status]);
    host.log('message');
    // @ts-expect-error the host does not register routes
    host.get('/x', () => undefined);
    void same;
  },
});

// Streams: ctx.sse takes any async iterable of values, tracked() or not; the context offers its
// signal and the last event id; tracked() ids are strings.
app.get('/events', (ctx) => {
  const signal: AbortSignal = ctx.signal;
  const last: string | undefined = ctx.lastEventId;
  void [signal, last];
  return ctx.sse(
    (async function* () {
      yield { n: 1 };
      yield tracked('2', { n: 2 });
    })(),
    { serialize: (value) => JSON.stringify(value) },
  );
});
const neutralSignal = (ctx: RequestContext): AbortSignal => ctx.signal;
void neutralSignal;
const event: StreamEvent<number> = { id: undefined, data: 1 };
const marked: Tracked<number> = tracked('1', 1);
void [event, marked];
// @ts-expect-error an id is a string
tracked(1, 'x');
// @ts-expect-error ctx.sse takes an async iterable, not an array
app.get('/no', (ctx) => ctx.sse([1, 2]));
app.register({
  name: 'streams',
  setup(host) {
    const handle = host.openStream({ protocol: 'custom', clientKey: 'k', end: (reason: HTTPError) => void reason.statusCode });
    const aborted: boolean = handle.signal.aborted;
    handle.close();
    const heartbeat: number = host.streams.heartbeat;
    host.onUpgrade('/ws', (req, socket, head) => void [req.url, socket.destroy(), head.length]);
    // @ts-expect-error the registry needs an end hook
    host.openStream({ protocol: 'custom', clientKey: 'k' });
    void [aborted, heartbeat];
  },
});
