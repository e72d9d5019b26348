import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis, type RedisServer } from '../../../tooling/testing/redis.js';

// The README samples run as a user runs them: the packages packed as tarballs, installed with npm
// into a new project made as the Quick start says, each sample saved under its name and run with
// its documented command (`npx tsx <name>.ts` unless the README shows another), then the README's
// own commands against it, their output compared with what the README shows.
//
// The tags (HTML comments, invisible on GitHub), each before the fenced block it names:
// - `<!-- readme-sample: NAME -->` before a ```ts block: the program NAME.ts;
// - `<!-- readme-file: PATH -->` before any block: a file the samples read (a .proto);
// - `<!-- readme-install: NAME -->` before a ```sh block: what NAME needs installed besides the
//   Quick start's packages (run in the project before NAME);
// - `<!-- readme-run: NAME -->` before a ```sh block: the command that starts NAME;
// - `<!-- readme-try: NAME -->` before a ```sh block: commands run once NAME serves; each command
//   line is followed by `# <output>` lines, the output it must print;
// - `<!-- readme-output: NAME -->` before a ```text block: what NAME prints and exits with;
// - `<!-- readme-stderr: NAME -->` before a ```text block: what NAME writes to stderr before Ctrl+C
//   (a warning a first run shows);
// - `<!-- readme-fragment -->` before a ```ts block: not a program (a part of one, or a client of a
//   server above); the samples test compiles it, nothing runs it.
// A sample that serves (it has a try block) must serve port 3000 and stop with 0 on Ctrl+C.
// Every other ```ts block of every README is run the same way, as `<dir>-<n>.ts` (`core-3.ts`, the
// third block of packages/core/README.md): it must exit 0, or keep serving without a word on
// stderr and stop on Ctrl+C. A block that declares what it uses (`declare const db: ...`) is a
// fragment by itself.
const root = join(__dirname, '..', '..', '..');
const PNPM = ['-y', 'pnpm@10.34.9'];
/** The peers and the runner the Quick start installs, pinned to the versions the workspace tests. */
const PEERS = ['graphql@16.11.0', '@grpc/grpc-js@1.14.7', '@opentelemetry/api@1.9.1', 'zod@4.6.7'];
const DEV = ['tsx@4.23.15'];

interface Sample {
  name: string;
  readme: string;
  code: string;
  run?: string;
  install?: string;
  tries: Array<{ command: string; output: string }>;
  output?: string;
  stderr?: string;
}

function readmes(): string[] {
  const files = [join(root, 'README.md'), join(root, 'apps', 'demo', 'README.md')];
  for (const dir of readdirSync(join(root, 'packages'))) files.push(join(root, 'packages', dir, 'README.md'));
  return files.filter((f) => existsSync(f));
}

