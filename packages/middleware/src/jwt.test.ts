import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { Application } from '@fw/core';
import { send, start, type TestResponse } from '../test/http.js';
import { authenticate, jwtVerifier, MISSING_EXP_MESSAGE } from './index.js';
import type { JwtVerifierConfig } from './index.js';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long!';
const secretKey = new TextEncoder().encode(SECRET);
const now = (): number => Math.floor(Date.now() / 1000);

function sign(payload: JWTPayload, key: KeyObject | CryptoKey | Uint8Array, alg: string, options: { kid?: string; exp?: number | string } = {}): Promise<string> {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg, ...(options.kid === undefined ? {} : { kid: options.kid }) }).setIssuedAt();
  if (options.exp !== undefined) jwt.setExpirationTime(options.exp);
  else jwt.setExpirationTime('5m');
  return jwt.sign(key);
}

/** One app per verifier config: GET /me behind authenticate(jwtVerifier(config)). */
async function withJwt(config: JwtVerifierConfig, fn: (call: (token: string) => Promise<TestResponse>) => Promise<void>): Promise<void> {
  const app = new Application({ onLog: () => undefined });
  app.get('/me', authenticate(jwtVerifier(config)), (ctx) => ctx.json({ user: ctx.user }));
  const url = await start(app);
  try {
    await fn((token) => send(`${url}/me`, { headers: { authorization: `Bearer ${token}` } }));
  } finally {
    await app.close();
  }
}

const expectInvalid = (res: TestResponse): void => {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  expect(res.json()).toEqual({ error: true, message: 'Invalid or expired token', code: 401 });
};

describe('jwtVerifier with an HS256 secret', () => {
  it('puts the claims in ctx.user, so ctx.user.sub is the subject', async () => {
    await withJwt({ secret: SECRET }, async (call) => {
      const res = await call(await sign({ sub: 'user-1', roles: ['admin'] }, secretKey, 'HS256'));
      expect(res.status).toBe(200);
      const { user } = res.json() as { user: Record<string, unknown> };
      expect(user.sub).toBe('user-1');
      expect(user.roles).toEqual(['admin']);
      expect(typeof user.exp).toBe('number');
    });
  });

  it('accepts the secret as bytes too', async () => {
    await withJwt({ secret: secretKey }, async (call) => {
      expect((await call(await sign({ sub: 'b' }, secretKey, 'HS256'))).status).toBe(200);
    });
  });

  it('rejects a token signed with another secret, a tampered token and garbage', async () => {
    await withJwt({ secret: SECRET }, async (call) => {
      expectInvalid(await call(await sign({ sub: 'x' }, new TextEncoder().encode('another-secret-another-secret-another'), 'HS256')));
      const [header, , signature] = (await sign({ sub: 'x' }, secretKey, 'HS256')).split('.');
      const forged = Buffer.from(JSON.stringify({ sub: 'admin', exp: now() + 60 })).toString('base64url');
      expectInvalid(await call(`${header}.${forged}.${signature}`));
      expectInvalid(await call('not.a.jwt'));
    });
  });

  it('rejects an expired token and one not yet valid', async () => {
    await withJwt({ secret: SECRET }, async (call) => {
      expectInvalid(await call(await sign({ sub: 'x' }, secretKey, 'HS256', { exp: now() - 10 })));
      const early = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).setNotBefore(now() + 60).setExpirationTime('5m').sign(secretKey);
      expectInvalid(await call(early));
    });
  });

  it('allows clockTolerance seconds of skew', async () => {
    const token = await sign({ sub: 'x' }, secretKey, 'HS256', { exp: now() - 5 });
    await withJwt({ secret: SECRET, clockTolerance: 30 }, async (call) => {
      expect((await call(token)).status).toBe(200);
    });
  });

  it('checks issuer and audience when given', async () => {
    const config: JwtVerifierConfig = { secret: SECRET, issuer: 'https://auth.example', audience: ['api', 'admin-api'] };
    await withJwt(config, async (call) => {
      expect((await call(await sign({ sub: 'x', iss: 'https://auth.example', aud: 'api' }, secretKey, 'HS256'))).status).toBe(200);
      expectInvalid(await call(await sign({ sub: 'x', iss: 'https://evil.example', aud: 'api' }, secretKey, 'HS256')));
      expectInvalid(await call(await sign({ sub: 'x', iss: 'https://auth.example', aud: 'other' }, secretKey, 'HS256')));
      expectInvalid(await call(await sign({ sub: 'x', aud: 'api' }, secretKey, 'HS256')));
    });
  });

  it('accepts only HS256 by default and follows the algorithms allow-list', async () => {
    const hs512 = await sign({ sub: 'x' }, secretKey, 'HS512');
    await withJwt({ secret: SECRET }, async (call) => {
      expectInvalid(await call(hs512));
    });
    await withJwt({ secret: SECRET, algorithms: ['HS512'] }, async (call) => {
      expect((await call(hs512)).status).toBe(200);
      expectInvalid(await call(await sign({ sub: 'x' }, secretKey, 'HS256')));
    });
  });

  it('never accepts an unsigned token', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'admin', exp: now() + 60 })).toString('base64url');
    await withJwt({ secret: SECRET }, async (call) => {
      expectInvalid(await call(`${header}.${payload}.`));
    });
  });

  it('rejects a token without exp by default with a 401 that says so', async () => {
    const forever = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(secretKey);
    await withJwt({ secret: SECRET }, async (call) => {
      const res = await call(forever);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(res.json()).toEqual({ error: true, message: MISSING_EXP_MESSAGE, code: 401 });
      expect(MISSING_EXP_MESSAGE).toMatch(/exp/);
      // A badly signed token without exp is just invalid: the claims of an unverified token are never read.
      expectInvalid(await call(await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('another-secret-another-secret-another'))));
    });
  });

  it('accepts a token without exp with requireExp: false, and still checks exp when it is there', async () => {
    const forever = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(secretKey);
    await withJwt({ secret: SECRET, requireExp: false }, async (call) => {
      expect((await call(forever)).status).toBe(200);
      expectInvalid(await call(await sign({ sub: 'x' }, secretKey, 'HS256', { exp: now() - 10 })));
    });
  });

  it('requires the claims listed in requiredClaims', async () => {
    await withJwt({ secret: SECRET, requiredClaims: ['sub'] }, async (call) => {
      expectInvalid(await call(await sign({ name: 'no subject' }, secretKey, 'HS256')));
      expect((await call(await sign({ sub: 'x' }, secretKey, 'HS256'))).status).toBe(200);
    });
  });
});

