import type { Context } from '@fw/core';
import type { Plugin, PluginHost } from '@fw/core/plugin';

/**
 * A readiness check: resolves (to anything but `false`) when the dependency is usable. A check that
 * throws, rejects, resolves `false` or takes longer than `checkTimeout` fails; its `signal` aborts
 * when the time is up.
 */
export type HealthCheck = (signal: AbortSignal) => unknown;

/** Options of `createApp`'s `health`: the liveness and readiness endpoints and the readiness checks. */
export interface HealthOptions {
  /** The liveness path: 200 while the process serves at all (draining included); false serves none. @default '/livez' */
  livePath?: string | false;
  /** The readiness path: 200 when ready, 503 while starting, shutting down or a check fails; false serves none. @default '/readyz' */
  readyPath?: string | false;
  /** Named readiness checks (`{ redis: () => redis.ping() }`), run together on every readiness request. @default {} */
  checks?: Record<string, HealthCheck>;
  /** How long one check may take before it counts as failed, in ms (keep it under the probe's timeout). @default 1000 */
  checkTimeout?: number;
  /**
   * How often the checks also run in the background, in ms, so that the gRPC health service (which
   * answers from a stored status) follows them; 0 runs them only for readiness requests.
   * @default 5000 (only when there are checks and gRPC health is served)
   */
  checkInterval?: number;
}

/** Where the application is in its life. */
export type Lifecycle = 'starting' | 'serving' | 'shutting_down';

/** The outcome of one check: `ok`, `failed` (threw, rejected or returned false) or `timeout`. */
export type CheckOutcome = 'ok' | 'failed' | 'timeout';

/** What the readiness endpoint answers. */
export interface ReadinessReport {
  /** `ok` when ready, else `unavailable`. */
  status: 'ok' | 'unavailable';
  /** Why not ready: still starting, shutting down, or a check failed. */
  reason?: 'starting' | 'shutting_down' | 'checks';
  /** Each check's outcome (absent while starting or shutting down: no check runs then). */
  checks?: Record<string, CheckOutcome>;
}

/** The application's health: one state behind `/livez`, `/readyz` and the gRPC health service. */
export interface AppHealth {
  /** Where the application is in its life. */
  readonly lifecycle: Lifecycle;
  /** Whether the application is ready: serving, and its checks passed when they last ran. */
  readonly ready: boolean;
  /** Runs the checks now and reports readiness (what `GET /readyz` answers). */
  check(): Promise<ReadinessReport>;
}

/** Where readiness is also told: the gRPC health service's whole-server ('') status. */
export interface ServingStatusSink {
  setServingStatus(service: string, status: 'SERVING' | 'NOT_SERVING'): void;
}

/** The defaults of `health`. */
export const HEALTH_DEFAULTS = Object.freeze({ livePath: '/livez', readyPath: '/readyz', checkTimeout: 1000, checkInterval: 5000 });

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/**
 * The health plugin `createApp` registers: claims the liveness and readiness paths and answers them
 * in their guard, before the app's global middleware (no logging, rate limiting or authentication
 * for probes), keeps the readiness state, and tells the gRPC health service each change.
 */
export class HealthPlugin implements Plugin, AppHealth {
  readonly name = 'health';
  readonly livePath: string | undefined;
  readonly readyPath: string | undefined;
  #lifecycle: Lifecycle = 'starting';
  #checksPassed = true;
  #running: Promise<ReadinessReport> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #host: PluginHost | undefined;
  #told: 'SERVING' | 'NOT_SERVING' | undefined;
  readonly #checks: ReadonlyArray<[string, HealthCheck]>;
  readonly #timeout: number;
  readonly #interval: number;
  #grpc: ServingStatusSink | undefined;

  constructor(options: HealthOptions) {
    this.livePath = options.livePath === false ? undefined : (options.livePath ?? HEALTH_DEFAULTS.livePath);
    this.readyPath = options.readyPath === false ? undefined : (options.readyPath ?? HEALTH_DEFAULTS.readyPath);
    this.#checks = Object.entries(options.checks ?? {});
    this.#timeout = options.checkTimeout ?? HEALTH_DEFAULTS.checkTimeout;
    this.#interval = options.checkInterval ?? HEALTH_DEFAULTS.checkInterval;
  }

  /** Tells the gRPC health service every change of readiness from now on. */
  connectGrpc(grpc: ServingStatusSink): void {
    this.#grpc = grpc;
  }

  /** The paths this plugin answers (kept out of tracing and metrics). */
  get paths(): string[] {
    return [this.livePath, this.readyPath].filter((path): path is string => path !== undefined);
  }

  get lifecycle(): Lifecycle {
    return this.#lifecycle;
  }

