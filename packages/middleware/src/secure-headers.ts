import { isHttpContext, type Context, type Next, type RequestContext } from '@fw/core';
import { checkOptions } from '@fw/core/plugin';
import type { SecureHeadersConfig } from './types.js';
import { DEFAULT_CONTENT_SECURITY_POLICY, DEFAULT_STRICT_TRANSPORT_SECURITY, SECURE_HEADERS_TABLE as HEADERS } from './defaults.js';

/** The middleware `secureHeaders()` returns (HTTP only: it lets gRPC calls and other protocols' contexts through untouched). */
export type SecureHeadersMiddleware = (ctx: Context, next: Next) => Promise<void>;



type HeaderOption = keyof typeof HEADERS;

const OPTIONS = [...Object.keys(HEADERS), 'strictTransportSecurity', 'removePoweredBy'];

// helmet's names for the same headers: said instead of a guess, so a port from Express is quick.
const HINTS: Record<string, string> = {
  hsts: 'use strictTransportSecurity (the name Hono and helmet give the header)',
  frameguard: 'use xFrameOptions',
  noSniff: 'use xContentTypeOptions',
  dnsPrefetchControl: 'use xDnsPrefetchControl',
  permittedCrossDomainPolicies: 'use xPermittedCrossDomainPolicies',
  hidePoweredBy: 'use removePoweredBy',
  xPoweredBy: 'use removePoweredBy',
  xssFilter: 'use xXssProtection',
};


/**
 * Security response headers for an API (what helmet and Hono's `secureHeaders` send, with an API's
 * strictest policy): `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`,
 * `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`,
 * `Cross-Origin-Opener-Policy` and `Cross-Origin-Resource-Policy: same-origin`,
 * `X-DNS-Prefetch-Control: off`, `X-Permitted-Cross-Domain-Policies: none`, and, on requests that
 * came over https (`ctx.secure`: TLS, or a proxy `trustProxy` trusts saying so),
 * `Strict-Transport-Security: max-age=15552000; includeSubDomains`. `X-Powered-By` is removed.
 * Each option takes a value of its own, `false` (not sent) or `true` (its default, for those off by
 * default). The headers are set before the route runs, so error answers and streams carry them and
 * a route that sets one itself (a page with its own `Content-Security-Policy`) keeps its own.
 * @example
 * app.use(secureHeaders());
 * app.use(secureHeaders({ xFrameOptions: 'SAMEORIGIN', contentSecurityPolicy: { defaultSrc: ["'self'"] } }));
 */
export function secureHeaders(config: SecureHeadersConfig = {}): SecureHeadersMiddleware {
  if (config === null || typeof config !== 'object') throw new TypeError('secureHeaders: config must be an object');
  checkOptions(config, OPTIONS, { owner: 'secureHeaders', hints: HINTS });
  const names: string[] = [];
  const values: string[] = [];
  for (const option of Object.keys(HEADERS) as HeaderOption[]) {
    const [name, fallback, on] = HEADERS[option];
    const given = config[option];
    const value = option === 'contentSecurityPolicy' ? cspValue(config.contentSecurityPolicy) : headerValue(option, given, fallback, on);
    if (value === undefined) continue;
    names.push(name);
    values.push(value);
  }
  const { hsts, always } = hstsValue(config.strictTransportSecurity);
  const removePoweredBy = config.removePoweredBy ?? true;
  if (typeof removePoweredBy !== 'boolean') throw new TypeError('secureHeaders: removePoweredBy must be a boolean');
  const count = names.length;

  // Typed on every context because the gRPC package runs the app's middleware on its calls too.
  return function secureHeaders(ctx: RequestContext, next: Next): Promise<void> {
    if (!isHttpContext(ctx)) return next();
    const res = ctx.res;
    if (res.headersSent) return next();
    for (let i = 0; i < count; i++) res.setHeader(names[i]!, values[i]!);
    if (hsts !== undefined && (always || ctx.secure)) res.setHeader('strict-transport-security', hsts);
    if (!removePoweredBy) return next();
    res.removeHeader('x-powered-by');
    // A handler may have set it too; what goes out is decided after the chain.
    return next().finally(() => {
      if (!res.headersSent) res.removeHeader('x-powered-by');
    });
  };
}

/** The value an option sends: its own string, its default (`true`, or not given when on by default), or none. */
function headerValue(option: string, given: unknown, fallback: string | undefined, on: boolean): string | undefined {
  if (given === undefined) return on ? fallback : undefined;
  if (given === false) return undefined;
  if (given === true) {
    if (fallback === undefined) throw new TypeError(`secureHeaders: ${option} has no default value; give the header value as a string`);
    return fallback;
  }
  if (typeof given !== 'string') throw new TypeError(`secureHeaders: ${option} must be a string, true or false`);
  return checkedValue(option, given);
}