// Key generation is slow; one RSA pair serves every test that needs one.
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('jwtVerifier with a public key', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsaPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();

  it('verifies RS256 with a KeyObject', async () => {
    await withJwt({ publicKey: rsa.publicKey }, async (call) => {
      const res = await call(await sign({ sub: 'rsa-user' }, rsa.privateKey, 'RS256'));
      expect(res.status).toBe(200);
      expect((res.json() as { user: { sub: string } }).user.sub).toBe('rsa-user');
    });
  });

  it('verifies RS256 with a PEM string and with a JWK', async () => {
    const token = await sign({ sub: 'pem-user' }, rsa.privateKey, 'RS256');
    await withJwt({ publicKey: rsaPem }, async (call) => {
      expect((await call(token)).status).toBe(200);
    });
    const jwk = rsa.publicKey.export({ format: 'jwk' });
    await withJwt({ publicKey: { ...jwk, kty: 'RSA' } }, async (call) => {
      expect((await call(token)).status).toBe(200);
    });
  });

  it('verifies ES256 with a PEM string and a CryptoKey', async () => {
    const token = await sign({ sub: 'ec-user' }, ec.privateKey, 'ES256');
    await withJwt({ publicKey: ec.publicKey.export({ type: 'spki', format: 'pem' }).toString() }, async (call) => {
      expect((await call(token)).status).toBe(200);
      // RS256 is not ES256's algorithm: refused even before the signature is checked.
      expectInvalid(await call(await sign({ sub: 'x' }, rsa.privateKey, 'RS256')));
    });
    const pair = await generateKeyPair('ES256');
    await withJwt({ publicKey: pair.publicKey }, async (call) => {
      expect((await call(await sign({ sub: 'crypto-key' }, pair.privateKey, 'ES256'))).status).toBe(200);
      expectInvalid(await call(token));
    });
  });

  it('rejects a token signed by another key', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await withJwt({ publicKey: rsa.publicKey }, async (call) => {
      expectInvalid(await call(await sign({ sub: 'x' }, other.privateKey, 'RS256')));
    });
  });

  it('refuses an HS256 token made with the public key as the secret (algorithm confusion)', async () => {
    const forged = await sign({ sub: 'admin' }, new TextEncoder().encode(rsaPem), 'HS256');
    await withJwt({ publicKey: rsaPem }, async (call) => {
      expectInvalid(await call(forged));
    });
  });
});

