import { isHttpContext, type AnyMiddleware, type Context } from '@fw/core';
import type { Plugin } from '@fw/core/plugin';
import { Server as NetServer } from 'node:net';
import { resolve } from 'node:path';
import type { App } from '../create-app.js';
import { loadAppModule } from './load-app.js';
import { isFwMessage, WORKER_ENV, type PrimaryMessage, type WorkerMessage } from './messages.js';

/** What a worker needs of `@fw/metrics`'s plugin (declared here: `@fw/metrics` is loaded only when used). */
interface MetricsPluginShape extends Plugin {
  readonly enabled: boolean;
  readonly path: string | undefined;
  readonly address: unknown;
  scrape(): Promise<string>;
}

const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** How long a scrape waits for the primary's summed text before answering 503. */
const COLLECT_TIMEOUT = 5000;
/** How long a worker being replaced serves its open connections (each answer closing it) before it drains. */
const HANDOFF_TIMEOUT = 1000;

/** Set while this worker hands its connections over: every answer tells the client to reconnect. */
let retiring = false;

function send(message: WorkerMessage): void {
  if (process.connected) process.send?.(message);
}

/**
 * Runs one worker of `fw start`: loads the app module, listens on the shared ports, tells the
 * primary once its readiness answers 200, and serves the metrics path with the series of every
 * worker summed. Exits 1 (after telling the primary why) when the app cannot start.
 */
export async function runWorker(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // Ctrl+C signals the whole process group: the primary answers it by shutting each worker down in
  // order, which a worker ended by the signal itself would not wait for.
  process.on('SIGINT', () => undefined);
  const spec = env[WORKER_ENV.module] ?? '';
  const port = env[WORKER_ENV.port] === undefined || env[WORKER_ENV.port] === '' ? undefined : Number(env[WORKER_ENV.port]);
  const host = env[WORKER_ENV.host] === undefined || env[WORKER_ENV.host] === '' ? undefined : env[WORKER_ENV.host];
  let app: App | undefined;
  try {
    app = await loadAppModule(resolve(spec), spec);
    const metrics = app.getPlugin<MetricsPluginShape>('metrics');
    const served = metrics !== undefined && metrics.enabled && metrics.path !== undefined ? metrics : undefined;
    app.register(workerPlugin(served?.path));
    listenToPrimary(app, served);
    const info = await app.listen(port, host);
    if (served?.address !== undefined) {
      throw new Error('observability.metrics.port (an admin port) is not served under fw start --workers: every worker would answer it with its own series. Serve the metrics on the app\'s port (the default), where fw start sums every worker\'s series');
    }
    await untilReady(app);
    const grpc = app.getProtocolManager()?.getGrpcAddress();
    send({ fw: 'ready', http: { host: info.host, port: info.port }, ...(grpc === undefined ? {} : { grpc: { host: grpc.host, port: grpc.port } }), ...(served === undefined ? {} : { metricsPath: served.path! }) });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`fw: worker ${process.pid}: ${message}\n`);
    send({ fw: 'failed', message });
    await app?.close().catch(() => undefined);
    process.exit(1);
  }
}

/** Resolves once the app's readiness (its checks included) reports ready; without health, at once. */
async function untilReady(app: App): Promise<void> {
  const health = app.health;
  if (health === undefined) return;
  for (;;) {
    const report = await health.check();
    if (report.status === 'ok') return;
    if (report.reason === 'shutting_down') throw new Error('shut down before it was ready');
    await new Promise((done) => setTimeout(done, 100));
  }
}

function listenToPrimary(app: App, metrics: MetricsPluginShape | undefined): void {
  let shuttingDown = false;
  const shutdown = (delay: number | undefined, handoff = false): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    const watchesSignals = app.getPlugin('shutdown-signals') !== undefined;
    if (handoff && watchesSignals) {
      // The app's own SIGTERM handler runs its whole order, shutdown.beforeExit included; its delay
      // passes with no connection left to serve.
      void handOver(app).then(() => process.kill(process.pid, 'SIGTERM'));
      return;
    }
    (handoff ? handOver(app) : Promise.resolve())
      .then(() => app.shutdown(delay === undefined ? {} : { delay }))
      .then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`fw: worker ${process.pid}: error while shutting down: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('message', (message: unknown) => {
    if (!isFwMessage<PrimaryMessage>(message)) return;
    if (message.fw === 'shutdown') shutdown(message.delay, message.handoff === true);
    else if (message.fw === 'scrape') {
      if (metrics === undefined) send({ fw: 'scraped', id: message.id, text: '' });
      else metrics.scrape().then((text) => send({ fw: 'scraped', id: message.id, text }), (err: unknown) => send({ fw: 'scraped', id: message.id, error: String(err) }));
    } else if (message.fw === 'collected') collected.get(message.id)?.(message);
  });
  // The app handles SIGTERM itself (shutdown in order, exit 0) unless it was made with shutdown: false.
  if (app.getPlugin('shutdown-signals') === undefined) process.once('SIGTERM', () => shutdown(undefined));
  // The primary is gone (killed): nothing will route requests here again.
  process.once('disconnect', () => shutdown(0));
}

const collected = new Map<number, (message: Extract<PrimaryMessage, { fw: 'collected' }>) => void>();
let nextId = 1;

/** Every worker's series, summed by the primary. */
function collect(): Promise<string> {
  const id = nextId++;
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      collected.delete(id);
      reject(new Error('the primary did not answer'));
    }, COLLECT_TIMEOUT);
    collected.set(id, (message) => {
      clearTimeout(timer);
      collected.delete(id);
      if (message.text !== undefined) resolvePromise(message.text);
      else reject(new Error(message.error ?? 'no metrics'));
    });
    send({ fw: 'collect', id });
  });
}

/**
 * A worker being replaced while the others keep serving: it stops taking connections (the primary
 * hands new ones to the other workers) but answers the requests still coming on its open ones, each
 * answer with `Connection: close` so the client reconnects elsewhere. Its drain then finds no client
 * in the middle of sending, where a drain alone would answer those requests 503.
 */
async function handOver(app: App): Promise<void> {
  const server = app.server;
  if (server === undefined) return;
  retiring = true;
  // net's close, not http's: http's would also cut the idle kept-alive connections a client may be sending on.
  NetServer.prototype.close.call(server);
  const deadline = Date.now() + HANDOFF_TIMEOUT;
  while (Date.now() < deadline) {
    const open = await new Promise<number>((done) => server.getConnections((err, count) => done(err ? 0 : count)));
    if (open === 0) return;
    await new Promise((done) => setTimeout(done, 25));
  }
}

/**
 * What every worker adds to the app: while it hands over, `Connection: close` on each answer; and
 * the metrics path (when served) answered with every worker's series summed, ahead of the metrics
 * plugin's own answer (one worker's series): a wrapper runs before any claimed path.
 */
function workerPlugin(path: string | undefined): Plugin {
  const answer: AnyMiddleware = async (ctx, next) => {
    if (!isHttpContext(ctx)) return next();
    if (retiring) ctx.setHeader('connection', 'close');
    if (ctx.path !== path || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const http: Context = ctx;
    try {
      const text = await collect();
      http.setHeader('content-type', PROMETHEUS_CONTENT_TYPE);
      http.text(text, 200);
    } catch (err) {
      http.text(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`, 503);
    }
  };
  return { name: 'fw-start-worker', setup: (host) => void host.wrap(answer) };
}
