// The demo as its container runs it: `fw start dist/app.js --workers 2` (apps/demo/deploy/Dockerfile),
// with REDIS_URL pointing at a real redis-server, answering on REST and gRPC from both workers
// with one rate limit that both share.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { readConfig } from '../src/config.js';
import { freePort, startRedis, type RedisServer } from '../../../tooling/testing/redis.js';
import { catalogClient, metadata, unary, type BookMessage, type CatalogClient } from './grpc-client.js';

jest.setTimeout(60_000);

const DEMO = join(__dirname, '..');
const FW = join(DEMO, 'node_modules', '@fw', 'app', 'bin', 'fw.mjs');
const LIMIT = 12;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a connection of its own, so that the primary hands it to the next worker. */
function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('the demo under fw start --workers 2 with REDIS_URL', () => {
  let redis: RedisServer;
  let child: ChildProcess;
  let output = '';
  let url: string;
  let grpcTarget: string;
  let client: CatalogClient;

  beforeAll(async () => {
    redis = await startRedis();
    child = spawn(process.execPath, [FW, 'start', 'dist/app.js', '--workers', '2', '--port', '0'], {
      cwd: DEMO,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        GRPC_PORT: String(await freePort()),
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        RATE_LIMIT_MAX: String(LIMIT),
        LOG_REQUESTS: '0',
        SHUTDOWN_DELAY: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = /serving (http:\/\/\S+), gRPC on (\S+) /.exec(output);
      if (ready !== null) {
        [, url, grpcTarget] = ready as unknown as [string, string, string];
        break;
      }
      if (child.exitCode !== null) throw new Error(`fw start exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`fw start did not serve within 30 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    client = catalogClient(grpcTarget);
  });

  afterAll(async () => {
    client?.close();
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await redis?.stop();
  });

  it('starts both workers (the memory store would refuse to) and serves gRPC on the host HTTP binds', () => {
    expect(output).toMatch(/fw: 2 workers serving http:\/\/127\.0\.0\.1:\d+, gRPC on 127\.0\.0\.1:\d+ /);
    expect(output).not.toMatch(/failed/);
  });

  it('answers a gRPC call', async () => {
    const reply = await unary<{ book: BookMessage }>((cb) => client.GetBook({ id: 'b1' }, metadata(), cb));
    expect(reply.book).toMatchObject({ id: 'b1', title: expect.any(String) });
  });

  it('answers REST from both workers, counting every request against one limit kept in Redis', async () => {
    const requestIds: string[] = [];
    const remaining: number[] = [];
    let answer: Answer;
    for (;;) {
      answer = await get(`${url}/api/v1/books`);
      if (answer.status !== 200) break;
      remaining.push(Number(answer.headers['x-ratelimit-remaining']));
      requestIds.push(String(answer.headers['x-request-id']));
    }
    // Each worker numbers its own requests (req-1, req-2, ...): a number seen twice came from both.
    expect(new Set(requestIds).size).toBeLessThan(requestIds.length);
    // The gRPC call above took one request of the limit: the workers share the count.
    expect(remaining).toEqual(Array.from({ length: LIMIT - 1 }, (_, i) => LIMIT - 2 - i));
    expect(answer.status).toBe(429);
    const inspector = new Redis(`redis://127.0.0.1:${redis.port}`);
    try {
      expect(await inspector.keys('fw-demo:rl:*')).toHaveLength(1);
    } finally {
      inspector.disconnect();
    }
  });
});

describe('the demo settings', () => {
  it('bind gRPC on the HTTP host unless GRPC_HOST says otherwise', () => {
    expect(readConfig({ HOST: '0.0.0.0' })).toMatchObject({ host: '0.0.0.0', grpcHost: '0.0.0.0' });
    expect(readConfig({ HOST: '0.0.0.0', GRPC_HOST: '127.0.0.1' })).toMatchObject({ host: '0.0.0.0', grpcHost: '127.0.0.1' });
    expect(readConfig({})).toMatchObject({ host: '127.0.0.1', grpcHost: '127.0.0.1', redisUrl: undefined });
  });
});
