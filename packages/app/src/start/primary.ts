import type { Cluster, Worker } from 'node:cluster';
import { dirname, join, resolve } from 'node:path';
import { StartError } from './errors.js';
import { isFwMessage, WORKER_ENV, type PrimaryMessage, type WorkerAddress, type WorkerMessage } from './messages.js';
import { mergePrometheusText } from './prometheus-merge.js';
import { restartQueue } from './restart-queue.js';
import { supportsReusePort } from './reuse-port.js';

/** Options of `start()` (and of `fw start`). */
export interface StartOptions {
  /** The app module: it exports the app as `fw emit` expects (default export or `app`, not listening). */
  module: string;
  /** How many worker processes serve the app. @default os.availableParallelism() */
  workers?: number;
  /** The HTTP port (0: a free one, chosen once for every worker). @default the PORT environment variable, else the app's `port` */
  port?: number;
  /** The interface to bind. @default the HOST environment variable, else the app's `host` */
  host?: string;
  /** More environment variables for the workers (beside this process's own). @default {} */
  env?: Record<string, string>;
  /** Where a relative `module` is resolved from. @default process.cwd() */
  cwd?: string;
  /** Handle SIGHUP (rolling restart) and SIGTERM/SIGINT (stop, then exit) in this process. @default false (`fw start`: true) */
  signals?: boolean;
  /** Restart backoff after a worker dies: the first wait, doubled at each death in a row up to `max`, in ms. @default { initial: 100, max: 10000 } */
  backoff?: { initial?: number; max?: number };
  /** How long a worker told to shut down may take before it is killed, in ms. @default 60000 */
  stopTimeout?: number;
  /** Where the primary's own lines go. @default stderr */
  onLog?: (message: string) => void;
}

/** A running `fw start`: the primary's view of its workers. */
export interface StartedApp {
  /** `http://<host>:<port>` every worker serves. */
  readonly url: string;
  /** An address to open on this machine: `http://localhost:<port>` when every interface is bound, else `url`. */
  readonly localUrl: string;
  /** The HTTP port, shared by every worker. */
  readonly port: number;
  /** The gRPC address every worker serves, when the app serves gRPC. */
  readonly grpc: WorkerAddress | undefined;
  /** The process ids of the workers serving now. */
  readonly pids: number[];
  /** Whether this Node offers SO_REUSEPORT (`reusePort` on listen); the workers share ports through the primary either way. */
  readonly reusePort: boolean;
  /**
   * Replaces every worker, one at a time: each new one is ready before an old one is told to drain.
   * Called during a restart, it runs one more full round after the current one (any number of calls
   * meanwhile: one round) and resolves when that round ends. Rejects when a new worker cannot start:
   * the workers not yet replaced keep serving, and nothing is started in the failed one's place.
   */
  restart(): Promise<void>;
  /** Every worker's Prometheus text, summed ('' when the app has no metrics). */
  metrics(): Promise<string>;
  /** Shuts every worker down in order (not ready, the delay, the drain, the flush); resolves to 0 when all exited 0, else 1. */
  stop(): Promise<number>;
}

/** The defaults of `start()`. */
export const START_DEFAULTS = Object.freeze({ backoff: Object.freeze({ initial: 100, max: 10_000 }), stopTimeout: 60_000 });

/** A worker that stayed up this long resets the backoff. */
const HEALTHY_AFTER = 10_000;
/** How long the primary waits for a worker's own Prometheus text. */
const SCRAPE_TIMEOUT = 2000;

interface Slot {
  worker: Worker;
  state: 'starting' | 'ready' | 'stopping';
  /** The restart round it was forked in (0: before the first); a round replaces every older one. */
  generation: number;
  /** Forked by a restart round: when it fails before it is ready, the round fails instead of replacing it. */
  byRound: boolean;
  readyAt?: number;
  ready: Promise<Extract<WorkerMessage, { fw: 'ready' }>>;
  exited: Promise<number>;
}

