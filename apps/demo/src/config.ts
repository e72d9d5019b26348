/** The demo's settings, from environment variables with development defaults. */
export interface DemoConfig {
  /** The interface HTTP binds (HOST; `0.0.0.0` in the container). */
  host: string;
  port: number;
  /** The interface gRPC binds: GRPC_HOST, else the HTTP host. */
  grpcHost: string;
  grpcPort: number;
  /**
   * REDIS_URL: the rate limit keeps its counts in this Redis, shared by every `fw start` worker and
   * every instance. Unset: in memory, for one process (`node dist/main.js`).
   */
  redisUrl: string | undefined;
  jwtSecret: string;
  /** Requests per minute per client before 429. */
  rateLimitMax: number;
  tracingExporter: 'console' | 'otlp' | 'none';
  /** Log one line per request. */
  logRequests: boolean;
  /** SHUTDOWN_DELAY: ms a signal leaves the app up not ready before the drain (for load balancers). */
  shutdownDelay: number;
}

/** The secret the demo signs and checks its tokens with unless JWT_SECRET is set. Development only. */
export const DEV_JWT_SECRET = 'fw-demo-development-secret-change-me';
export const JWT_ISSUER = 'fw-demo';
export const JWT_AUDIENCE = 'fw-demo-api';

export function readConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  const exporter = env.TRACING_EXPORTER ?? 'none';
  if (exporter !== 'console' && exporter !== 'otlp' && exporter !== 'none') {
    throw new Error(`TRACING_EXPORTER must be console, otlp or none (got "${exporter}")`);
  }
  const host = env.HOST || '127.0.0.1';
  return {
    host,
    port: intFrom(env.PORT, 3000, 'PORT'),
    grpcHost: env.GRPC_HOST || host,
    grpcPort: intFrom(env.GRPC_PORT, 50051, 'GRPC_PORT'),
    redisUrl: env.REDIS_URL || undefined,
    jwtSecret: env.JWT_SECRET ?? DEV_JWT_SECRET,
    rateLimitMax: intFrom(env.RATE_LIMIT_MAX, 100, 'RATE_LIMIT_MAX'),
    tracingExporter: exporter,
    logRequests: env.LOG_REQUESTS !== '0',
    shutdownDelay: intFrom(env.SHUTDOWN_DELAY, 5000, 'SHUTDOWN_DELAY'),
  };
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer (got "${value}")`);
  return n;
}
