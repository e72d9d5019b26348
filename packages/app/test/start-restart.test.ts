// Rolling restarts of `fw start --workers 2` while the app module changes under it: a round whose
// new workers cannot load the module leaves the old ones serving, and a SIGHUP during a round is
// followed by one more round, so the instance always ends with exactly --workers workers, all on
// the newest code. Through the real binary and real worker processes.
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fwStart, httpGet, PACKAGE, type Started } from './scale-out/support.js';

// Every wait below is bounded on its own; the whole may take long on a loaded machine.
jest.setTimeout(300_000);

const FW_APP = pathToFileURL(join(PACKAGE, 'dist', 'index.js')).href;
const ARGS = ['--workers', '2', '--port', '0', '--host', '127.0.0.1'];

/** What the app module written by `writeApp` does. */
interface Version {
  version: string;
  /** The module throws while loading. */
  broken?: boolean;
  /** Making the app waits until this file exists. */
  gate?: string;
}

/**
 * Writes the app module: GET /version answers its version and the worker's pid, and each process
 * that loads it appends "<version> <pid>" to `loads`. Written beside and renamed over the old one,
 * so a worker never reads half a file.
 */
function writeApp(file: string, loads: string, { version, broken = false, gate }: Version): void {
  const source = [
    `import { appendFileSync, existsSync } from 'node:fs';`,
    `import { createApp } from ${JSON.stringify(FW_APP)};`,
    `const VERSION = ${JSON.stringify(version)};`,
    `appendFileSync(${JSON.stringify(loads)}, \`\${VERSION} \${process.pid}\\n\`);`,
    broken ? `throw new Error(\`\${VERSION} does not load\`);` : '',
    `export default async function build() {`,
    gate === undefined ? '' : `  while (!existsSync(${JSON.stringify(gate)})) await new Promise((done) => setTimeout(done, 20));`,
    `  const app = createApp({ onLog: () => undefined, shutdown: { delay: 0 } });`,
    `  app.get('/version', (ctx) => ctx.json({ version: VERSION, pid: process.pid }));`,
    `  return app;`,
    `}`,
  ].join('\n');
  writeFileSync(`${file}.next`, source);
  renameSync(`${file}.next`, file);
}

/** The versions loaded, in order, as `writeApp`'s modules logged them. */
function loaded(loads: string): { version: string; pid: number }[] {
  if (!existsSync(loads)) return [];
  return readFileSync(loads, 'utf8').trim().split('\n').filter(Boolean).map((line) => {
    const [version, pid] = line.split(' ');
    return { version: version!, pid: Number(pid) };
  });
}

/** The live child processes of `pid` (its workers, draining ones included), from /proc. */
function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === pid && state !== 'Z') children.push(Number(entry));
  }
  return children.sort((a, b) => a - b);
}

/** What answers GET /version over `tries` new connections (the primary hands them to the workers in turn). */
async function answers(url: string, tries = 24): Promise<{ versions: string[]; pids: number[]; failures: string[] }> {
  const versions = new Set<string>();
  const pids = new Set<number>();
  const failures: string[] = [];
  for (let i = 0; i < tries; i++) {
    try {
      const res = await httpGet(`${url}/version`, undefined, { timeout: 10_000 });
      if (res.status !== 200) failures.push(`${res.status} ${res.body}`);
      else {
        const body = JSON.parse(res.body) as { version: string; pid: number };
        versions.add(body.version);
        pids.add(body.pid);
      }
    } catch (err) {
      failures.push(String(err));
    }
  }
  return { versions: [...versions].sort(), pids: [...pids].sort((a, b) => a - b), failures };
}

/** What the instance looks like now: its worker processes and what they answer. */
async function observe(running: Started): Promise<{ workers: number[]; versions: string[]; pids: number[]; failures: string[] }> {
  const seen = await answers(running.url);
  return { workers: childPids(running.child.pid!), ...seen };
}

/**
 * Polls until exactly `count` workers run and every answer comes from them with `version`;
 * throws with the last thing seen and the primary's log once `timeout` passes.
 */
