// `pnpm bench`: the router micro-benchmark, every HTTP suite (core, middleware, validation,
// graphql, tracing), the gRPC suite and the start-up benchmark, each with its default settings
// (about 15 minutes in all). `--json DIR` writes router.json, http.json, grpc.json and startup.json
// there. `--smoke` runs each of them once with the shortest settings (1 round, 1 s runs, 10 wrk
// connections so a busy machine does not time requests out): a check that everything works end to
// end in a few minutes; its figures are not measurements.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cliArgs } from './lib/cli.mjs';

const { values } = parseArgs({ args: cliArgs(), options: { json: { type: 'string' }, smoke: { type: 'boolean' } } });
if (values.json) mkdirSync(values.json, { recursive: true });
const smoke = values.smoke
  ? {
      router: ['--rounds', '1', '--duration', '0.2'],
      http: ['--rounds', '1', '--duration', '1', '--warmup', '1', '--connections', '10'],
      grpc: ['--rounds', '1', '--duration', '1', '--warmup', '1'],
      startup: ['--rounds', '1'],
    }
  : {};
if (values.smoke) console.log('SMOKE RUN: every benchmark once with the shortest settings; the figures below are not measurements.');
for (const [name, extra] of [['router', []], ['http', ['--suite', 'all']], ['grpc', []], ['startup', []]]) {
  const script = fileURLToPath(new URL(`${name}/run.mjs`, import.meta.url));
  const args = [...extra, ...(smoke[name] ?? []), ...(values.json ? ['--json', join(values.json, `${name}.json`)] : [])];
  console.log(`\n# ${name} benchmark\n`);
  const { status } = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
