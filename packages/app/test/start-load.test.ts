// What `fw start` says about the module it was given and about a signal, so that the next step is plain.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, fwStart, PACKAGE } from './scale-out/support.js';

jest.setTimeout(60_000);

it('says a module that exports nothing but called listen() listened, and exits 1', async () => {
  const main = join(__dirname, 'fixtures', 'listening-main.mjs');
  const failed = await fwStart(['--workers', '1', '--port', '0', '--host', '127.0.0.1'], {}, { app: main }).then(
    () => undefined,
    (err: { code?: number; output?: string }) => err,
  );
  expect(failed?.code).toBe(1);
  expect(failed?.output).toContain(
    `fw: ${main} exports no app: it called listen() while loading instead. Export the app without listening, as the default export or as "app" (keep listen() in another file, e.g. main.ts)\n`,
  );
});

it('says once, from the primary, what Ctrl+C does, and drains every worker: they get the signal too, but stay quiet and wait for the primary', async () => {
  // Its own process group, as a terminal's foreground job: Ctrl+C signals every process in it.
  const child = spawn(process.execPath, [BIN, 'start', join(__dirname, 'fixtures', 'plain-app.mjs'), '--workers', '2', '--port', '0', '--host', '127.0.0.1'], {
    cwd: PACKAGE,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 600 && !output.includes('workers serving'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(output).toContain('workers serving');
  process.kill(-child.pid!, 'SIGINT');
  // Every worker drained (the primary's SIGTERM, not the terminal's SIGINT, ended them): exit 0.
  expect(await exited).toBe(0);
  const said = output.split('\n').filter((line) => line.includes('SIGINT'));
  expect(said).toEqual(['fw: SIGINT: shutting the workers down in order (not ready, then the drain), then exiting (press Ctrl+C again to exit now)']);
});
