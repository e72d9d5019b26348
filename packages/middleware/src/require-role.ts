import { HTTPError, withMeta, type Next, type RequestContext, type WithMeta } from '@fw/core';
import { AUTH_REQUIRED_MESSAGE } from './defaults.js';

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
export function requireRole(role: string | readonly string[]): WithMeta<(ctx: RequestContext, next: Next) => Promise<void>> {
  const given: readonly unknown[] = typeof role === 'string' ? [role] : Array.isArray(role) ? (role as readonly unknown[]) : [];
  if (given.length === 0 || !given.every((r): r is string => typeof r === 'string' && r !== '')) {
    throw new TypeError('requireRole expects a role name or a non-empty array of role names');
  }
  // A copy, so the caller changing its list later changes neither the check nor the documentation.
  const required: readonly string[] = Object.freeze([...given]);
  const middleware = async function requireRole(ctx: RequestContext, next: Next): Promise<void> {
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
  return withMeta(middleware, { auth: true, roles: required });
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