async function untilServing(running: Started, count: number, version: string, timeout = 60_000): Promise<number[]> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const seen = await observe(running);
    const settled = seen.failures.length === 0 && seen.workers.length === count && seen.versions.join() === version && seen.pids.join() === seen.workers.join();
    if (settled) return seen.workers;
    if (Date.now() > deadline) throw new Error(`expected ${count} workers all answering ${version}, saw ${JSON.stringify(seen)}; the primary said:\n${running.output()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function untilOutput(running: Started, pattern: RegExp, timeout = 60_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!pattern.test(running.output())) {
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in:\n${running.output()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

function occurrences(text: string, pattern: RegExp): number {
  return text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
}

/** SIGTERM, then SIGKILL if the primary has not exited within 20 s; resolves once it exited. */
async function shutDown(running: Started | undefined): Promise<void> {
  const child = running?.child;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((done) => (timer = setTimeout(() => done('late'), 20_000)));
  if ((await Promise.race([running!.exited, late])) === 'late') {
    child.kill('SIGKILL');
    await running!.exited;
  }
  clearTimeout(timer);
}

describe('fw start --workers 2: a restart whose new workers cannot load the module', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-start-restart-'));
  const file = join(dir, 'app.mjs');
  const loads = join(dir, 'loads');
  let running: Started | undefined;

  beforeAll(async () => {
    writeApp(file, loads, { version: 'v1' });
    running = await fwStart(ARGS, {}, { app: file, timeout: 60_000 });
  });

  afterAll(async () => {
    await shutDown(running);
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the old workers serving, and the next SIGHUP after the fix leaves exactly 2, both on the fixed code', async () => {
    const first = await untilServing(running!, 2, 'v1');

    writeApp(file, loads, { version: 'broken', broken: true });
    running!.child.kill('SIGHUP');
    await untilOutput(running!, /restart failed/);
    // The old workers still answer, nothing else runs, and no worker is started in the failed one's place.
    expect(await observe(running!)).toEqual({ workers: first, versions: ['v1'], pids: first, failures: [] });

    writeApp(file, loads, { version: 'v2' });
    running!.child.kill('SIGHUP');
    await untilOutput(running!, /restart failed[\s\S]*restarted every worker/);
    const after = await untilServing(running!, 2, 'v2');
    for (const pid of after) expect(first).not.toContain(pid);
    // Still so a while later: nothing left over from the failed round starts afterwards.
    for (let i = 0; i < 3; i++) expect(await observe(running!)).toEqual({ workers: after, versions: ['v2'], pids: after, failures: [] });
    expect(running!.output()).toMatch(/restart failed: a new worker could not start \(could not load .*broken does not load\); the 2 old workers keep serving/);
    // One failed load (the first new worker of the failed round), then the two new workers.
    expect(loaded(loads).map((load) => load.version)).toEqual(['v1', 'v1', 'broken', 'v2', 'v2']);
  });
});

describe('fw start --workers 2: SIGHUPs during a rolling restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-start-restart-'));
  const file = join(dir, 'app.mjs');
  const loads = join(dir, 'loads');
  const gate = join(dir, 'gate');
  let running: Started | undefined;

  beforeAll(async () => {
    writeApp(file, loads, { version: 'v1' });
    running = await fwStart(ARGS, {}, { app: file, timeout: 60_000 });
  });

  afterAll(async () => {
    await shutDown(running);
    rmSync(dir, { recursive: true, force: true });
  });

  it('run one more full round after the current one, so every worker ends on the newest code', async () => {
    await untilServing(running!, 2, 'v1');

    // v2's first new worker waits at the gate: the round is under way until the gate opens.
    writeApp(file, loads, { version: 'v2', gate });
    running!.child.kill('SIGHUP');
    await untilOutput(running!, /SIGHUP/);
    const deadline = Date.now() + 60_000;
    while (!loaded(loads).some((load) => load.version === 'v2')) {
      if (Date.now() > deadline) throw new Error(`no worker loaded v2:\n${running!.output()}`);
      await new Promise((done) => setTimeout(done, 50));
    }

    // Two more SIGHUPs while the round waits: they make one more round, not two.
    writeApp(file, loads, { version: 'v3' });
    running!.child.kill('SIGHUP');
    await untilOutput(running!, /SIGHUP[\s\S]*SIGHUP/);
    running!.child.kill('SIGHUP');
    await untilOutput(running!, /SIGHUP[\s\S]*SIGHUP[\s\S]*SIGHUP/);
    writeFileSync(gate, '');

    // Both rounds ended (in between, v3 workers of either round may serve alone for a moment).
    await untilOutput(running!, /restarted every worker[\s\S]*restarted every worker/);
    const after = await untilServing(running!, 2, 'v3');
    const output = running!.output();
    expect(output).toMatch(/SIGHUP: restart requested during a restart: one more round will follow/);
    expect(output).toMatch(/SIGHUP: restart requested during a restart: one more round is already queued/);
    expect(output).toMatch(/restarted every worker; one more round follows/);
    // The first round replaced v1 with v2 and v3 (the module changed in between), the second both with v3.
    expect(loaded(loads).map((load) => load.version)).toEqual(['v1', 'v1', 'v2', 'v3', 'v3', 'v3']);
    expect(loaded(loads).slice(-2).map((load) => load.pid).sort((a, b) => a - b)).toEqual(after);
    for (let i = 0; i < 3; i++) expect(await observe(running!)).toEqual({ workers: after, versions: ['v3'], pids: after, failures: [] });
    expect(occurrences(running!.output(), /restarted every worker/)).toBe(2);
  });
});