/** The implementation of `start`: the package exports ../lazy.ts's, which loads this on its first call. */
export async function start(options: StartOptions): Promise<StartedApp> {
  // Loaded here, not with the package: `@fw/app` is imported by every app, and node:cluster alone
  // costs a few milliseconds of start-up. getBuiltinModule gives the module object the types call a namespace.
  const cluster = process.getBuiltinModule('node:cluster') as unknown as Cluster;
  if (!cluster.isPrimary) throw new StartError('start() runs in the primary process, not in a cluster worker');
  const count = options.workers ?? process.getBuiltinModule('node:os').availableParallelism();
  if (!Number.isInteger(count) || count < 1) throw new StartError(`workers must be a whole number >= 1, got ${String(options.workers)}`);
  const log = options.onLog ?? ((message: string) => void process.stderr.write(`fw: ${message}\n`));
  const file = resolve(options.cwd ?? process.cwd(), options.module);
  const envPort = process.env.PORT;
  let port = options.port ?? (envPort === undefined || envPort === '' ? undefined : Number(envPort));
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new StartError(`port must be a whole number from 0 to 65535, got ${String(port)}`);
  const host = options.host ?? (process.env.HOST === '' ? undefined : process.env.HOST);
  // Port 0 is chosen here once: in a cluster, two listen(0) of one worker (HTTP and gRPC) would be
  // the same shared handle.
  if (port === 0) port = await freePort(host);
  const backoff = { ...START_DEFAULTS.backoff, ...options.backoff };
  const stopTimeout = options.stopTimeout ?? START_DEFAULTS.stopTimeout;

  cluster.setupPrimary({ exec: workerEntry(), args: [], silent: false });
  const env: Record<string, string> = { ...options.env, FW_START_WORKER: '1', [WORKER_ENV.module]: file };
  if (port !== undefined) env[WORKER_ENV.port] = String(port);
  if (host !== undefined) env[WORKER_ENV.host] = host;

  const slots = new Set<Slot>();
  let stopping: Promise<number> | undefined;
  let generation = 0;
  let deathsInARow = 0;
  let latest: Extract<WorkerMessage, { fw: 'ready' }> | undefined;
  const scrapes = new Map<number, (message: Extract<WorkerMessage, { fw: 'scraped' }>) => void>();
  let nextScrape = 1;

  const scrapeOne = (slot: Slot): Promise<string | undefined> => {
    const id = nextScrape++;
    return new Promise((done) => {
      const timer = setTimeout(() => finish(undefined), SCRAPE_TIMEOUT);
      const finish = (text: string | undefined): void => {
        clearTimeout(timer);
        scrapes.delete(id);
        done(text);
      };
      scrapes.set(id, (message) => finish(message.text));
      slot.exited.then(() => finish(undefined), () => finish(undefined));
      if (!sendTo(slot.worker, { fw: 'scrape', id })) finish(undefined);
    });
  };
  const metrics = async (): Promise<string> => {
    // Every worker that serves (a draining one still counts what it served).
    const texts = await Promise.all([...slots].filter((slot) => slot.state !== 'starting').map(scrapeOne));
    return mergePrometheusText(texts.filter((text): text is string => text !== undefined));
  };

  /** The workers that serve or are starting to: those not told to stop. */
  const live = (): Slot[] => [...slots].filter((slot) => slot.state !== 'stopping');

  const fork = (slotGeneration: number, byRound: boolean): Slot => {
    const worker = cluster.fork(env);
    const forkedAt = Date.now();
    let onReady!: (message: Extract<WorkerMessage, { fw: 'ready' }>) => void;
    let onFailed!: (error: Error) => void;
    const ready = new Promise<Extract<WorkerMessage, { fw: 'ready' }>>((resolveReady, rejectReady) => {
      onReady = resolveReady;
      onFailed = rejectReady;
    });
    ready.catch(() => undefined);
    let failure: string | undefined;
    const slot: Slot = {
      worker,
      state: 'starting',
      generation: slotGeneration,
      byRound,
      ready,
      exited: new Promise((resolveExit) => {
        worker.once('exit', (code, signal) => {
          slots.delete(slot);
          onFailed(new StartError(failure ?? `worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) before it was ready`));
          resolveExit(code ?? 1);
          const expected = slot.state === 'stopping' || stopping !== undefined;
          if (!expected) replace(slot, code, signal, Date.now() - (slot.readyAt ?? forkedAt));
        });
      }),
    };
    worker.on('message', (message: unknown) => {
      if (!isFwMessage<WorkerMessage>(message)) return;
      if (message.fw === 'ready') {
        slot.state = slot.state === 'starting' ? 'ready' : slot.state;
        slot.readyAt = Date.now();
        latest = message;
        onReady(message);
      } else if (message.fw === 'failed') failure = message.message;
      else if (message.fw === 'scraped') scrapes.get(message.id)?.(message);
      else if (message.fw === 'collect') {
        metrics().then(
          (text) => sendTo(worker, { fw: 'collected', id: message.id, text }),
          (err: unknown) => sendTo(worker, { fw: 'collected', id: message.id, error: String(err) }),
        );
      }
    });
    slots.add(slot);
    return slot;
  };

  // Forks workers until `count` serve or start, unless a restart round runs: the round keeps the count then.
  const reconcile = (): void => {
    if (stopping !== undefined || restarts.busy !== undefined) return;
    for (let missing = count - live().length; missing > 0; missing--) {
      const next = fork(generation, false);
      next.ready.then(
        () => log(`worker ${next.worker.process.pid} ready`),
        () => undefined,
      );
    }
  };

  // A worker that died on its own: another one takes its place, later and later while they keep dying.
  const replace = (slot: Slot, code: number | null, signal: string | null, lived: number): void => {
    if (slot.readyAt === undefined && !started) return;
    // A restart's new worker that never got ready fails its round, and the old workers keep serving:
    // one forked in its place would be one too many once the round is run again.
    if (slot.byRound && slot.readyAt === undefined) return;
    deathsInARow = lived >= HEALTHY_AFTER ? 1 : deathsInARow + 1;
    const exited = `worker ${slot.worker.process.pid} exited (${signal ?? `code ${code}`})`;
    if (restarts.busy !== undefined) {
      log(`${exited}; the restart under way starts another`);
      return;
    }
    const wait = Math.min(backoff.max, backoff.initial * 2 ** (deathsInARow - 1));
    log(`${exited}; starting another in ${wait} ms`);
    setTimeout(reconcile, wait).unref();
  };

  const drain = (slot: Slot, message: PrimaryMessage | 'SIGTERM'): Promise<number> => {
    slot.state = 'stopping';
    if (message === 'SIGTERM') slot.worker.process.kill('SIGTERM');
    else if (!sendTo(slot.worker, message)) slot.worker.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      log(`worker ${slot.worker.process.pid} did not exit within ${stopTimeout} ms; killing it`);
      slot.worker.process.kill('SIGKILL');
    }, stopTimeout);
    return slot.exited.finally(() => clearTimeout(timer));
  };

  // One rolling restart: every worker forked before it is replaced by one that loads the module
  // now, one at a time (a new one ready, then an old one drains), until `count` new ones serve.
  // Each step looks at the workers again, so one that dies meanwhile is made up for.
  const round = async (): Promise<void> => {
    const current = ++generation;
    for (;;) {
      if (stopping !== undefined) throw new StartError('stopping: the restart ended before every worker was replaced');
      const serving = live();
      const old = serving.filter((slot) => slot.generation < current);
      if (old.length > 0 && serving.length > count) {
        // The primary keeps the listening sockets: the old worker has nothing to wait for before it
        // drains. One still starting may not listen to the primary yet: SIGTERM ends it either way.
        const ready = old.find((slot) => slot.state === 'ready');
        await (ready === undefined ? drain(old[0]!, 'SIGTERM') : drain(ready, { fw: 'shutdown', delay: 0, handoff: true }));
        continue;
      }
      if (serving.length - old.length >= count) return;
      const next = fork(current, true);
      try {
        await next.ready;
      } catch (err) {
        throw new StartError(`a new worker could not start (${err instanceof Error ? err.message : String(err)}); ${stillServing(live(), current)}`, { cause: err });
      }
    }
  };
  const restarts = restartQueue({ round, stopping: () => stopping !== undefined, idle: reconcile, log });

  // `cause` (a signal) is logged with each line; restart() logs its rounds without one.
  const requestRestart = (cause?: string): Promise<void> => {
    const refused = stopping !== undefined ? 'stopping: nothing to restart' : started ? undefined : 'still starting: nothing to restart yet';
    if (refused === undefined) return restarts.request(cause);
    if (cause !== undefined) log(`${cause}: ${refused}`);
    return Promise.reject(new StartError(refused));
  };
  const restart = (): Promise<void> => requestRestart();

  const stop = (): Promise<number> => {
    stopping ??= (async () => {
      await restarts.busy;
      // SIGTERM: each worker's app runs its own order (not ready, its delay, the drain, the flush).
      const codes = await Promise.all([...slots].map((slot) => drain(slot, 'SIGTERM')));
      removeSignals();
      return codes.every((code) => code === 0) ? 0 : 1;
    })();
    return stopping;
  };

  let started = false;
  // Installed before the first fork: a signal while the workers start must not kill the primary alone.
  const removeSignals = options.signals === true ? watchSignals({ restart: () => requestRestart('SIGHUP'), stop, log, kill: () => [...slots].forEach((slot) => slot.worker.process.kill('SIGKILL')) }) : () => undefined;
  const first = Array.from({ length: count }, () => fork(0, false));
  try {
    await Promise.all(first.map((slot) => slot.ready));
  } catch (err) {
    stopping ??= Promise.resolve(1);
    await Promise.all([...slots].map((slot) => drain(slot, { fw: 'shutdown', delay: 0 })));
    removeSignals();
    throw err;
  }
  started = true;
  const ready = latest!;
  const { host: boundHost, port: boundPort } = ready.http;
  const shownHost = boundHost.includes(':') ? `[${boundHost}]` : boundHost;
  const url = `http://${shownHost}:${boundPort}`;
  return {
    url,
    localUrl: boundHost === '::' || boundHost === '0.0.0.0' ? `http://localhost:${boundPort}` : url,
    port: ready.http.port,
    grpc: ready.grpc,
    get pids() {
      return live().map((slot) => slot.worker.process.pid!);
    },
    reusePort: supportsReusePort(),
    restart,
    metrics,
    stop,
  };
}