/** Every tagged block of the READMEs. */
function extract(): { samples: Sample[]; files: Map<string, string> } {
  const samples = new Map<string, Sample>();
  const files = new Map<string, string>();
  const tagged: Array<{ kind: string; name: string; body: string; readme: string }> = [];
  for (const readme of readmes()) {
    const text = readFileSync(readme, 'utf8');
    const dir = readme === join(root, 'README.md') ? 'root' : relative(root, dirname(readme)).split(/[\\/]/).pop()!;
    // Every fenced block, with the tag before it (if any): untagged ```ts blocks are samples too.
    const re = /(?:<!-- readme-(sample|file|install|run|try|output|stderr|fragment)(?:: ([^\s]+))? -->\s*\n)?```([a-z]*)\n([\s\S]*?)```/g;
    let n = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const [, kind, name, lang, body] = m as unknown as [string, string | undefined, string | undefined, string, string];
      if (lang === 'ts') n++;
      if (kind === undefined) {
        if (lang === 'ts' && !/^declare /m.test(body)) tagged.push({ kind: 'plain', name: `${dir}-${n}`, body, readme: relative(root, readme) });
        continue;
      }
      if (kind === 'fragment') continue;
      if (name === undefined) throw new Error(`${relative(root, readme)}: readme-${kind} needs a name`);
      tagged.push({ kind, name, body, readme: relative(root, readme) });
    }
  }
  for (const t of tagged) {
    if (t.kind !== 'sample' && t.kind !== 'plain') continue;
    if (samples.has(t.name)) throw new Error(`${t.readme}: a second readme-sample named "${t.name}"`);
    samples.set(t.name, { name: t.name, readme: t.readme, code: t.body, tries: [] });
  }
  for (const t of tagged) {
    if (t.kind === 'file') {
      // One file may be shown in several READMEs, as long as they show the same file.
      const shown = files.get(t.name);
      if (shown !== undefined && shown !== t.body) throw new Error(`${t.readme}: readme-file ${t.name} differs from another README's ${t.name}`);
      files.set(t.name, t.body);
      continue;
    }
    if (t.kind === 'sample' || t.kind === 'plain') continue;
    const sample = samples.get(t.name);
    if (sample === undefined) throw new Error(`${t.readme}: readme-${t.kind} names "${t.name}", which no readme-sample defines`);
    if (t.kind === 'run') sample.run = t.body.trim();
    else if (t.kind === 'install') sample.install = t.body.trim();
    else if (t.kind === 'output') sample.output = t.body;
    else if (t.kind === 'stderr') sample.stderr = t.body;
    else sample.tries.push(...tries(t.body));
  }
  return { samples: [...samples.values()], files };
}

/** The command lines of a try block, each with the `# ` lines after it as its output. */
function tries(body: string): Sample['tries'] {
  const out: Sample['tries'] = [];
  for (const line of body.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('# ')) {
      const last = out[out.length - 1];
      if (last === undefined) throw new Error(`a try block starts with output: ${line}`);
      last.output += `${line.slice(2)}\n`;
    } else out.push({ command: line, output: '' });
  }
  return out;
}

/**
 * The environment of a user's terminal: this process's, without what a package manager running the
 * tests adds for its scripts (`npm_config_*` and the rest), which npm would warn about.
 */
const USER_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(?:npm_|pnpm_)/i.test(key)));

function exec(file: string, args: string[], cwd: string, timeout = 240_000, env: NodeJS.ProcessEnv = USER_ENV): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr }),
    );
  });
}

/** How long a sample without a try block runs before it counts as serving (then it gets Ctrl+C). */
const SERVING_AFTER_MS = 5_000;

/** What a served sample writes on Ctrl+C, and nothing else on stderr. */
const CTRL_C_LINE = 'SIGINT: shutting down: not ready now, draining in 5 s, then exiting (press Ctrl+C again to exit now)\n';

/**
 * Resolves 'serving' once a sample listens on a port the READMEs' samples use (3000, 4000), or has
 * kept running for `ms` (a program that serves elsewhere, or waits on something).
 */
async function serving(ms: number): Promise<'serving'> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if ((await portOpen(3000)) || (await portOpen(4000))) return 'serving';
    await sleep(100, undefined, { ref: false });
  }
  return 'serving';
}

/** Whether any process of the group `pid` leads is still running. */
/**
 * Sends `signal` to the process group of `pid`, as a terminal's Ctrl+C does. A group that has just
 * ended (its last process exited after the check that called for the signal, before node reaped
 * it) is what the signal asked for: `ESRCH` is not an error here.
 */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

const portOpen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

const { samples, files } = extract();
let project: string;
// The Redis that samples needing one reach at REDIS_URL, as the README asks of a user.
let redis: RedisServer | undefined;

