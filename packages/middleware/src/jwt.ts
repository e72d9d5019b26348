import type { KeyObject, webcrypto } from 'node:crypto';
import { HTTPError } from '@fw/core';
import type * as JoseModule from 'jose';
import type { JWTVerifyGetKey, JWTVerifyOptions, KeyInput } from 'jose';
import type { JwtClaims, JwtVerifier, JwtVerifierConfig, PublicKeyInput } from './types.js';
import { nodeCrypto } from './internal/builtins.js';
import { DEFAULT_JWKS_ALGORITHMS, MISSING_EXP_MESSAGE } from './defaults.js';


type Jose = typeof JoseModule;
let jose: Promise<Jose> | undefined;

/**
 * Loads jose on first use: it is ESM-only, and a CommonJS user of this package who never verifies
 * a JWT should not need it at all. Hosts that cannot `import()` from CommonJS (jest without
 * --experimental-vm-modules) get `require`, which works where require(esm) does. If neither works
 * the verifier fails with a 500 that says why, never with a misleading 401.
 */
function loadJose(): Promise<Jose> {
  return (jose ??= import('jose').catch((importError: unknown) => {
    if (typeof require === 'function') {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS fallback described above, for hosts without import()
        return require('jose') as Jose;
      } catch {
        // Report the import() failure below: it is the primary way of loading jose.
      }
    }
    throw new HTTPError(500, 'jwtVerifier: could not load the jose library (ESM-only; under jest, let the transform compile node_modules/jose or run with --experimental-vm-modules)', undefined, { cause: importError, expose: false });
  }));
}


/** The options that each give the verifier its key; exactly one is set. */
const KEY_OPTIONS = ['secret', 'publicKey', 'jwksUrl'] as const;

// JWKS errors that mean "the key server is unreachable or broken", not "the token is bad".
const KEY_SERVER_ERRORS = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

/**
 * A token verifier for `authenticate` built on `jose`: checks the signature (HS256 secret,
 * RS256/ES256/EdDSA public key, or a remote JWKS), `exp` (required unless `requireExp: false`,
 * since a token without one is valid forever) and `nbf`, and optionally `iss`/`aud`, and
 * returns the claims, which `authenticate` puts in `ctx.user` (`ctx.user.sub` is the subject).
 * When the JWKS cannot be fetched the verifier throws a 503 instead of calling the token invalid.
 * @example
 * const verify = jwtVerifier({ jwksUrl: 'https://auth.example.com/.well-known/jwks.json', issuer: 'https://auth.example.com/', audience: 'api' });
 * app.use(authenticate(verify));
 */
export function jwtVerifier(config: JwtVerifierConfig): JwtVerifier {
  if (config === null || typeof config !== 'object') throw new TypeError('jwtVerifier expects options: { secret } or { publicKey } or { jwksUrl }');
  const given = [config.secret, config.publicKey, config.jwksUrl].filter((value) => value !== undefined).length;
  if (given === 0) {
    // `{ secret: process.env.JWT_SECRET }` with the variable unset: the key was given, its value is missing.
    const named = KEY_OPTIONS.find((key) => Object.hasOwn(config, key));
    if (named !== undefined) throw new TypeError(`jwtVerifier: ${named} is undefined (is the environment variable set?)`);
  }
  if (given !== 1) throw new TypeError('jwtVerifier: give exactly one of secret, publicKey or jwksUrl');

  let key: KeyInput | undefined;
  let jwksUrl: URL | undefined;
  let defaultAlgorithms: readonly string[];
  if (config.secret !== undefined) {
    key = secretBytes(config.secret);
    defaultAlgorithms = ['HS256'];
  } else if (config.publicKey !== undefined) {
    const parsed = publicKey(config.publicKey);
    key = parsed.key;
    defaultAlgorithms = parsed.algorithms;
  } else {
    jwksUrl = parseUrl(config.jwksUrl!);
    defaultAlgorithms = DEFAULT_JWKS_ALGORITHMS;
  }

  const algorithms: readonly string[] = config.algorithms ?? defaultAlgorithms;
  if (!isNameList(algorithms)) {
    throw new TypeError('jwtVerifier: algorithms must be a non-empty array of algorithm names');
  }
  const symmetric = config.secret !== undefined;
  for (const alg of algorithms) {
    if (alg.toLowerCase() === 'none') throw new TypeError('jwtVerifier: the "none" algorithm is never accepted');
    // Mixing HMAC and public-key algorithms is the classic algorithm-confusion hole.
    if (symmetric !== alg.startsWith('HS')) {
      throw new TypeError(`jwtVerifier: algorithm ${alg} does not fit ${symmetric ? 'a secret (use HS256/HS384/HS512)' : 'a public key (HS* needs a secret)'}`);
    }
  }
  const clockTolerance = config.clockTolerance ?? 0;
  if (typeof clockTolerance !== 'number' || !Number.isFinite(clockTolerance) || clockTolerance < 0) {
    throw new TypeError('jwtVerifier: clockTolerance must be a number of seconds >= 0');
  }

  const requireExp = config.requireExp ?? true;
  if (typeof requireExp !== 'boolean') throw new TypeError('jwtVerifier: requireExp must be a boolean');

  const options: JWTVerifyOptions = { algorithms: [...algorithms], clockTolerance };
  if (config.issuer !== undefined) options.issuer = typeof config.issuer === 'string' ? config.issuer : [...config.issuer];
  if (config.audience !== undefined) options.audience = typeof config.audience === 'string' ? config.audience : [...config.audience];
  if (config.requiredClaims !== undefined) options.requiredClaims = [...config.requiredClaims];

  const jwks = config.jwks ?? {};
  let remoteKeys: Promise<JWTVerifyGetKey> | undefined;
  const remote = (): Promise<JWTVerifyGetKey> =>
    (remoteKeys ??= loadJose().then(({ createRemoteJWKSet }) => {
      const remoteOptions: Parameters<typeof createRemoteJWKSet>[1] = {};
      if (jwks.timeout !== undefined) remoteOptions.timeoutDuration = jwks.timeout;
      if (jwks.cooldown !== undefined) remoteOptions.cooldownDuration = jwks.cooldown;
      if (jwks.cacheMaxAge !== undefined) remoteOptions.cacheMaxAge = jwks.cacheMaxAge;
      return createRemoteJWKSet(jwksUrl!, remoteOptions);
    }));

  /** Claims of a verified token (signature and present time claims checked by jose). */
  const accepted = (claims: JwtClaims): JwtClaims => {
    // A 401 with its own message; authenticate adds the invalid_token challenge.
    if (requireExp && claims.exp === undefined) throw new HTTPError(401, MISSING_EXP_MESSAGE);
    return claims;
  };

  return async function verifyJwt(token: string): Promise<JwtClaims> {
    const { jwtVerify } = await loadJose();
    if (jwksUrl === undefined) return accepted((await jwtVerify<JwtClaims>(token, key!, options)).payload);
    let claims: JwtClaims;
    try {
      claims = (await jwtVerify<JwtClaims>(token, await remote(), options)).payload;
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (typeof code !== 'string' || !code.startsWith('ERR_J') || KEY_SERVER_ERRORS.has(code)) {
        throw new HTTPError(503, 'Token verification is temporarily unavailable', undefined, { cause: err });
      }
      throw err;
    }
    return accepted(claims);
  };
}

