import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface DemoEndpoints {
  rest: string;
  graphql: string;
  grpc: string;
  metrics: string;
  pid: number;
  adminToken: string;
  customerToken: string;
}

export interface DemoProcess {
  child: ChildProcess;
  endpoints: DemoEndpoints;
  output: () => string;
  /** Sends `signal` (SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built demo as the README does (`node dist/main.js`), on free ports, and waits for READY. */
export function startDemoProcess(env: Record<string, string> = {}): Promise<DemoProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], {
    // No shutdown delay: nothing routes to a test's demo, so stopping it need not wait.
    env: { ...process.env, PORT: '0', GRPC_PORT: '0', HOST: '127.0.0.1', LOG_REQUESTS: '0', SHUTDOWN_DELAY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not become ready in 20 s:\n${out}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line === undefined) return;
      clearTimeout(timer);
      resolve({
        child,
        endpoints: JSON.parse(line.slice(6)) as DemoEndpoints,
        output: () => out,
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`demo exited with ${code} before it was ready:\n${out}`));
    });
  });
}
