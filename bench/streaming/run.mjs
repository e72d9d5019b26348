// Streaming benchmark: one publisher fanned out to many subscribers. fw serves one streaming
// operation as server-sent events, GraphQL over SSE (graphql-sse), GraphQL over WebSocket
// (graphql-ws), a gRPC server stream and a Connect server stream (JSON and binary); the peers serve
// the same schema — graphql-yoga over SSE, mercurius over WebSocket — and the same proto, compiled
// by `buf build` — @connectrpc/connect-node's connectNodeAdapter on node:http, loaded by
// connect-node's own client (HTTP/1.1), which checks every event's content on both servers. Each run: a client process (pinned to the client core) opens
// `--subscribers` subscriptions, the server (pinned to the other core) publishes `--events` events,
// and the run ends when every subscriber has every event. Reported per variant: delivered events
// per second, server CPU µs per delivered event (from /proc), and the server's memory per idle
// subscriber (heap and external memory after a full collection, with the subscribers open minus
// before they opened; kernel socket buffers are not counted).
// Variants run in turn, round after round; ratios are taken per round against the peer on the
// same transport family (SSE: graphql-yoga; WebSocket: mercurius; Connect: connect-node, same
// codec), then their median (min–max).
//   node streaming/run.mjs [--smoke] [--rounds 3] [--subscribers 1000] [--events 50] [--only a,b] [--profile DIR]
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { resolve } from 'node:path';
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
  { name: 'fw-connect', server: 'fw', protocol: 'connect', peer: 'connect-node', label: 'fw, Connect server stream, JSON (connect-node client, HTTP/1.1)' },
  { name: 'connect-node', server: 'connect-node', protocol: 'connect', peer: undefined, label: 'connect-node 2 (connectNodeAdapter on node:http), Connect server stream, JSON' },
  { name: 'fw-connect-proto', server: 'fw', protocol: 'connect-proto', peer: 'connect-node-proto', label: 'fw, Connect server stream, binary (connect-node client, HTTP/1.1)' },
  { name: 'connect-node-proto', server: 'connect-node', protocol: 'connect-proto', peer: undefined, label: 'connect-node 2 (connectNodeAdapter on node:http), Connect server stream, binary' },
];

const usage = `Usage: node streaming/run.mjs [options]
  --smoke            once, small (1 round, 50 subscribers, 5 events): works end to end? Not a measurement
  --rounds N         measured rounds (default 3)
  --subscribers N    subscriptions per run (default 1000)
  --events N         events published per run (default 50)
  --only a,b         variants to run (${variants.map((v) => v.name).join(', ')})
  --json FILE        also write every run as JSON
  --profile DIR      start the servers with node --cpu-prof; profiles land in DIR when they stop`;
const cli = parseCli({ usage, defaults: { rounds: 3 }, extra: { smoke: { type: 'boolean' }, subscribers: { type: 'string' }, events: { type: 'string' }, profile: { type: 'string' } } });
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
const profileDir = cli.profile === undefined ? undefined : resolve(cli.profile);
if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
for (const name of new Set(picked.map((v) => v.server))) {
  const nodeArgs = ['--expose-gc', ...(profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir])];
  servers.set(name, await startServer({ name, file: here('./server.mjs'), pin, nodeArgs, env: { VARIANT: name, GRPC_PORT: String(grpcPort) } }));
  if (profileDir !== undefined) console.log(`profiling ${name}: pid ${servers.get(name).pid}, profile in ${profileDir} when it stops`);
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
  if (warm.bad > 0) throw new Error(`${variant.name}: ${warm.bad} event(s) not as sent in the warm-up, first: ${JSON.stringify(warm.firstBad)}`);
  const cpu0 = cpuSeconds(server.pid);
  client.send('go');
  const run = await client.next();
  const cpu = cpuSeconds(server.pid) - cpu0;
  client.send('close');
  const closed = await client.next();
  if (!closed.closed) throw new Error(`${variant.name}: ${JSON.stringify(closed)}`);
  if (run.bad > 0) throw new Error(`${variant.name}: ${run.bad} event(s) not as sent, first: ${JSON.stringify(run.firstBad)}`);
  return {
    variant: variant.name,
    leftOpen: closed.left,
    delivered: run.delivered,
    expected: run.expected,
    perSecond: run.delivered / run.seconds,
    cpuUsPerEvent: (cpu * 1e6) / run.delivered,
    // CPU seconds per second of the run: near 100% for the server means it was the bottleneck,
    // near 100% for the client that the load generator was.
    serverBusy: cpu / run.seconds,
    clientBusy: run.clientCpuSeconds / run.seconds,
    // JavaScript heap and external memory (buffers) after a full collection; RSS is not used: the
    // fw server serves four variants, and freed memory stays in its RSS for a while.
    kibPerSubscriber: (open.heapUsed + open.external - before.heapUsed - before.external) / 1024 / subscribers,
    sample: warm.sample,
  };
}

/**
 * One Connect server stream opened by hand: the request envelope, then the first `count` events
 * as they came on the wire (each envelope's bytes), with every timestamp masked.
 */
