import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { startDemoProcess, type DemoProcess } from './demo-process.js';

// Every TypeScript sample in the READMEs is compiled against the packages as built, so a sample
// cannot drift from the API. Samples are ES modules (top-level await is allowed).
const root = join(__dirname, '..', '..', '..');
const out = join(__dirname, '..', 'test-output', 'readme-samples');

function readmes(): string[] {
  const files = [join(root, 'README.md'), join(root, 'apps', 'demo', 'README.md'), join(root, 'SECURITY.md')];
  for (const dir of readdirSync(join(root, 'packages'))) files.push(join(root, 'packages', dir, 'README.md'));
  return files.filter((f) => existsSync(f));
}

interface Sample {
  readme: string;
  line: number;
  file: string;
}

function extract(): Sample[] {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  const samples: Sample[] = [];
  for (const readme of readmes()) {
    const text = readFileSync(readme, 'utf8');
    const re = /```ts\n([\s\S]*?)```/g;
    let m: RegExpExecArray | null;
    let n = 0;
    while ((m = re.exec(text)) !== null) {
      const line = text.slice(0, m.index).split('\n').length;
      const name = `${relative(root, readme).replace(/[\\/]/g, '_').replace(/\.md$/, '')}_${++n}.ts`;
      // `export {}` keeps each sample a module of its own.
      writeFileSync(join(out, name), `${m[1]}\nexport {};\n`);
      samples.push({ readme: relative(root, readme), line, file: join(out, name) });
    }
  }
  return samples;
}

describe('README samples', () => {
  const samples = extract();

  it('finds the samples of the root README and of every package README', () => {
    const documented = new Set(samples.map((s) => s.readme));
    expect(documented.has('README.md')).toBe(true);
    for (const dir of readdirSync(join(root, 'packages'))) {
      if (existsSync(join(root, 'packages', dir, 'README.md'))) expect(documented).toContain(`packages/${dir}/README.md`);
    }
  });

  it('compiles every sample under strict TypeScript', () => {
    const program = ts.createProgram(
      samples.map((s) => s.file),
      {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
        esModuleInterop: true,
      },
    );
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const sample = samples.find((s) => s.file === d.file?.fileName);
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const origin = sample ? `${sample.readme}:${sample.line + where + 1}` : (d.file?.fileName ?? '?');
      return `${origin}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
  });
});

/** The fenced blocks of one language in the demo README's section that starts with `heading`. */
function demoReadmeBlocks(heading: string, lang: string): string[] {
  const readme = readFileSync(join(root, 'apps', 'demo', 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`apps/demo/README.md has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Ample for a sample to start and see its event on a loaded machine: a wait, not a bound. */
const WAIT_MS = 30_000;

/**
 * Runs a command until it exits, or until its output holds `done` (then SIGTERM, as Ctrl+C stops
 * `curl -N`), or WAIT_MS pass. `meanwhile` runs after 700 ms and again every 2 s until then, six
 * times at most (each places an order: the demo's stock is finite): a client that took longer to
 * connect on a loaded machine still gets an event after it subscribed.
 */
function run(command: string, args: string[], env: Record<string, string>, cwd: string, done: RegExp | undefined, meanwhile: () => Promise<unknown>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let exited = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (done !== undefined && done.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), WAIT_MS);
    let again: NodeJS.Timeout | undefined;
    let pokes = 0;
    const poke = (): void => {
      if (exited || pokes++ >= 6) return;
      void meanwhile().catch(reject);
      again = setTimeout(poke, 2000);
    };
    const first = setTimeout(poke, 700);
    child.once('error', reject);
    child.once('exit', (code) => {
      exited = true;
      clearTimeout(timer);
      clearTimeout(first);
      clearTimeout(again);
      resolve({ code, stdout, stderr });
    });
  });
}

// The live samples of the demo README (curl -N, GraphQL over SSE with curl, the grpc-js stream) run
// as a reader would run them, against the demo process, while an order is placed.
describe('the demo README live samples', () => {
  let demo: DemoProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    demo = await startDemoProcess({ RATE_LIMIT_MAX: '100000' });
    env = { DEMO: demo.endpoints.rest, DEMO_GRPC: demo.endpoints.grpc, TOKEN: demo.endpoints.customerToken };
  });

  afterAll(async () => {
    if (demo) await demo.stop();
  });

  async function placeOrder(): Promise<void> {
    const res = await fetch(`${demo.endpoints.rest}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.endpoints.customerToken}` },
      body: JSON.stringify({ lines: [{ bookId: 'b4', quantity: 1 }] }),
    });
    if (res.status !== 201) throw new Error(`placing an order answered ${res.status}`);
  }

  /** The id of the first order event after now, as an SSE client reads it. */
  async function nextOrderEventId(): Promise<string> {
    const stop = new AbortController();
    const res = fetch(`${demo.endpoints.rest}/api/v1/orders/events`, { headers: { authorization: `Bearer ${demo.endpoints.customerToken}` }, signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await placeOrder();
    const reader = (await res).body!.getReader();
    let text = '';
    let id: string | undefined;
    while (id === undefined) {
      const { done, value } = await reader.read();
      if (done) throw new Error('no order event');
      text += Buffer.from(value).toString();
      id = /^id: (.+)$/m.exec(text)?.[1];
    }
    await reader.cancel();
    stop.abort();
    return id;
  }

  it('has the samples it runs: the curl commands and one TypeScript stream', () => {
    expect(demoReadmeBlocks('## Live events', 'sh').length).toBeGreaterThanOrEqual(4);
    expect(demoReadmeBlocks('## Live events', 'ts')).toHaveLength(1);
  });

  it.each(demoReadmeBlocks('## Live events', 'sh').map((block) => [block.trim().split('\n')[0]!.slice(0, 70), block]))('runs `%s…`', async (_name, block) => {
    // The resume sample comes back after the event it saw: one more order was placed since.
    const lastId = block.includes('$LAST_ID') ? await nextOrderEventId() : '';
    if (lastId !== '') await placeOrder();
    const streaming = block.includes('curl -N');
    // A stream is stopped once its event arrived (the resume sample's: the missed one, replayed first).
    const result = await run('bash', ['-c', block], { ...env, LAST_ID: lastId }, root, streaming ? /^data: \{"(data|eventId)":.*\n/m : undefined, streaming && lastId === '' ? placeOrder : async () => undefined);
    // (curl prints its progress meter on stderr when its output is not a terminal.)
    if (streaming) {
      // Stopped as Ctrl+C stops it, after the event arrived.
      expect(result.stdout).toMatch(/^data: \{"(data|eventId)":/m);
      if (lastId !== '') expect(result.stdout).not.toContain(`id: ${lastId}\n`);
    } else {
      expect(result).toMatchObject({ code: 0 });
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'placed' });
    }
  });

  it('runs the grpc-js stream sample: it prints the order event and exits', async () => {
    const [code] = demoReadmeBlocks('## Live events', 'ts');
    const dir = join(__dirname, '..', 'test-output', 'readme-live');
    mkdirSync(dir, { recursive: true });
    // Inside apps/demo, so the gRPC packages resolve as in a user's project; run from the repository root as the README says.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'sample.js'), ts.transpileModule(code!, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);
    const result = await run(process.execPath, [join(dir, 'sample.js')], env, root, undefined, placeOrder);
    expect(result).toEqual({ code: 0, stdout: expect.stringMatching(/^o-[\w-]+ ORDER_STATUS_PLACED\n$/), stderr: '' });
  });
});
