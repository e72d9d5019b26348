import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { shutdownDelay } from '../../src/production/signals.js';
import { getItem, itemsClient } from '../support.js';

// SIGTERM and SIGINT on a real program: a child process serving HTTP and gRPC with the default
// signal handling. Readiness turns 503 (and gRPC health NOT_SERVING) while the port still
// serves, then the drain, then exit 0; a second signal exits at once.

const FIXTURE = join(__dirname, 'fixtures', 'signal-app.mjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Child {
  process: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  http: number;
  grpc: number;
}

/** `terminal`: run under `script`, so that the program's stdin is a TTY, as in a terminal. */
async function start(delay: number | 'default', terminal = false): Promise<Child> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(FIXTURE)} ${delay}`;
  const child = terminal
    ? spawn('script', ['-qec', command, '/dev/null'], { cwd: __dirname, stdio: 'pipe' })
    : spawn(process.execPath, [FIXTURE, String(delay)], { cwd: __dirname, stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const ready = await waitFor(() => output, /ready http=(\d+) grpc=(\d+)/, child);
  return { process: child, output: () => output, exited, http: Number(ready[1]), grpc: Number(ready[2]) };
}

async function waitFor(output: () => string, pattern: RegExp, child: ChildProcessWithoutNullStreams, ms = 10_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(output());
    if (match !== null) return match;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Waited for ${pattern}; the child said: ${output()}`);
    await sleep(10);
  }
}

/** GETs a path; the status, or 'refused' once nothing listens. */
async function probe(port: number, path: string): Promise<number | 'refused'> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { connection: 'close' } });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'refused';
  }
}

describe('termination signals (child process)', () => {
  const children: Child[] = [];
  afterAll(() => {
    for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
  });

  it('on SIGTERM: readiness 503 while the port still serves, then the drain, then exit 0', async () => {
    const child = await start(2000);
    children.push(child);
    expect(await probe(child.http, '/readyz')).toBe(200);
    const client = itemsClient(`127.0.0.1:${child.grpc}`);
    try {
      child.process.kill('SIGTERM');
      const signalled = Date.now();
      // Readiness flips first; the app still answers everything else during the delay.
      let ready: number | 'refused' = 200;
      while (ready === 200 && Date.now() - signalled < 2000) ready = await probe(child.http, '/readyz');
      expect(ready).toBe(503);
      const notReadyAt = Date.now();
      expect(await probe(child.http, '/ok')).toBe(200);
      expect(await probe(child.http, '/livez')).toBe(200);
      expect(await getItem(client, 'a1')).toEqual({ id: 'a1', owner: 'signal-app' });
      // Then the port closes, and the process exits by itself with 0, after the beforeExit hook.
      let open: number | 'refused' = 503;
      while (open !== 'refused' && Date.now() - signalled < 8000) open = await probe(child.http, '/readyz');
      expect(open).toBe('refused');
      const closedAt = Date.now();
      const exit = await child.exited;
      expect(exit.code).toBe(0);
      expect(closedAt - notReadyAt).toBeGreaterThanOrEqual(1000);
      expect(child.output()).toContain('beforeExit');
    } finally {
      client.close();
    }
  });

  it('on SIGINT: lets a request in flight finish before exiting 0', async () => {
    const child = await start(0);
    children.push(child);
    const slow = fetch(`http://127.0.0.1:${child.http}/slow?ms=400`).then(async (res) => ({ status: res.status, text: await res.text() }));
    await waitFor(child.output, /slow started/, child.process);
    child.process.kill('SIGINT');
    expect(await slow).toEqual({ status: 200, text: 'slow done' });
    expect((await child.exited).code).toBe(0);
    expect(child.output()).toContain('log: SIGINT: shutting down: draining, then exiting (press Ctrl+C again to exit now)');
  });

  it('says in one line what Ctrl+C does, and a second Ctrl+C exits at once with 130', async () => {
    const child = await start(5000);
    children.push(child);
    child.process.kill('SIGINT');
    await waitFor(child.output, /shutting down/, child.process);
    const lines = child.output().split('\n').filter((line) => line.includes('shutting down'));
    expect(lines).toEqual(['log: SIGINT: shutting down: not ready now, draining in 5 s, then exiting (press Ctrl+C again to exit now) ']);
    const second = Date.now();
    child.process.kill('SIGINT');
    const exit = await child.exited;
    expect(exit.code).toBe(130);
    expect(exit.at - second).toBeLessThan(2000);
  });

  it('with no delay configured, Ctrl+C in a terminal drains at once; without a terminal it waits the default 5 s', async () => {
    const interactive = await start('default', true);
    children.push(interactive);
    const pid = Number((await waitFor(interactive.output, /pid=(\d+)/, interactive.process))[1]);
    const sent = Date.now();
    process.kill(pid, 'SIGINT');
    await interactive.exited;
    expect(interactive.output()).toContain('log: SIGINT: shutting down: draining, then exiting (press Ctrl+C again to exit now)');
    expect(Date.now() - sent).toBeLessThan(4000);
    const piped = await start('default');
    children.push(piped);
    piped.process.kill('SIGINT');
    await waitFor(piped.output, /shutting down/, piped.process);
    expect(piped.output()).toContain('log: SIGINT: shutting down: not ready now, draining in 5 s, then exiting');
    expect(await probe(piped.http, '/readyz')).toBe(503);
    piped.process.kill('SIGINT');
    await piped.exited;
  });

  it('exits at once, non-zero, on a second signal during the delay', async () => {
    const child = await start(10_000);
    children.push(child);
    child.process.kill('SIGTERM');
    await sleep(200);
    expect(await probe(child.http, '/readyz')).toBe(503);
    const second = Date.now();
    child.process.kill('SIGTERM');
    const exit = await child.exited;
    expect(exit.code).toBe(143);
    expect(exit.at - second).toBeLessThan(2000);
    expect(child.output()).not.toContain('beforeExit');
    expect(child.output()).toContain('log: SIGTERM: shutting down: not ready now, draining in 10 s, then exiting (send SIGTERM again to exit now)');
  });
});

describe('the delay a signal starts the shutdown with', () => {
  it('is the configured one for every signal, else 0 for SIGINT from a terminal and 5000 otherwise', () => {
    expect([shutdownDelay('SIGINT', 2000, true), shutdownDelay('SIGTERM', 0, false)]).toEqual([2000, 0]);
    expect([shutdownDelay('SIGINT', undefined, true), shutdownDelay('SIGINT', undefined, false), shutdownDelay('SIGTERM', undefined, true)]).toEqual([0, 5000, 5000]);
  });
});