/** Whether `value` is a non-empty array of non-empty strings (options may come from untyped config). */
function isNameList(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && (value as unknown[]).every((name) => typeof name === 'string' && name !== '');
}

function secretBytes(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new TypeError('jwtVerifier: secret must be a non-empty string or Uint8Array');
  return bytes;
}

function parseUrl(url: string | URL): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new TypeError(`unsupported protocol ${parsed.protocol}`);
    return parsed;
  } catch (err) {
    throw new TypeError(`jwtVerifier: jwksUrl must be an http(s) URL, got ${String(url)}`, { cause: err });
  }
}

/** Turns any accepted public-key form into something jose takes, with its natural algorithms. */
function publicKey(input: PublicKeyInput): { key: KeyInput; algorithms: string[] } {
  if (isCryptoKey(input)) {
    if (input.type !== 'public') throw new TypeError('jwtVerifier: publicKey must be a public CryptoKey');
    return { key: input, algorithms: algorithmsOfCryptoKey(input) };
  }
  const { createPublicKey, KeyObject } = nodeCrypto();
  let keyObject: KeyObject;
  let jwkAlg: string | undefined;
  try {
    if (input instanceof KeyObject) {
      if (input.type === 'secret') throw new TypeError('a secret KeyObject is not a public key (use the secret option)');
      keyObject = input.type === 'private' ? createPublicKey(input) : input;
    } else if (typeof input === 'string') {
      keyObject = createPublicKey(input);
    } else if (input !== null && typeof input === 'object' && typeof input.kty === 'string') {
      if (input.kty === 'oct') throw new TypeError('an "oct" JWK is a shared secret (use the secret option)');
      keyObject = createPublicKey({ key: input, format: 'jwk' });
      if (typeof input.alg === 'string') jwkAlg = input.alg;
    } else {
      throw new TypeError('expected a KeyObject, a CryptoKey, a PEM string or a JWK');
    }
  } catch (err) {
    throw new TypeError(`jwtVerifier: invalid publicKey: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return { key: keyObject, algorithms: jwkAlg !== undefined ? [jwkAlg] : algorithmsOfKeyObject(keyObject) };
}

function isCryptoKey(value: unknown): value is webcrypto.CryptoKey {
  return value !== null && typeof value === 'object' && (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'CryptoKey';
}

const CURVE_ALGORITHMS: Record<string, string> = { prime256v1: 'ES256', 'P-256': 'ES256', secp384r1: 'ES384', 'P-384': 'ES384', secp521r1: 'ES512', 'P-521': 'ES512' };

function algorithmsOfKeyObject(key: KeyObject): string[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256'];
    case 'rsa-pss':
      return ['PS256'];
    case 'ec': {
      const alg = CURVE_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (alg !== undefined) return [alg];
      break;
    }
    case 'ed25519':
      return ['EdDSA', 'Ed25519'];
  }
  throw new TypeError(`jwtVerifier: cannot tell the algorithm of a ${String(key.asymmetricKeyType)} key; pass algorithms`);
}

function algorithmsOfCryptoKey(key: webcrypto.CryptoKey): string[] {
  const algorithm = key.algorithm as { name: string; hash?: { name: string }; namedCurve?: string };
  const bits = algorithm.hash?.name.replace('SHA-', '');
  switch (algorithm.name) {
    case 'RSASSA-PKCS1-v1_5':
      return [`RS${bits ?? '256'}`];
    case 'RSA-PSS':
      return [`PS${bits ?? '256'}`];
    case 'ECDSA': {
      const alg = CURVE_ALGORITHMS[algorithm.namedCurve ?? ''];
      if (alg !== undefined) return [alg];
      break;
    }
    case 'Ed25519':
      return ['EdDSA', 'Ed25519'];
  }
  throw new TypeError(`jwtVerifier: cannot tell the algorithm of a ${algorithm.name} CryptoKey; pass algorithms`);
}
