// Streaming benchmark: one publisher fanned out to many subscribers. fw serves one streaming
// operation as server-sent events, GraphQL over SSE (graphql-sse), GraphQL over WebSocket
// (graphql-ws) and a gRPC server stream; the peers serve the same schema — graphql-yoga over SSE,
// mercurius over WebSocket. Each run: a client process (pinned to the client core) opens
// `--subscribers` subscriptions, the server (pinned to the other core) publishes `--events` events,
// and the run ends when every subscriber has every event. Reported per variant: delivered events
// per second, server CPU µs per delivered event (from /proc), and the server's memory per idle
// subscriber (heap and external memory after a full collection, with the subscribers open minus
// before they opened; kernel socket buffers are not counted).
// Variants run in turn, round after round; ratios are taken per round against the peer on the
// same transport family (SSE: graphql-yoga; WebSocket: mercurius), then their median.
//   node streaming/run.mjs [--smoke] [--rounds 3] [--subscribers 1000] [--events 50] [--only a,b]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { applyOnly, parseCli, positiveNumber } from '../lib/cli.mjs';
import { cpuSeconds, hasProc } from '../lib/proc.mjs';
import { startServer } from '../lib/server-process.mjs';
import { fixed, int, markdownTable, max, median, min, rotate } from '../lib/stats.mjs';
import { pinned, pinning } from '../lib/tools.mjs';

const variants = [
  { name: 'fw-sse', server: 'fw', protocol: 'sse', peer: 'yoga-sse', label: 'fw, server-sent events (the operation\'s REST route)' },
  { name: 'fw-graphql-sse', server: 'fw', protocol: 'graphql-sse', peer: 'yoga-sse', label: 'fw, GraphQL over SSE (graphql-sse protocol)' },
  { name: 'fw-graphql-ws', server: 'fw', protocol: 'graphql-ws', peer: 'mercurius-ws', label: 'fw, GraphQL over WebSocket (graphql-ws protocol)' },
  { name: 'fw-grpc', server: 'fw', protocol: 'grpc', peer: undefined, label: 'fw, gRPC server stream (grpc-js client)' },
  { name: 'yoga-sse', server: 'yoga', protocol: 'graphql-sse', peer: undefined, label: 'graphql-yoga 5, GraphQL over SSE' },
  { name: 'mercurius-ws', server: 'mercurius', protocol: 'graphql-ws', peer: undefined, label: 'mercurius 16 (Fastify 5), GraphQL over WebSocket' },
];

const usage = `Usage: node streaming/run.mjs [options]
  --smoke            once, small (1 round, 50 subscribers, 5 events): works end to end? Not a measurement
  --rounds N         measured rounds (default 3)
  --subscribers N    subscriptions per run (default 1000)
  --events N         events published per run (default 50)
  --only a,b         variants to run (${variants.map((v) => v.name).join(', ')})
  --json FILE        also write every run as JSON`;
const cli = parseCli({ usage, defaults: { rounds: 3 }, extra: { smoke: { type: 'boolean' }, subscribers: { type: 'string' }, events: { type: 'string' } } });
const smoke = cli.smoke === true;
const rounds = smoke ? 1 : cli.rounds;
const subscribers = smoke ? 50 : positiveNumber('--subscribers', cli.subscribers, 1000);
const events = smoke ? 5 : positiveNumber('--events', cli.events, 50);
const { variants: picked } = applyOnly(cli.only, { variants });
const pin = pinning({ serverCpu: 1, clientCpu: 0 });
if (!pin.pinned) console.warn(`WARNING: not pinning (${pin.why}); figures will be less reliable.`);
if (!hasProc()) throw new Error('This benchmark reads server CPU and memory from /proc');

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const servers = new Map();
const grpcPort = await freePort();
for (const name of new Set(picked.map((v) => v.server))) {
  servers.set(name, await startServer({ name, file: here('./server.mjs'), pin, nodeArgs: ['--expose-gc'], env: { VARIANT: name, GRPC_PORT: String(grpcPort) } }));
}
const stopAll = () => Promise.all([...servers.values()].map((s) => s.stop()));
process.on('SIGINT', () => stopAll().then(() => process.exit(130)));

async function post(server, path) {
  const res = await fetch(`${server.baseUrl}${path}`, { method: 'POST' });
  return res.json();
}

