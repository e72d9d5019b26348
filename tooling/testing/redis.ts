// Starts a throw-away redis-server on a free loopback port, for the tests that need a real Redis (the Redis stores, fw start, the README samples).
// The Debian package `redis-server` provides it (tooling/scripts/setup-services.sh installs it).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running redis-server. */
export interface RedisServer {
  port: number;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Fails with a clear message when redis-server is not installed: the Redis tests must not be skipped. */
export function assertRedisInstalled(): void {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      'redis-server is not installed, so the Redis store tests cannot run. Install it with ' +
        '`bash tooling/scripts/setup-services.sh` (or `apt-get install -y redis-server`) and run the tests again.',
    );
  }
}

/** Starts redis-server on 127.0.0.1:<free port> with persistence off; resolves once it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  assertRedisInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'fw-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  await waitForPort(port, child, () => output);
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}: ${output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end('PING\r\n');
        socket.once('data', (data: Buffer) => {
          socket.destroy();
          resolve(data.toString().startsWith('+PONG'));
        });
      });
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port} within 10 s: ${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
