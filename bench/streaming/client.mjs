// The streaming benchmark's subscriber process (pinned to the client core by the runner). Opens
// `subscribers` subscriptions over one protocol, prints {"subscribed":N} once the server counts
// them all, then on each "go" line on stdin asks the server to publish `events` events and prints
// {"delivered":D,"seconds":S} when every subscriber has received every one; "close" ends every
// subscription, waits until the server counts none, prints {"closed":true} and exits.
//   node client.mjs <protocol> <http-port> <grpc-port> <subscribers> <events>
// Protocols: sse (fw's REST route), graphql-sse (distinct-connections mode), graphql-ws, grpc,
// connect and connect-proto (a Connect server stream, JSON or binary, through connect-node's own
// client over HTTP/1.1: each stream's events are checked, in order and in content, and a bad one
// fails the run). Each result line also carries the client's own CPU seconds for the run.
import http from 'node:http';
import { createInterface } from 'node:readline';

const [protocol, httpPort, grpcPort, subscriberCount, eventCount] = process.argv.slice(2);
const port = Number(httpPort);
const total = Number(subscriberCount);
const events = Number(eventCount);
const QUERY = 'subscription { ticks { n at } }';

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
function request(method, path) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
    req.end();
  });
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until the server counts `count` subscribers; resolves with the last count seen. */
async function until(count, ms = 30_000) {
  let seen;
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
    seen = (await request('GET', '/subscribers')).subscribers;
    if (seen === count) return seen;
  }
  return seen;
}

let delivered = 0;
let target = 0;
let reached = () => {};
function deliver(n) {
  delivered += n;
  if (delivered >= target) reached();
}
let firstPayload;

/** Counts the occurrences of `marker` at line starts across chunk boundaries. */
function lineCounter(marker, onPayload) {
  let tail = '';
  return (chunk) => {
    const text = tail + chunk;
    let count = 0;
    let at = text.indexOf(marker);
    while (at !== -1) {
      if (at === 0 || text[at - 1] === '\n') {
        count++;
        if (firstPayload === undefined && onPayload !== undefined) {
          const end = text.indexOf('\n', at);
          if (end !== -1) firstPayload = onPayload(text.slice(at, end));
        }
      }
      at = text.indexOf(marker, at + marker.length);
    }
    tail = text.slice(Math.max(0, text.length - marker.length));
    if (count > 0) deliver(count);
  };
}

async function openSse(path, method, body, marker) {
  const closers = [];
  for (let i = 0; i < total; i++) {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { accept: 'text/event-stream', 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) throw new Error(`${protocol}: status ${res.statusCode}`);
      res.setEncoding('utf8');
      const count = lineCounter(marker, (line) => line);
      res.on('data', (chunk) => {
        // Data lines only count when they carry an event (not a heartbeat or a retry hint).
        count(chunk);
      });
      res.on('error', () => {});
    });
    req.on('error', () => {});
    req.end(body);
    closers.push(() => req.destroy());
  }
  return () => closers.forEach((close) => close());
}

async function openGraphqlWs() {
  const { WebSocket } = await import('ws');
  const sockets = [];
  for (let i = 0; i < total; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString());
      if (message.type === 'connection_ack') ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY } }));
      else if (message.type === 'next') {
        firstPayload ??= message.payload;
        deliver(1);
      } else if (message.type === 'error') throw new Error(`graphql-ws: ${JSON.stringify(message.payload)}`);
    });
    ws.on('error', () => {});
    sockets.push(ws);
  }
  return () => sockets.forEach((ws) => ws.terminate());
}