describe('jwtVerifier with a JWKS URL', () => {
  let server: Server;
  let jwksUrl: string;
  let fetches = 0;
  let signingKey: CryptoKey;
  let unknownKey: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    const other = await generateKeyPair('RS256');
    signingKey = pair.privateKey;
    unknownKey = other.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    server = createServer((req, res) => {
      fetches++;
      if (req.url !== '/.well-known/jwks.json') {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('verifies tokens against the remote key set, fetching it once for many requests', async () => {
    fetches = 0;
    await withJwt({ jwksUrl, issuer: 'https://auth.example' }, async (call) => {
      for (let i = 0; i < 3; i++) {
        const res = await call(await sign({ sub: `jwks-${i}`, iss: 'https://auth.example' }, signingKey, 'RS256', { kid: 'key-1' }));
        expect(res.status).toBe(200);
        expect((res.json() as { user: { sub: string } }).user.sub).toBe(`jwks-${i}`);
      }
    });
    expect(fetches).toBe(1);
  });

  it('rejects a token whose key is not in the set', async () => {
    await withJwt({ jwksUrl, jwks: { cooldown: 0 } }, async (call) => {
      expectInvalid(await call(await sign({ sub: 'x' }, unknownKey, 'RS256', { kid: 'key-2' })));
      expectInvalid(await call(await sign({ sub: 'x' }, unknownKey, 'RS256', { kid: 'key-1' })));
    });
  });

  it('answers 503 (not 401) when the key set cannot be fetched', async () => {
    const token = await sign({ sub: 'x' }, signingKey, 'RS256', { kid: 'key-1' });
    await withJwt({ jwksUrl: jwksUrl.replace('jwks.json', 'missing.json') }, async (call) => {
      const res = await call(token);
      expect(res.status).toBe(503);
      expect(res.json()).toEqual({ error: true, message: 'Token verification is temporarily unavailable', code: 503 });
      expect(res.headers['www-authenticate']).toBeUndefined();
    });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks.json`;
    await new Promise((resolve) => closed.close(resolve));
    await withJwt({ jwksUrl: deadUrl, jwks: { timeout: 1000 } }, async (call) => {
      expect((await call(token)).status).toBe(503);
    });
  });
});

describe('jwtVerifier configuration', () => {

  it('needs exactly one key source', () => {
    expect(() => jwtVerifier({})).toThrow(/exactly one of secret, publicKey or jwksUrl/);
    expect(() => jwtVerifier({ secret: SECRET, jwksUrl: 'https://a.example/jwks' })).toThrow(/exactly one/);
  });

  it('says which key option is undefined, as when the environment variable it reads is not set', () => {
    const env: Record<string, string | undefined> = {};
    expect(() => jwtVerifier({ secret: env.JWT_SECRET })).toThrow('jwtVerifier: secret is undefined (is the environment variable set?)');
    expect(() => jwtVerifier({ publicKey: env.JWT_PUBLIC_KEY })).toThrow('jwtVerifier: publicKey is undefined (is the environment variable set?)');
    expect(() => jwtVerifier({ jwksUrl: env.JWKS_URL, issuer: 'https://auth.example' })).toThrow('jwtVerifier: jwksUrl is undefined (is the environment variable set?)');
    // One given and another undefined is fine: the undefined one is simply not used.
    expect(() => jwtVerifier({ secret: SECRET, publicKey: env.JWT_PUBLIC_KEY })).not.toThrow();
  });

  it('refuses algorithms that do not fit the key, and "none"', () => {
    expect(() => jwtVerifier({ secret: SECRET, algorithms: ['RS256'] })).toThrow(/RS256 does not fit a secret/);
    expect(() => jwtVerifier({ publicKey: rsa.publicKey, algorithms: ['HS256'] })).toThrow(/HS256 does not fit a public key/);
    expect(() => jwtVerifier({ secret: SECRET, algorithms: ['none'] })).toThrow(/never accepted/);
    expect(() => jwtVerifier({ secret: SECRET, algorithms: [] })).toThrow(/non-empty/);
  });

  it('refuses bad keys and URLs', () => {
    expect(() => jwtVerifier({ secret: '' })).toThrow(/non-empty/);
    expect(() => jwtVerifier({ publicKey: 'not a pem' })).toThrow(/invalid publicKey/);
    expect(() => jwtVerifier({ publicKey: { kty: 'oct', k: 'abc' } })).toThrow(/use the secret option/);
    expect(() => jwtVerifier({ jwksUrl: 'ftp://a.example/jwks' })).toThrow(/http\(s\) URL/);
    expect(() => jwtVerifier({ secret: SECRET, clockTolerance: -1 })).toThrow(/clockTolerance/);
    expect(() => jwtVerifier({ secret: SECRET, requireExp: 'no' as unknown as boolean })).toThrow(/requireExp must be a boolean/);
  });

  it('derives public key from a private key given by mistake', async () => {
    await withJwt({ publicKey: rsa.privateKey }, async (call) => {
      expect((await call(await sign({ sub: 'x' }, rsa.privateKey, 'RS256'))).status).toBe(200);
    });
  });
});