/** A header value without characters that could split it or that HTTP refuses. */
function checkedValue(option: string, value: string): string {
  const trimmed = value.trim();
  // Visible ASCII, spaces and tabs only (RFC 9110 field-value, without obs-text).
  if (trimmed === '' || !/^[\t\x20-\x7e]+$/.test(trimmed)) {
    throw new TypeError(`secureHeaders: ${option} must be a non-empty header value of visible ASCII characters, got ${JSON.stringify(value)}`);
  }
  return trimmed;
}

/** `contentSecurityPolicy`: a policy as written, or directives by their camelCase names (`defaultSrc`), or true/false. */
function cspValue(given: SecureHeadersConfig['contentSecurityPolicy']): string | undefined {
  if (given === undefined || given === true) return DEFAULT_CONTENT_SECURITY_POLICY;
  if (given === false) return undefined;
  if (typeof given === 'string') return checkedValue('contentSecurityPolicy', given);
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new TypeError('secureHeaders: contentSecurityPolicy must be a string, an object of directives ({ defaultSrc: ["\'self\'"] }), true or false');
  }
  const parts: string[] = [];
  for (const [key, sources] of Object.entries(given)) {
    if (sources === undefined || sources === false) continue;
    if (!/^[a-zA-Z][a-zA-Z0-9-]*$/.test(key)) throw new TypeError(`secureHeaders: contentSecurityPolicy has an invalid directive name ${JSON.stringify(key)}`);
    const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const list = sources === true ? [] : typeof sources === 'string' ? [sources] : Array.isArray(sources) ? sources : undefined;
    if (list === undefined) throw new TypeError(`secureHeaders: contentSecurityPolicy.${key} must be a string, a list of sources or true`);
    for (const source of list as unknown[]) {
      // `;` and `,` would end the directive or the policy: a source that holds one is a mistake.
      if (typeof source !== 'string' || source.trim() === '' || /[;,]/.test(source)) {
        throw new TypeError(`secureHeaders: contentSecurityPolicy.${key} has an invalid source ${JSON.stringify(source)}`);
      }
    }
    parts.push([name, ...(list as string[]).map((s) => s.trim())].join(' '));
  }
  if (parts.length === 0) throw new TypeError('secureHeaders: contentSecurityPolicy has no directives; give at least one, or false to send none');
  return checkedValue('contentSecurityPolicy', parts.join('; '));
}

/**
 * `strictTransportSecurity`: not given, its default on https requests only; `false`, never; `true`,
 * a string or `{ maxAge, includeSubDomains, preload }`, that value on every answer (for TLS ended
 * at a proxy the app does not trust; browsers ignore the header on plain http, RFC 6797 §8.1).
 */
function hstsValue(given: SecureHeadersConfig['strictTransportSecurity']): { hsts: string | undefined; always: boolean } {
  if (given === undefined) return { hsts: DEFAULT_STRICT_TRANSPORT_SECURITY, always: false };
  if (given === false) return { hsts: undefined, always: false };
  if (given === true) return { hsts: DEFAULT_STRICT_TRANSPORT_SECURITY, always: true };
  if (typeof given === 'string') return { hsts: checkedValue('strictTransportSecurity', given), always: true };
  if (given === null || typeof given !== 'object') throw new TypeError('secureHeaders: strictTransportSecurity must be a string, { maxAge, includeSubDomains, preload }, true or false');
  checkOptions(given, ['maxAge', 'includeSubDomains', 'preload'], { owner: 'secureHeaders', path: 'strictTransportSecurity' });
  const { maxAge = 15_552_000, includeSubDomains = true, preload = false } = given;
  if (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0) {
    throw new TypeError(`secureHeaders: strictTransportSecurity.maxAge must be a whole number of seconds >= 0, got ${String(maxAge)}`);
  }
  if (typeof includeSubDomains !== 'boolean') throw new TypeError('secureHeaders: strictTransportSecurity.includeSubDomains must be a boolean');
  if (typeof preload !== 'boolean') throw new TypeError('secureHeaders: strictTransportSecurity.preload must be a boolean');
  const value = `max-age=${maxAge}${includeSubDomains ? '; includeSubDomains' : ''}${preload ? '; preload' : ''}`;
  return { hsts: value, always: true };
}
