import type * as Crypto from 'node:crypto';
import type * as V8 from 'node:v8';
import type { Performance } from 'node:perf_hooks';

/**
 * Node built-ins this package needs only on some paths, loaded on first use: `@fw/core` loads
 * neither, and `node:crypto` alone costs a few milliseconds of start-up, so an app that never
 * verifies a JWT, talks to Redis or logs a request does not pay for them.
 */
export function nodeCrypto(): typeof Crypto {
  return process.getBuiltinModule('node:crypto');
}

/** `node:v8`: the serializer `idempotency()` keeps a procedure call's result with (Dates, bytes and bigints intact). */
export function nodeV8(): typeof V8 {
  return process.getBuiltinModule('node:v8');
}

let perf: Performance | undefined;

/** `node:perf_hooks`' clock (not the global one, which a test's fake timers replace). */
export function now(): number {
  return (perf ??= process.getBuiltinModule('node:perf_hooks').performance).now();
}
