import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
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

async function start(delay: number): Promise<Child> {
  const child = spawn(process.execPath, [FIXTURE, String(delay)], { cwd: __dirname, stdio: 'pipe' });
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
