import type { ApplicationConfig } from '@fw/core';
import type { AppOptions, ProtocolManagerConfig } from '../create-app.js';

// Records keyed by every option name: the compiler fails here when an option is added to the
// types but not to these lists, so a valid option is never refused.
const CORE_KEYS: Record<keyof ApplicationConfig, true> = {
  bodyLimit: true,
  maxQueryKeys: true,
  maxUrlLength: true,
  maxJsonDepth: true,
  trustProxy: true,
  timeouts: true,
  closeTimeout: true,
  onLog: true,
  logUnhandledRejections: true,
  methodNotAllowed: true,
};
const APP_KEYS: Record<Exclude<keyof AppOptions, keyof ApplicationConfig>, true> = { protocols: true, adapter: true, observability: true };
const PROTOCOL_KEYS: Record<keyof ProtocolManagerConfig, true> = { graphql: true, grpc: true };
const OBSERVABILITY_KEYS: Record<keyof NonNullable<AppOptions['observability']>, true> = { tracing: true };

/** Where options written for other frameworks belong in fw; the message names the fw way. */
const HINTS: Record<string, string> = {
  port: 'pass the port to app.listen(port, host) instead, e.g. await app.listen(3000)',
  host: 'pass the host to app.listen(port, host) instead, e.g. await app.listen(3000, "0.0.0.0")',
  hostname: 'pass the host to app.listen(port, host) instead, e.g. await app.listen(3000, "0.0.0.0")',
  cors: 'add the middleware instead: app.use(cors({ origin: [...] })) (cors from @fw/app/middleware)',
  middleware: 'register middleware with app.use(mw) instead',
  middlewares: 'register middleware with app.use(mw) instead',
  onError: 'set the error handler with app.onError((error, ctx) => ...) instead',
  errorHandler: 'set the error handler with app.onError((error, ctx) => ...) instead',
  onNotFound: 'set the 404 handler with app.notFound((ctx) => ...) instead',
  notFound: 'set the 404 handler with app.notFound((ctx) => ...) instead',
  graphql: 'GraphQL is configured under protocols: createApp({ protocols: { graphql: { schema } } })',
  grpc: 'gRPC is configured under protocols: createApp({ protocols: { grpc: { services } } })',
  tracing: 'tracing is configured under observability: createApp({ observability: { tracing: { enabled: true, serviceName } } })',
};

function refuseUnknown(value: object, accepted: readonly string[], path: string, hints: Record<string, string>): void {
  for (const key of Object.keys(value)) {
    if (accepted.includes(key)) continue;
    const name = path === '' ? key : `${path}.${key}`;
    const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
    throw new TypeError(
      hint === undefined
        ? `createApp: unknown option "${name}"; the accepted ${path === '' ? 'options' : `keys of ${path}`} are: ${accepted.join(', ')}`
        : `createApp: unknown option "${name}": ${hint}`,
    );
  }
}

/**
 * Throws a TypeError for a key `createApp` does not know (top level, `protocols`, `observability`):
 * silently ignoring `port` or `cors` would leave an app on another port without its middleware.
 */
export function checkOptions(options: unknown): asserts options is AppOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`createApp: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  refuseUnknown(options, [...Object.keys(APP_KEYS), ...Object.keys(CORE_KEYS)], '', HINTS);
  const { protocols, observability } = options as AppOptions;
  if (protocols !== undefined) {
    if (protocols === null || typeof protocols !== 'object') throw new TypeError('createApp: protocols must be an object ({ graphql?, grpc? })');
    refuseUnknown(protocols, Object.keys(PROTOCOL_KEYS), 'protocols', {});
  }
  if (observability !== undefined) {
    if (observability === null || typeof observability !== 'object') throw new TypeError('createApp: observability must be an object ({ tracing? })');
    refuseUnknown(observability, Object.keys(OBSERVABILITY_KEYS), 'observability', {});
  }
}
