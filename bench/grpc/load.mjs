// The gRPC load generator (wrk cannot speak gRPC): a long-lived client process, pinned by the
// runner to the client core. It reads one JSON command per line on stdin and answers one JSON
// line on stdout:
//   {"cmd":"check","target":"127.0.0.1:N","client":"grpc-js"}     → {"reply":{...}}
//   {"cmd":"run","target":"...","client":"http2","seconds":3,"concurrency":50,"connections":1}
//                                  → {"calls","failed","codes","seconds","latencyMs","cpuSeconds"}
// A run keeps `concurrency` unary calls in flight, spread over `connections` connections per
// target (HTTP/2 streams), until the time is up. Connections are kept between runs, so the client's JIT and connection
// are warm for every server alike. Two clients:
//   grpc-js: a real @grpc/grpc-js client (full stack, as users call);
//   http2:   the same call as raw node:http2 streams: the request message serialised once by the
//            proto's own serializer, each answer checked byte for byte against the expected reply
//            message and for grpc-status 0. It costs the client several times less CPU per call,
//            so the client core stops being the bottleneck and the servers are what is measured.
import http2 from 'node:http2';
import net from 'node:net';
import { createInterface } from 'node:readline';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { LOADER_OPTIONS, PROTO_PATH } from './proto.mjs';

const { Greeter } = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS)).bench;
const REQUEST = { name: 'bench' };
const EXPECTED = { message: 'Hello bench' };
const METHOD = Greeter.service.SayHello;

/** A gRPC length-prefixed message: 1 byte "not compressed", 4 bytes big-endian length, the bytes. */
function frame(bytes) {
  const out = Buffer.alloc(5 + bytes.length);
  out.writeUInt32BE(bytes.length, 1);
  bytes.copy(out, 5);
  return out;
}
const REQUEST_FRAME = frame(METHOD.requestSerialize(REQUEST));
const EXPECTED_FRAME = frame(METHOD.responseSerialize(EXPECTED));
const HEADERS = { ':method': 'POST', ':path': METHOD.path, 'content-type': 'application/grpc', te: 'trailers' };

const clients = new Map();
/** The client of `kind` for `target`; `index` picks one of several connections (0 by default). */
const clientFor = (kind, target, index = 0) => {
  const key = `${kind} ${target} ${index}`;
  let c = clients.get(key);
  if (!c) {
    c = kind === 'grpc-js' ? grpcJsClient(target, index) : http2Client(target);
    clients.set(key, c);
  }
  return c;
};

/** call() resolves to the reply object on success, else to the gRPC status code (or -1). */
function grpcJsClient(target, index) {
  // A distinct channel option per index keeps grpc-js from sharing one subchannel (connection).
  const c = new Greeter(target, grpc.credentials.createInsecure(), { 'grpc.fw-bench-connection': index, 'grpc.use_local_subchannel_pool': 1 });
  return {
    call: () => new Promise((resolve) => c.SayHello(REQUEST, { deadline: Date.now() + 10_000 }, (err, reply) => resolve(err ? err.code ?? -1 : reply))),
    close: () => c.close(),
  };
}

function http2Client(target) {
  // As grpc-js's own client does: no Nagle delay on the client's writes.
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const session = http2.connect(`http://${target}`, { createConnection: () => net.connect({ host, port, noDelay: true }) });
  session.on('error', () => {});
  return {
    call: () =>
      new Promise((resolve) => {
        const req = session.request(HEADERS);
        const chunks = [];
        let status;
        req.on('response', (headers) => {
          if (headers['grpc-status'] !== undefined) status = headers['grpc-status']; // trailers-only answer
        });
        req.on('trailers', (trailers) => {
          status = trailers['grpc-status'];
        });
        req.on('data', (chunk) => chunks.push(chunk));
        req.on('end', () => {
          const code = status === undefined ? -1 : Number(status);
          if (code !== 0) return resolve(code);
          resolve(Buffer.concat(chunks).equals(EXPECTED_FRAME) ? EXPECTED : -2);
        });
        req.on('error', () => resolve(-1));
        req.end(REQUEST_FRAME);
      }),
    close: () => session.close(),
  };
}

async function run({ target, client: kind, seconds, concurrency, connections = 1 }) {
  const latencies = [];
  const codes = {};
  let calls = 0;
  let failed = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const worker = async (_, i) => {
    const c = clientFor(kind, target, i % connections);
    while (performance.now() < end) {
      const start = performance.now();
      const out = await c.call();
      const done = performance.now();
      if (typeof out === 'object' && out !== null) {
        calls++;
        latencies.push(done - start);
      } else {
        failed++;
        codes[out] = (codes[out] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : NaN);
  return { calls, failed, codes, seconds: elapsed, latencyMs: { p50: pct(50), p90: pct(90), p99: pct(99) }, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let answer;
  try {
    const msg = JSON.parse(line);
    if (msg.cmd === 'check') {
      const out = await clientFor(msg.client, msg.target).call();
      answer = typeof out === 'object' ? { reply: out } : { error: `gRPC status ${out}` };
    } else if (msg.cmd === 'run') {
      answer = await run(msg);
    } else {
      answer = { error: `unknown command ${msg.cmd}` };
    }
  } catch (err) {
    answer = { error: String(err?.stack ?? err) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
for (const c of clients.values()) c.close();
// A code of -2 in "codes" is a grpc-status 0 answer whose message was not the expected reply.