beforeAll(async () => {
  redis = await startRedis();
  USER_ENV.REDIS_URL = `redis://127.0.0.1:${redis.port}`;
  project = mkdtempSync(join(tmpdir(), 'fw-readme-'));
  const tarballs = join(project, 'tarballs');
  // The packages as published: pnpm pack writes each package's files with workspace: versions resolved.
  const pack = await exec('npx', [...PNPM, '-r', '--filter', './packages/*', 'pack', '--pack-destination', tarballs], root);
  if (pack.code !== 0) throw new Error(`pnpm pack failed:\n${pack.stdout}\n${pack.stderr}`);
  const app = join(project, 'app');
  mkdirSync(app);
  const npm = async (...args: string[]): Promise<void> => {
    const run = await exec('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], app);
    if (run.code !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  };
  // The Quick start's steps: an ES module project, the tarballs and the peers, tsx to run .ts files.
  await npm('init', '-y');
  await npm('pkg', 'set', 'type=module');
  await npm('install', ...readdirSync(tarballs).map((f) => join(tarballs, f)), ...PEERS);
  await npm('install', '-D', ...DEV);
  for (const [path, text] of files) {
    mkdirSync(dirname(join(app, path)), { recursive: true });
    writeFileSync(join(app, path), text);
  }
  for (const sample of samples) writeFileSync(join(app, `${sample.name}.ts`), sample.code);
}, 600_000);

afterAll(async () => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
  await redis?.stop();
});

it('finds the runnable samples of the root README', () => {
  expect(samples.filter((s) => s.readme === 'README.md').map((s) => s.name)).toEqual(expect.arrayContaining(['rest', 'graphql', 'grpc', 'together', 'streaming']));
});

it('runs the samples of every package README, not only the tagged ones', () => {
  for (const dir of readdirSync(join(root, 'packages'))) {
    if (!existsSync(join(root, 'packages', dir, 'README.md'))) continue;
    expect({ dir, runs: samples.some((s) => s.readme === `packages/${dir}/README.md`) }).toEqual({ dir, runs: true });
  }
  expect(samples.length).toBeGreaterThan(60);
});

it.each(samples.map((s) => [`${s.readme}: ${s.name}`, s] as const))('%s runs as documented and answers what the README shows', async (_, sample) => {
  const app = join(project, 'app');
  if (sample.install !== undefined) {
    const install = await exec('sh', ['-c', sample.install], app);
    if (install.code !== 0) throw new Error(`${sample.install} failed:\n${install.stdout}\n${install.stderr}`);
  }
  // A sample whose README shows a command runs with it; any other with the Quick start's `npx tsx`.
  const command = sample.run ?? `npx tsx ${sample.name}.ts`;
  // A shell, as a user types the command; its own process group, so Ctrl+C reaches the program.
  const child = spawn('sh', ['-c', command], { cwd: app, env: USER_ENV, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  try {
    if (sample.tries.length === 0) {
      // A program that ends by itself, or one that serves: still running after a while with nothing
      // on stderr (but what the README shows there), it is stopped as a user stops it.
      const code = await Promise.race([exited, sample.output === undefined ? serving(SERVING_AFTER_MS) : sleep(60_000, undefined, { ref: false }).then(() => 'serving' as const)]);
      if (code !== 'serving') {
        expect({ code, stderr }).toEqual({ code: 0, stderr: sample.stderr ?? '' });
        if (sample.output !== undefined) expect(stdout).toBe(sample.output);
        return;
      }
      // What the README shows on stderr may come a moment after the port opened.
      for (let i = 0; i < 50 && stderr.length < (sample.stderr ?? '').length; i++) await sleep(100);
      expect(stderr).toBe(sample.stderr ?? '');
      signalGroup(child.pid!, 'SIGINT');
      // createApp says what Ctrl+C does and drains: pressed again, it exits at once (the root
      // samples wait for the drain); a bare Application ends by the first one (130 under tsx).
      for (let i = 0; i < 50 && child.exitCode === null && child.signalCode === null && !stderr.endsWith(CTRL_C_LINE); i++) await sleep(100);
      if (stderr.endsWith(CTRL_C_LINE) && child.exitCode === null) signalGroup(child.pid!, 'SIGINT');
      const stopped = await Promise.race([exited, sleep(20_000, undefined, { ref: false }).then(() => 'still running 20 s after Ctrl+C' as const)]);
      expect({ stopped: stopped === 0 || stopped === 130 || stopped === 'SIGINT' ? 'stopped' : stopped }).toEqual({ stopped: 'stopped' });
      expect([sample.stderr ?? '', `${sample.stderr ?? ''}${CTRL_C_LINE}`]).toContain(stderr);
      return;
    }
    // Serving: wait for its port, as a user waits for the banner.
    for (let i = 0; i < 300 && !(await portOpen(3000)); i++) {
      if (child.exitCode !== null) throw new Error(`${sample.name} exited with ${child.exitCode} before serving:\n${stdout}\n${stderr}`);
      await sleep(100);
    }
    for (const { command: line, output } of sample.tries) {
      const run = await exec('sh', ['-c', line], app, 30_000);
      // As a terminal shows it: a last line without its newline (curl's JSON) reads the same.
      expect({ command: line, output: run.stdout.trimEnd() }).toEqual({ command: line, output: output.trimEnd() });
    }
    if (sample.output !== undefined) expect(stdout).toBe(sample.output);
    signalGroup(child.pid!, 'SIGINT');
    const code = await Promise.race([exited, sleep(20_000, undefined, { ref: false }).then(() => 'still running 20 s after Ctrl+C' as const)]);
    // The program says what Ctrl+C does, drains and exits 0; npx and sh, which got the same Ctrl+C,
    // then end by that signal once it has (what a terminal shows as the prompt coming back).
    expect({ stopped: code === 0 || code === 'SIGINT' ? 'stopped' : code, stderr }).toEqual({ stopped: 'stopped', stderr: `${sample.stderr ?? ''}${CTRL_C_LINE}` });
    // sh and npx may end by the signal before the program has drained and exited: wait for it.
    for (let i = 0; i < 200 && groupAlive(child.pid!); i++) await sleep(100);
    expect({ running: groupAlive(child.pid!), port3000: await portOpen(3000) }).toEqual({ running: false, port3000: false });
  } finally {
    if (child.exitCode === null && child.signalCode === null) signalGroup(child.pid!, 'SIGKILL');
    await exited;
    // The shell may end before the program it started has drained: wait for the whole process group.
    for (let i = 0; i < 300 && groupAlive(child.pid!); i++) await sleep(100);
    if (groupAlive(child.pid!)) signalGroup(child.pid!, 'SIGKILL');
    // The next sample serves the same port: wait until this one's is free.
    for (let i = 0; i < 100 && (await portOpen(3000)); i++) await sleep(100);
  }
}, 120_000);

// Under tsx (source maps on), a stack trace through the installed packages names their TypeScript
// sources at the lines that threw: the maps resolve to files the tarballs ship, and the classes
// keep their names.
it('under tsx, a stack frame inside the installed packages names a shipped source line that throws', async () => {
  const app = join(project, 'app');
  writeFileSync(
    join(app, 'stack.ts'),
    ["import { createApp } from '@fw/app';", 'try {', '  createApp({ bodyLimit: -5 });', '} catch (error) {', '  console.log((error as Error).stack);', '}', ''].join('\n'),
  );
  const run = await exec('npx', ['tsx', 'stack.ts'], app, 60_000);
  expect(run.stderr).toBe('');
  const frames = [...run.stdout.matchAll(/\((\/[^():]+):(\d+):\d+\)/g)].map(([, file, line]) => ({ file: file!, line: Number(line) }));
  const inside = frames.filter(({ file }) => file.includes(`${join('node_modules', '@fw')}/`));
  expect(inside.length).toBeGreaterThan(0);
  const [first] = inside;
  expect(first!.file).toMatch(/\/src\/[\w/-]+\.ts$/);
  expect(existsSync(first!.file)).toBe(true);
  expect(readFileSync(first!.file, 'utf8').split('\n')[first!.line - 1]).toContain('throw');
  expect(run.stdout).toMatch(/at new Application \(/);
}, 120_000);