async function connectWire(server, protocol, count) {
  const json = protocol === 'connect';
  const controller = new AbortController();
  // Not awaited before the publish: a server may send its headers with the first event.
  const response = fetch(`${server.baseUrl}/bench.Ticker/Ticks`, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/connect+json' : 'application/connect+proto', 'connect-protocol-version': '1' },
    body: Buffer.from(json ? [0, 0, 0, 0, 2, 0x7b, 0x7d] : [0, 0, 0, 0, 0]),
    signal: controller.signal,
  });
  for (let i = 0; i < 100 && (await (await fetch(`${server.baseUrl}/subscribers`)).json()).subscribers !== 1; i++) await new Promise((r) => setTimeout(r, 50));
  await post(server, `/publish?n=${count}`);
  const res = await response;
  const head = { status: res.status, contentType: res.headers.get('content-type') };
  let bytes = Buffer.alloc(0);
  const frames = [];
  for await (const chunk of res.body) {
    bytes = Buffer.concat([bytes, chunk]);
    while (bytes.length >= 5 && bytes.length >= 5 + bytes.readUInt32BE(1)) {
      frames.push(bytes.subarray(0, 5 + bytes.readUInt32BE(1)).toString('latin1').replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<at>'));
      bytes = bytes.subarray(5 + bytes.readUInt32BE(1));
    }
    if (frames.length >= count) break;
  }
  controller.abort();
  return { ...head, frames };
}

// Before loading: a Connect pair must put the same bytes on the wire (time stamps aside).
for (const v of picked.filter((x) => x.peer !== undefined && x.protocol.startsWith('connect') && picked.some((p) => p.name === x.peer))) {
  const peer = picked.find((p) => p.name === v.peer);
  const [mine, theirs] = [await connectWire(servers.get(v.server), v.protocol, 3), await connectWire(servers.get(peer.server), peer.protocol, 3)];
  if (JSON.stringify(mine) !== JSON.stringify(theirs)) throw new Error(`${v.name} and ${v.peer} answer differently on the wire: ${JSON.stringify(mine)} against ${JSON.stringify(theirs)}`);
  console.log(`${v.name} and ${v.peer}: the same status, content type and bytes on the wire for 3 events (${mine.contentType}, ${mine.frames.map((f) => f.length).join(' + ')} bytes)`);
  // Both servers count no subscriber again before the runs.
  for (const server of [servers.get(v.server), servers.get(peer.server)]) {
    for (let i = 0; i < 100 && (await (await fetch(`${server.baseUrl}/subscribers`)).json()).subscribers !== 0; i++) await new Promise((r) => setTimeout(r, 50));
  }
}

const results = [];
try {
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(picked, round)) {
      const result = await measure(variant);
      results.push({ round, ...result });
      console.log(`round ${round + 1} ${variant.name}: ${int(result.perSecond)} events/s, ${fixed(result.cpuUsPerEvent)} µs CPU/event, busy: server ${int(100 * result.serverBusy)}% client ${int(100 * result.clientBusy)}%, ${fixed(result.kibPerSubscriber, 1)} KiB/subscriber, ${result.leftOpen} still subscribed 5 s after the clients left${result.delivered === result.expected ? '' : ` (delivered ${result.delivered} of ${result.expected})`}`);
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
  return per.length === 0 ? '–' : `${fixed(median(per))}× ${peer} (${fixed(min(per))}–${fixed(max(per))})`;
};
const spread = (name, key, format) => `${format(median(of(name, key)))} (${format(min(of(name, key)))}–${format(max(of(name, key)))})`;
const percent = (x) => `${int(100 * x)}%`;
console.log(`\n${subscribers} subscribers, ${events} events per run, ${rounds} round(s); server pinned to core ${pin.serverCpu ?? '-'}, client to ${pin.clientCpu ?? '-'}\n`);
console.log(
  markdownTable(
    ['variant', 'events/s (median, min–max)', 'CPU µs/event (median, min–max)', 'server / client busy', 'KiB/idle subscriber (heap + external)', 'throughput vs peer (per round: median, min–max)', 'CPU/event vs peer'],
    picked.map((v) => [
      v.label,
      spread(v.name, 'perSecond', int),
      spread(v.name, 'cpuUsPerEvent', fixed),
      `${percent(median(of(v.name, 'serverBusy')))} / ${percent(median(of(v.name, 'clientBusy')))}`,
      fixed(median(of(v.name, 'kibPerSubscriber')), 1),
      v.peer ? ratio(v.name, v.peer, 'perSecond') : '',
      v.peer ? ratio(v.name, v.peer, 'cpuUsPerEvent') : '',
    ]),
    'lrrrrrr',
  ),
);
// The same messages on both sides of a Connect pair: the first event each client saw, time aside.
for (const v of picked.filter((x) => x.peer !== undefined && x.protocol.startsWith('connect'))) {
  const shape = (name) => {
    const sample = results.find((r) => r.variant === name)?.sample;
    return sample === undefined ? undefined : JSON.stringify({ ...sample, tick: { ...sample.tick, at: typeof sample.tick?.at } });
  };
  if (shape(v.peer) === undefined) continue;
  if (shape(v.name) !== shape(v.peer)) throw new Error(`${v.name} and ${v.peer} sent different messages: ${shape(v.name)} against ${shape(v.peer)}`);
  console.log(`${v.name} and ${v.peer}: the same messages (every event checked in order and in content by the client; first: ${shape(v.name)})`);
}
if (cli.json) writeFileSync(cli.json, JSON.stringify({ subscribers, events, rounds, results }, null, 2));