/** Who serves after a restart round failed: the old workers, or some of each. */
function stillServing(serving: readonly Slot[], round: number): string {
  const old = serving.filter((slot) => slot.generation < round).length;
  const fresh = serving.length - old;
  if (fresh === 0) return old === 1 ? 'the old worker keeps serving' : `the ${old} old workers keep serving`;
  return `${old} old and ${fresh} new ${old + fresh === 1 ? 'worker serves' : 'workers serve'}`;
}

function sendTo(worker: Worker, message: PrimaryMessage): boolean {
  if (!worker.isConnected()) return false;
  worker.send(message);
  return true;
}

/** The file every worker runs: the `fw` binary, which runs a worker when the cluster forked it. */
function workerEntry(): string {
  const url = (import.meta as Partial<ImportMeta>).url;
  const own = url === undefined ? require : process.getBuiltinModule('node:module').createRequire(url);
  return join(dirname(own.resolve('@fw/app/package.json')), 'dist', 'bin', 'fw.js');
}

function freePort(host: string | undefined): Promise<number> {
  return new Promise((done, fail) => {
    const server = process.getBuiltinModule('node:net').createServer();
    server.once('error', fail);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface SignalActions {
  restart(): Promise<void>;
  stop(): Promise<number>;
  log(message: string): void;
  kill(): void;
}

/**
 * SIGHUP restarts the workers (during a restart: one more round after it); SIGTERM/SIGINT stop them
 * and exit; a second one kills them and exits at once.
 */
function watchSignals(actions: SignalActions): () => void {
  let stopping = false;
  const onHup = (): void => {
    // The restart logs each round, how it ended, and a refusal.
    actions.restart().catch(() => undefined);
  };
  const onStop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      actions.kill();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    actions.log(`${signal}: shutting the workers down in order (not ready, then the drain), then exiting (${signal === 'SIGINT' ? 'press Ctrl+C' : `send ${signal}`} again to exit now)`);
    void actions.stop().then((code) => process.exit(code));
  };
  process.on('SIGHUP', onHup);
  process.on('SIGTERM', onStop);
  process.on('SIGINT', onStop);
  return () => {
    process.removeListener('SIGHUP', onHup);
    if (!stopping) {
      process.removeListener('SIGTERM', onStop);
      process.removeListener('SIGINT', onStop);
    }
  };
}
