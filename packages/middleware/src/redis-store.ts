import { nodeCrypto } from './internal/builtins.js';
import type { IdempotencyRecord, IdempotencyStore, RateLimitHit, RateLimitStore, RedisClientLike, RedisStoreConfig } from './types.js';

/** Key prefix when `prefix` is not given. */
export const DEFAULT_REDIS_PREFIX = 'fw:rl:';
/** What the keys of `idempotency()` carry after the prefix, apart from the rate-limit counters. */
const IDEMPOTENCY_PREFIX = 'idem:';
/** Longest wait for Redis per call, in milliseconds, when `timeout` is not given. */
export const DEFAULT_REDIS_TIMEOUT = 500;

// One round trip per hit: INCR, and PEXPIRE when the key is new (or somehow lost its TTL),
// returning the count and the milliseconds left in the window. Atomic, so instances agree.
const INCREMENT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;

// Takes one hit back, never below zero and never creating a key (DECR keeps the TTL).
const DECREMENT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0
`;

/** A Lua script and its SHA-1 (what EVALSHA names it by), hashed on first use. */
class Script {
  private digest: string | undefined;
  constructor(readonly source: string) {}
  get sha(): string {
    return (this.digest ??= nodeCrypto().createHash('sha1').update(this.source).digest('hex'));
  }
}

const INCREMENT = new Script(INCREMENT_SCRIPT);
const DECREMENT = new Script(DECREMENT_SCRIPT);

/** Thrown by the Redis store when Redis fails or does not answer in time (the cause is attached). */
export class RedisStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RedisStoreError';
  }
}

/**
 * A rate-limit store in Redis, so several instances share one limit. Works with an `ioredis` 5
 * client (`Redis` or `Cluster`); each hit is one EVALSHA round trip. Every call gives up after
 * `timeout` ms so a request never waits on an unreachable Redis; what happens then is
 * `rateLimit`'s `failClosed` option (default: let the request through). The same store serves
 * `idempotency()`: its lock is one `SET key value NX PX lockTimeout GET` (atomic, so of two
 * instances racing for a key exactly one runs), its response one `SET key value PX ttl`, under
 * `<prefix>idem:`. That needs Redis 7 and a client with `set` (ioredis has it).
 * @example
 * const client = new Redis(process.env.REDIS_URL, { enableOfflineQueue: false });
 * app.use(rateLimit({ store: new RedisStore({ client, prefix: 'api:rl:' }) }));
 */
export class RedisStore implements RateLimitStore, IdempotencyStore {
  private readonly client: RedisClientLike;
  private readonly prefix: string;
  private readonly timeout: number;

  constructor(config: RedisStoreConfig) {
    if (config === null || typeof config !== 'object' || config.client === null || typeof config.client !== 'object' || typeof config.client.evalsha !== 'function') {
      throw new TypeError('RedisStore: give { client } with an ioredis client');
    }
    const prefix = config.prefix ?? DEFAULT_REDIS_PREFIX;
    if (typeof prefix !== 'string') throw new TypeError('RedisStore: prefix must be a string');
    const timeout = config.timeout ?? DEFAULT_REDIS_TIMEOUT;
    if (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout)) {
      throw new TypeError(`RedisStore: timeout must be a positive number of milliseconds, got ${String(timeout)}`);
    }
    this.client = config.client;
    this.prefix = prefix;
    this.timeout = timeout;
  }

  /** Counts one hit for `key` in Redis. */
  async increment(key: string, windowMs: number): Promise<RateLimitHit> {
    const reply = await this.run(INCREMENT, this.prefix + key, Math.max(1, Math.ceil(windowMs)));
    if (!Array.isArray(reply) || reply.length !== 2) throw new RedisStoreError(`RedisStore: unexpected reply from Redis: ${JSON.stringify(reply)}`);
    const count = Number(reply[0]);
    const ttl = Number(reply[1]);
    if (!Number.isFinite(count) || !Number.isFinite(ttl)) throw new RedisStoreError(`RedisStore: unexpected reply from Redis: ${JSON.stringify(reply)}`);
    return { count, resetAt: Date.now() + ttl };
  }

  /** Takes one hit back. */
  async decrement(key: string): Promise<void> {
    await this.run(DECREMENT, this.prefix + key);
  }

  /** Forgets `key`. */
  async reset(key: string): Promise<void> {
    await this.withTimeout(this.client.del(this.prefix + key), 'DEL');
  }

  /** Locks idempotency key `key` unless it holds something; returns what it holds (see `IdempotencyStore`). */
  async begin(key: string, fingerprint: string, lockMs: number): Promise<IdempotencyRecord | undefined> {
    const running: IdempotencyRecord = { state: 'running', fingerprint };
    // NX with GET: sets the key only when absent, and answers what was there (nil: we set it).
    const reply = await this.withTimeout(this.setter()(this.prefix + IDEMPOTENCY_PREFIX + key, JSON.stringify(running), 'PX', Math.max(1, Math.ceil(lockMs)), 'NX', 'GET'), 'SET');
    if (reply === null || reply === undefined) return undefined;
    return parseRecord(reply);
  }

  /** Stores the finished response of `key` for `ttlMs`. */
  async finish(key: string, record: IdempotencyRecord & { state: 'done' }, ttlMs: number): Promise<void> {
    await this.withTimeout(this.setter()(this.prefix + IDEMPOTENCY_PREFIX + key, JSON.stringify(record), 'PX', Math.max(1, Math.ceil(ttlMs))), 'SET');
  }

  /** Forgets idempotency key `key`. */
  async abandon(key: string): Promise<void> {
    await this.withTimeout(this.client.del(this.prefix + IDEMPOTENCY_PREFIX + key), 'DEL');
  }

  private setter(): (key: string, value: string, ...options: Array<string | number>) => Promise<unknown> {
    const client = this.client;
    if (typeof client.set !== 'function') throw new RedisStoreError('RedisStore: idempotency() needs a client with set() (an ioredis client has it)');
    const setting = client as unknown as { set(key: string, value: string, ...options: Array<string | number>): Promise<unknown> };
    return (key, value, ...options) => setting.set(key, value, ...options);
  }

  /** EVALSHA, falling back to EVAL once when Redis does not have the script cached yet. */
  private async run(code: Script, key: string, ...args: Array<string | number>): Promise<unknown> {
    try {
      return await this.withTimeout(this.client.evalsha(code.sha, 1, key, ...args), 'EVALSHA');
    } catch (err) {
      const cause = err instanceof RedisStoreError ? err.cause : err;
      if (!(cause instanceof Error) || !cause.message.startsWith('NOSCRIPT')) throw err;
    }
    return this.withTimeout(this.client.eval(code.source, 1, key, ...args), 'EVAL');
  }

  private withTimeout<T>(pending: Promise<T>, command: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RedisStoreError(`RedisStore: Redis did not answer ${command} within ${this.timeout}ms`)), this.timeout);
      pending.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(new RedisStoreError(`RedisStore: ${command} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
        },
      );
    });
  }
}

/** A stored idempotency record, checked: anything else under the key is a store failure, not a replay. */
function parseRecord(reply: unknown): IdempotencyRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(reply));
  } catch (err) {
    throw new RedisStoreError('RedisStore: an idempotency key holds something that is not JSON', { cause: err });
  }
  const record = parsed as Partial<IdempotencyRecord> | null;
  if (record === null || typeof record !== 'object' || typeof record.fingerprint !== 'string') {
    throw new RedisStoreError('RedisStore: an idempotency key holds something that is not an idempotency record');
  }
  if (record.state === 'running') return { state: 'running', fingerprint: record.fingerprint };
  const response = (record as { response?: unknown }).response as { status?: unknown; headers?: unknown; body?: unknown } | undefined;
  if (record.state !== 'done' || typeof response !== 'object' || response === null || typeof response.status !== 'number' || typeof response.body !== 'string' || typeof response.headers !== 'object' || response.headers === null) {
    throw new RedisStoreError('RedisStore: an idempotency key holds something that is not an idempotency record');
  }
  return { state: 'done', fingerprint: record.fingerprint, response: { status: response.status, headers: response.headers as Record<string, string>, body: response.body } };
}
