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

/**
 * Starts redis-server on 127.0.0.1:<free port> with persistence off; resolves once it accepts
 * connections. The port is free when chosen but may be taken before redis binds it (tests run in
 * parallel workers): a redis that could not bind is started again on another port, and the server
 * that answers is checked to be this one (its process id), never another test's. `firstPort`
 * (for the starter's own test) is tried first instead of a free one.
 */
export async function startRedis(options: { firstPort?: number } = {}): Promise<RedisServer> {
  assertRedisInstalled();
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(attempt === 1 ? options.firstPort : undefined);
    if (started !== 'port taken') return started;
    if (attempt === 5) throw new Error('redis-server found its port taken 5 times in a row');
  }
}

async function startOnce(chosen: number | undefined): Promise<RedisServer | 'port taken'> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-redis-'));
  const port = chosen ?? (await freePort());
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  try {
    await waitForPort(port, child, () => output, exited);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    if (/Address already in use/.test(output) || (err instanceof Error && /Address already in use/.test(err.message))) return 'port taken';
    throw err;
  }
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

/** Asks the server on `port` for its process id (`INFO server`); undefined when nothing answers. */
async function serverPid(port: number): Promise<number | undefined> {
  const { connect } = await import('node:net');
  return new Promise<number | undefined>((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1');
    const done = (pid: number | undefined): void => {
      socket.destroy();
      resolve(pid);
    };
    socket.setTimeout(2_000, () => done(undefined));
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (data: Buffer) => {
      answer += data.toString();
      const found = /process_id:(\d+)\r\n/.exec(answer);
      if (found !== null) done(Number(found[1]));
    });
    socket.once('error', () => done(undefined));
    socket.once('close', () => done(undefined));
  });
}

async function waitForPort(port: number, child: ChildProcess, output: () => string, exited: Promise<void>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await exited;
      throw new Error(`redis-server exited with code ${child.exitCode}: ${output()}`);
    }
    const pid = await serverPid(port);
    if (pid === child.pid) return;
    // Another process answers on the port: this redis will fail to bind it (or already did).
    if (pid !== undefined) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`another redis-server (pid ${pid}) answers on port ${port}: Address already in use`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port} within 10 s: ${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
