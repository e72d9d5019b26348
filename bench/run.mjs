// `pnpm bench`: the router micro-benchmark, every HTTP suite (core, middleware, validation,
// graphql, tracing) and the gRPC suite, each with its default settings (about 10 minutes in all).
// `--json DIR` writes router.json, http.json and grpc.json there.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cliArgs } from './lib/cli.mjs';

const { values } = parseArgs({ args: cliArgs(), options: { json: { type: 'string' } } });
if (values.json) mkdirSync(values.json, { recursive: true });
for (const [name, extra] of [['router', []], ['http', ['--suite', 'all']], ['grpc', []]]) {
  const script = fileURLToPath(new URL(`${name}/run.mjs`, import.meta.url));
  const args = [...extra, ...(values.json ? ['--json', join(values.json, `${name}.json`)] : [])];
  console.log(`\n# ${name} benchmark\n`);
  const { status } = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
