import { withMeta, type JwtClaims, type Middleware, type RequestContext } from '@fw/app';
import { authenticate, jwtVerifier } from '@fw/app/middleware';
import { SignJWT } from 'jose';
import { JWT_AUDIENCE, JWT_ISSUER } from './config.js';
import type { User } from './domain/types.js';

/** The user a verified token stands for, as `ctx.user` holds it. */
export interface DemoUser extends JwtClaims {
  sub: string;
  roles: string[];
}

/** Checks the demo's HS256 tokens: signature, issuer, audience and expiry. */
export function demoVerifier(secret: string) {
  return jwtVerifier({ secret, issuer: JWT_ISSUER, audience: JWT_AUDIENCE, clockTolerance: 5 });
}

/**
 * Insists on a verified user on any protocol. The app's optional `authenticate` has already verified
 * any token sent; without a user this answers 401 with `WWW-Authenticate` through the strict
 * middleware. Marked `auth` for the OpenAPI document (401/403 and the bearer requirement).
 */
export function requireAuth(verifier: ReturnType<typeof demoVerifier>): Middleware<RequestContext> {
  const strict = authenticate({ verifier });
  return withMeta<Middleware<RequestContext>>((ctx, next) => (ctx.user !== undefined ? next() : strict(ctx, next)), { auth: true });
}

/** Signs a token for a user (the demo has no login endpoint). */
export async function mintToken(user: Pick<User, 'id' | 'roles'>, secret: string, expiresIn = '12h'): Promise<string> {
  return new SignJWT({ roles: user.roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user.id)
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

/** The user id of a verified token. */
export function userIdOf(user: unknown): string | undefined {
  return typeof user === 'object' && user !== null && typeof (user as DemoUser).sub === 'string' ? (user as DemoUser).sub : undefined;
}
