import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { sleep } from './support.js';

/** How long a test waits for sse-clients.mjs to report: a little over its own 180 s. */
export const CLIENTS_WAIT_MS = 200_000;

/** The hard limit on open files of a process started from here ('unlimited' as Infinity). */
export function hardFileLimit(): number {
  const out = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
  return out === 'unlimited' ? Number.POSITIVE_INFINITY : Number(out);
}

/** How many file descriptors a process holds now (Linux /proc), or undefined elsewhere. */
export function openFiles(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

/** A Node child process running one of ./fixtures, its soft open-file limit raised to the hard one. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** Everything it printed. */
  output(): string;
  /** Resolves with the first line matching `pattern` printed after `from` (an offset in output()). */
  waitFor(pattern: RegExp, ms?: number, from?: number): Promise<RegExpExecArray>;
  /** Writes a command line to its stdin and waits for the answer matching `pattern`. */
  ask(command: string, pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** Kills it if it still runs, and waits for its exit. */
  stop(): Promise<void>;
}

export function startChild(fixture: string, args: string[], nodeFlags: string[] = []): Child {
  const script = join(__dirname, 'fixtures', fixture);
  const child = spawn('sh', ['-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"', 'sh', process.execPath, ...nodeFlags, script, ...args], {
    cwd: __dirname,
    stdio: 'pipe',
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitFor = async (pattern: RegExp, ms = 30_000, from = 0): Promise<RegExpExecArray> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const match = pattern.exec(text.slice(from));
      if (match !== null) return match;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Waited for ${pattern}; ${fixture} said: ${text.slice(-2000)}`);
      await sleep(10);
    }
  };
  return {
    process: child,
    output: () => text,
    waitFor,
    ask: (command, pattern, ms) => {
      const from = text.length;
      child.stdin.write(`${command}\n`);
      return waitFor(pattern, ms, from);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Milliseconds of each of `count` plain GETs, one after another, each on a fresh connection. */
export async function latencies(port: number, path: string, count: number, expected: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const text = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    times.push(performance.now() - t);
    if (text !== expected) throw new Error(`${path} answered ${text}`);
  }
  return times;
}

/** The `q` quantile (0..1) of `values`. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** A raw HTTP/1.1 GET that stays open: resolves once the status line and, for a 200, the first event arrived. */
export interface RawStream {
  readonly socket: Socket;
  readonly status: number;
  /** Everything received so far (headers included). */
  text(): string;
  readonly closed: Promise<void>;
}

export function openRaw(port: number, path: string, headers: Record<string, string> = {}, ms = 10_000): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`GET ${path}: no answer within ${ms} ms; got ${JSON.stringify(text)}`));
    }, ms);
    socket.setEncoding('latin1');
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status === null) return;
      const settled = status[1] === '200' ? /\ndata:/.test(text) : /\r\n\r\n[\s\S]*\}/.test(text);
      if (!settled) return;
      clearTimeout(timer);
      resolve({ socket, status: Number(status[1]), text: () => text, closed });
    });
    const lines = Object.entries({ host: 'localhost', accept: 'text/event-stream', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`GET ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
  });
}

/** Waits until `check()` holds, polling every 10 ms; throws naming `what` after `ms` (a wait, not a speed bound: ample for a loaded machine). */
export async function eventually(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(10);
  }
}
