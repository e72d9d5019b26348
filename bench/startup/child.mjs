// One start-up measurement in this fresh process: `node startup/child.mjs <case>`. Prints one JSON
// line: milliseconds since the process started until user code ran (boot), for the imports, for
// creating the app, then for listen(0) (+ close, untimed); the CPU time (user + system) the imports
// and the creation took, which a busy machine moves much less than wall time; RSS and heap after
// create and after listen. Only this file and cases.mjs are loaded before the timer starts.
import { performance } from 'node:perf_hooks';
import { cases } from './cases.mjs';

const c = cases.find((x) => x.name === process.argv[2]);
if (!c) throw new Error(`unknown case "${process.argv[2]}"`);

const boot = performance.now();
const cpuAtBoot = process.cpuUsage();
const mods = await c.load();
const imported = performance.now();
const app = c.create(mods);
const created = performance.now();
const cpu = process.cpuUsage(cpuAtBoot);
const afterCreate = process.memoryUsage();
if (app !== null) await app.listen(0, '127.0.0.1');
const listening = performance.now();
const afterListen = process.memoryUsage();
if (app !== null) await app.close();

process.stdout.write(
  `${JSON.stringify({
    startup: true,
    bootMs: boot,
    importMs: imported - boot,
    createMs: created - imported,
    cpuMs: (cpu.user + cpu.system) / 1000,
    listenMs: listening - created,
    rssKiB: afterCreate.rss / 1024,
    heapKiB: afterCreate.heapUsed / 1024,
    rssListenKiB: afterListen.rss / 1024,
  })}\n`,
);
process.exit(0);
