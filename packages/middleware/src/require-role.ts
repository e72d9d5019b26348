import { HTTPError, ROUTE_META, type Next } from '@fw/core';
import { AUTH_REQUIRED_MESSAGE } from './authenticate.js';
import type { ProtocolContext, ProtocolMiddleware } from './types.js';

/** Message of the 403 when the user lacks every required role. */
export const INSUFFICIENT_ROLE_MESSAGE = 'Insufficient permissions';

/**
 * Lets the request through when the user has at least one of `role` (any-of). The user is
 * `ctx.user` (or `ctx.state.user` as custom auth middleware may set); its roles are read from
 * `user.roles` (array, or a space/comma separated string) and `user.role` (one name, or an array).
 * No user → 401 with `WWW-Authenticate: Bearer`; a user without the role → 403. Put it after
 * `authenticate`. Works for HTTP, GraphQL and gRPC contexts.
 * @example
 * app.delete('/users/:id', authenticate, requireRole('admin'), removeUser);
 */
export function requireRole(role: string | readonly string[]): ProtocolMiddleware {
  const required = typeof role === 'string' ? [role] : Array.isArray(role) ? [...role] : [];
  if (required.length === 0 || required.some((r) => typeof r !== 'string' || r === '')) {
    throw new TypeError('requireRole expects a role name or a non-empty array of role names');
  }
  const middleware = async function requireRole(ctx: ProtocolContext, next: Next): Promise<void> {
    const user = ctx.user ?? ctx.state.user;
    if (user === undefined || user === null) {
      throw new HTTPError(401, AUTH_REQUIRED_MESSAGE, undefined, { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    const roles = rolesOf(user);
    if (!required.some((r) => roles.includes(r))) {
      throw new HTTPError(403, INSUFFICIENT_ROLE_MESSAGE, undefined, { headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' } });
    }
    return next();
  };
  return Object.assign(middleware, { [ROUTE_META]: { auth: true, roles: required } });
}

/** The role names a user carries in `roles` and `role`. */
export function rolesOf(user: unknown): string[] {
  if (user === null || typeof user !== 'object') return [];
  const { roles, role } = user as { roles?: unknown; role?: unknown };
  return [...names(roles, true), ...names(role, false)];
}

function names(value: unknown, split: boolean): string[] {
  if (typeof value === 'string') return split ? value.split(/[\s,]+/).filter((name) => name !== '') : [value];
  if (Array.isArray(value)) return value.filter((name): name is string => typeof name === 'string');
  return [];
}