/** A client process; `next()` resolves with its next JSON line. */
function startClient(variant, server) {
  const [cmd, args] = pinned(pin, 'client', process.execPath, [here('./client.mjs'), variant.protocol, String(server.port), String(grpcPort), String(subscribers), String(events)]);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } });
  const waiting = [];
  const lines = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line);
    const w = waiting.shift();
    if (w) w(msg);
    else lines.push(msg);
  });
  child.once('exit', (code) => {
    for (const w of waiting.splice(0)) w({ error: `client exited with code ${code}` });
  });
  return {
    next: () => (lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve))),
    send: (line) => child.stdin.write(`${line}\n`),
    kill: () => child.kill('SIGKILL'),
  };
}

async function measure(variant) {
  const server = servers.get(variant.server);
  const before = await post(server, '/gc');
  const client = startClient(variant, server);
  const subscribed = await client.next();
  if (subscribed.subscribed !== subscribers) throw new Error(`${variant.name}: ${JSON.stringify(subscribed)}`);
  const open = await post(server, '/gc');
  client.send('go'); // warm-up
  const warm = await client.next();
  if (warm.delivered !== warm.expected) throw new Error(`${variant.name}: warm-up delivered ${warm.delivered} of ${warm.expected}`);
  const cpu0 = cpuSeconds(server.pid);
  client.send('go');
  const run = await client.next();
  const cpu = cpuSeconds(server.pid) - cpu0;
  client.send('close');
  const closed = await client.next();
  if (!closed.closed) throw new Error(`${variant.name}: ${JSON.stringify(closed)}`);
  return {
    variant: variant.name,
    leftOpen: closed.left,
    delivered: run.delivered,
    expected: run.expected,
    perSecond: run.delivered / run.seconds,
    cpuUsPerEvent: (cpu * 1e6) / run.delivered,
    // JavaScript heap and external memory (buffers) after a full collection; RSS is not used: the
    // fw server serves four variants, and freed memory stays in its RSS for a while.
    kibPerSubscriber: (open.heapUsed + open.external - before.heapUsed - before.external) / 1024 / subscribers,
    sample: warm.sample,
  };
}

const results = [];
try {
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(picked, round)) {
      const result = await measure(variant);
      results.push({ round, ...result });
      console.log(`round ${round + 1} ${variant.name}: ${int(result.perSecond)} events/s, ${fixed(result.cpuUsPerEvent)} µs CPU/event, ${fixed(result.kibPerSubscriber, 1)} KiB/subscriber, ${result.leftOpen} still subscribed 5 s after the clients left${result.delivered === result.expected ? '' : ` (delivered ${result.delivered} of ${result.expected})`}`);
    }
  }
} finally {
  await stopAll();
}

const of = (name, key) => results.filter((r) => r.variant === name).map((r) => r[key]);
const ratio = (name, peer, key) => {
  const per = [];
  for (let round = 0; round < rounds; round++) {
    const mine = results.find((r) => r.variant === name && r.round === round);
    const theirs = results.find((r) => r.variant === peer && r.round === round);
    if (mine && theirs) per.push(mine[key] / theirs[key]);
  }
  return per.length === 0 ? '–' : fixed(median(per));
};
console.log(`\n${subscribers} subscribers, ${events} events per run, ${rounds} round(s); server pinned to core ${pin.serverCpu ?? '-'}, client to ${pin.clientCpu ?? '-'}\n`);
console.log(
  markdownTable(
    ['variant', 'events/s (median, min–max)', 'CPU µs/event', 'KiB/idle subscriber (heap + external)', 'throughput vs peer', 'CPU/event vs peer'],
    picked.map((v) => [
      v.label,
      `${int(median(of(v.name, 'perSecond')))} (${int(min(of(v.name, 'perSecond')))}–${int(max(of(v.name, 'perSecond')))})`,
      fixed(median(of(v.name, 'cpuUsPerEvent'))),
      fixed(median(of(v.name, 'kibPerSubscriber')), 1),
      v.peer ? `${ratio(v.name, v.peer, 'perSecond')}× ${v.peer}` : '',
      v.peer ? `${ratio(v.name, v.peer, 'cpuUsPerEvent')}× ${v.peer}` : '',
    ]),
    'lrrrrr',
  ),
);
if (cli.json) writeFileSync(cli.json, JSON.stringify({ subscribers, events, rounds, results }, null, 2));