  get ready(): boolean {
    return this.#lifecycle === 'serving' && this.#checksPassed;
  }

  setup(host: PluginHost): void {
    this.#host = host;
    const answer = (respond: (ctx: Context) => Promise<void> | void) => async (ctx: Context): Promise<void> => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.setHeader('allow', 'GET, HEAD');
        ctx.json({ error: true, message: 'Method Not Allowed', code: 405 }, 405);
        return;
      }
      for (const [name, value] of Object.entries(JSON_HEADERS)) ctx.setHeader(name, value);
      await respond(ctx);
    };
    const live = answer((ctx) => ctx.json({ status: 'ok' }, 200));
    const ready = answer(async (ctx) => {
      const report = await this.check();
      ctx.json(report, report.status === 'ok' ? 200 : 503);
    });
    // Answered by the guard, which runs before the global middleware and never calls it.
    if (this.livePath !== undefined) host.claimPath(this.livePath, live, { guard: live });
    if (this.readyPath !== undefined) host.claimPath(this.readyPath, ready, { guard: ready });
    host.onListen(async () => {
      this.#warnAboutShadowedRoutes(host);
      // Listening again after a close() serves again.
      this.#lifecycle = 'serving';
      this.#checksPassed = true;
      if (this.#checks.length === 0) {
        this.#tell();
        return;
      }
      await this.check();
      if (this.#grpc !== undefined && this.#interval > 0) {
        this.#timer = setInterval(() => void this.check(), this.#interval);
        this.#timer.unref();
      }
    });
    // close() called directly (not through shutdown()): not ready from the moment the drain starts.
    host.onClose(() => this.beginShutdown());
  }

  /** Not ready from now on: readiness answers 503 and the gRPC health service NOT_SERVING. */
  beginShutdown(): void {
    this.#lifecycle = 'shutting_down';
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#tell();
  }

  check(): Promise<ReadinessReport> {
    if (this.#lifecycle !== 'serving') return Promise.resolve({ status: 'unavailable', reason: this.#lifecycle === 'starting' ? 'starting' : 'shutting_down' });
    if (this.#checks.length === 0) return Promise.resolve({ status: 'ok' });
    // Probes that arrive while the checks run share that run: a slow dependency is asked once.
    this.#running ??= this.#runChecks().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #runChecks(): Promise<ReadinessReport> {
    const outcomes = await Promise.all(this.#checks.map(([, check]) => runCheck(check, this.#timeout)));
    const checks: Record<string, CheckOutcome> = {};
    this.#checks.forEach(([name], i) => (checks[name] = outcomes[i]!));
    const passed = outcomes.every((outcome) => outcome === 'ok');
    if (passed !== this.#checksPassed && this.#host !== undefined) {
      const failed = Object.entries(checks).filter(([, outcome]) => outcome !== 'ok').map(([name, outcome]) => `${name} (${outcome})`);
      this.#host.log(passed ? 'Readiness: every check passes again; ready' : `Readiness: not ready, failed checks: ${failed.join(', ')}`);
    }
    this.#checksPassed = passed;
    this.#tell();
    if (this.#lifecycle !== 'serving') return { status: 'unavailable', reason: 'shutting_down' };
    return passed ? { status: 'ok', checks } : { status: 'unavailable', reason: 'checks', checks };
  }

  /** Tells the gRPC health service the whole server's status when it changed. */
  #tell(): void {
    const status = this.ready ? 'SERVING' : 'NOT_SERVING';
    if (this.#grpc === undefined || status === this.#told) return;
    this.#told = status;
    try {
      this.#grpc.setServingStatus('', status);
    } catch (err) {
      this.#host?.log('Readiness could not be told to the gRPC health service', err);
    }
  }

  /** A route registered on a health path is never reached (the claim answers first): say so once. */
  #warnAboutShadowedRoutes(host: PluginHost): void {
    const shadowed = host.routes().filter((route) => this.paths.includes(route.path));
    for (const route of shadowed) {
      host.log(`The route ${route.method} ${route.path} is never reached: the health endpoint answers ${route.path} (set health.livePath/readyPath, or health: false)`);
    }
  }
}

/** Runs one check, time-boxed: `ok`, `failed` or `timeout`. */
async function runCheck(check: HealthCheck, timeout: number): Promise<CheckOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`health check timed out after ${timeout} ms`));
      resolve('timeout');
    }, timeout);
  });
  const run = (async (): Promise<CheckOutcome> => ((await check(controller.signal)) === false ? 'failed' : 'ok'))().catch((): CheckOutcome => 'failed');
  try {
    return await Promise.race([run, expired]);
  } finally {
    clearTimeout(timer);
  }
}
