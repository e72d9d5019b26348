import type { RequestContext } from '../request-context.js';

/**
 * Who a request comes from, as a string that two requests share exactly when they come from the
 * same caller: its client key (`ctx.ip`, the address behind `trustProxy`) and the user the app's
 * middleware authenticated (`ctx.user`, else `ctx.state.user`), by a stable identity: the user
 * itself when it is a string or a number, else its `id`, else its `sub`, else the user object as
 * JSON. Without a user, the `Authorization` header as sent; without one, the caller is anonymous
 * (the client key alone). For binding something one request made (a stream reservation) to the
 * requests that may use it.
 * @example
 * if (requestIdentity(ctx) !== reservation.owner) throw new HTTPError(404, 'Stream not found');
 */
export function requestIdentity(ctx: Pick<RequestContext, 'ip' | 'user' | 'state' | 'headers'>): string {
  return JSON.stringify([ctx.ip, ...userIdentity(ctx)]);
}

function userIdentity(ctx: Pick<RequestContext, 'user' | 'state' | 'headers'>): [kind: string, value: string] {
  const user = ctx.user ?? ctx.state.user;
  if (typeof user === 'string' || typeof user === 'number' || typeof user === 'bigint') return ['user', String(user)];
  if (user !== null && typeof user === 'object') {
    const { id, sub } = user as { id?: unknown; sub?: unknown };
    if (typeof id === 'string' || typeof id === 'number') return ['id', String(id)];
    if (typeof sub === 'string' || typeof sub === 'number') return ['sub', String(sub)];
    try {
      const json = JSON.stringify(user);
      if (json !== undefined) return ['user', json];
    } catch {
      // A user that is not JSON (a cycle, a BigInt): the credentials it was read from stand for it.
    }
  }
  const authorization = ctx.headers.authorization;
  if (authorization === undefined) return ['anonymous', ''];
  return ['authorization', Array.isArray(authorization) ? authorization.join(', ') : String(authorization)];
}