async function openGrpc() {
  const grpc = await import('@grpc/grpc-js');
  const protoLoader = await import('@grpc/proto-loader');
  const { generateProtos } = await import('@fw/app/grpc');
  const { default: protobuf } = await import('protobufjs');
  const { ticksOperation } = await import('./operation.mjs');
  const files = generateProtos([await ticksOperation()]);
  const definition = {};
  for (const file of files) Object.assign(definition, protoLoader.fromJSON(protobuf.parse(file.text, new protobuf.Root(), { keepCase: true }).root.toJSON(), { keepCase: true, longs: Number, enums: String, defaults: true }));
  const service = Object.keys(definition).find((name) => definition[name].Ticks !== undefined);
  const Client = grpc.makeGenericClientConstructor(definition[service], service);
  // Several connections, as many clients would open: one HTTP/2 connection caps its streams.
  const clients = Array.from({ length: Math.ceil(total / 100) }, (_, i) => new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1, 'fw.bench.channel': i }));
  const calls = [];
  for (let i = 0; i < total; i++) {
    const call = clients[i % clients.length].Ticks({});
    call.on('data', (message) => {
      firstPayload ??= message;
      deliver(1);
    });
    call.on('error', () => {});
    calls.push(call);
  }
  return () => {
    calls.forEach((call) => call.cancel());
    setTimeout(() => clients.forEach((client) => client.close()), 100);
  };
}

/** Events that arrived out of order or not as sent (Connect streams, which are checked one by one). */
let bad = 0;
let firstBad;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function openConnect(useBinaryFormat) {
  const { createClient } = await import('@connectrpc/connect');
  const { createConnectTransport } = await import('@connectrpc/connect-node');
  const { catalogService } = await import('../http/servers/connect-shared.mjs');
  const { ticksOperation } = await import('./operation.mjs');
  const service = catalogService({ operations: [await ticksOperation()], service: 'bench.Ticker' });
  const client = createClient(service, createConnectTransport({ httpVersion: '1.1', baseUrl: `http://127.0.0.1:${port}`, useBinaryFormat }));
  const controllers = [];
  for (let i = 0; i < total; i++) {
    const controller = new AbortController();
    controllers.push(controller);
    void (async () => {
      // Every "go" publishes n = 0 … events-1: the k-th event of a stream must carry n = k mod events.
      let k = 0;
      try {
        for await (const response of client.ticks({}, { signal: controller.signal })) {
          const { tick } = response;
          const keys = Object.keys(response).filter((key) => key !== '$typeName');
          if (tick === undefined || keys.length !== 1 || tick.n !== k % events || typeof tick.at !== 'string' || !ISO_DATE.test(tick.at) || Object.keys(tick).filter((key) => key !== '$typeName').length !== 2) {
            bad++;
            firstBad ??= { expectedN: k % events, got: response };
          }
          firstPayload ??= { tick: { n: tick?.n, at: tick?.at } };
          k++;
          deliver(1);
        }
        if (!controller.signal.aborted) {
          bad++;
          firstBad ??= { error: 'the stream ended before the client closed it' };
        }
      } catch (error) {
        if (!controller.signal.aborted) {
          bad++;
          firstBad ??= { error: String(error) };
        }
      }
    })();
  }
  return () => controllers.forEach((controller) => controller.abort());
}

let close;
if (protocol === 'sse') close = await openSse('/events', 'GET', undefined, 'data:');
else if (protocol === 'graphql-sse') close = await openSse('/graphql', 'POST', JSON.stringify({ query: QUERY }), 'event: next');
else if (protocol === 'graphql-ws') close = await openGraphqlWs();
else if (protocol === 'grpc') close = await openGrpc();
else if (protocol === 'connect') close = await openConnect(false);
else if (protocol === 'connect-proto') close = await openConnect(true);
else throw new Error(`unknown protocol ${protocol}`);
console.log(JSON.stringify({ subscribed: await until(total) }));

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line === 'go') {
    target = delivered + total * events;
    const done = new Promise((resolve) => (reached = resolve));
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    await request('POST', `/publish?n=${events}`);
    await Promise.race([done, sleep(60_000)]);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { user, system } = process.cpuUsage(cpu);
    console.log(JSON.stringify({ delivered: delivered - (target - total * events), expected: total * events, seconds, clientCpuSeconds: (user + system) / 1e6, bad, firstBad, sample: firstPayload }));
  } else if (line === 'close') {
    close();
    // Server code that keeps running after its client left is a defect the peers' users report:
    // count the subscriptions still open 5 s after every client went away.
    const left = await until(0, 5000);
    // A server that notices a gone subscriber only when it next writes to it: one more event lets
    // it find out, so the next run starts from none.
    if (left !== 0) {
      await request('POST', '/publish?n=1');
      await until(0, 5000);
    }
    console.log(JSON.stringify({ closed: true, left }));
    process.exit(0);
  }
}
