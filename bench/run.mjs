// `pnpm bench`: the router micro-benchmark, then the REST throughput benchmark, with their
// default settings. `--json DIR` writes router.json and http.json there.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cliArgs } from './lib/cli.mjs';

const { values } = parseArgs({ args: cliArgs(), options: { json: { type: 'string' } } });
if (values.json) mkdirSync(values.json, { recursive: true });
for (const name of ['router', 'http']) {
  const script = fileURLToPath(new URL(`${name}/run.mjs`, import.meta.url));
  const args = values.json ? ['--json', join(values.json, `${name}.json`)] : [];
  console.log(`\n# ${name} benchmark\n`);
  const { status } = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
