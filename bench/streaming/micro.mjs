// In-process micro benchmark of a streaming operation's fan-out, with no network: `--streams`
// streams of one operation (the bench's `ticks`, through `runStreamOperation`), fed by fw's
// in-memory pub/sub, each published event pulled by every stream: what the pub/sub queue, the
// handler's generator and the operation's output check cost per delivered event, before any
// transport. Two handlers alternate in rounds:
//   shared — yields what the pub/sub gives (`tracked(id, data)`, the same object to every stream);
//   copied — yields a copy of each event's data (what a handler that maps events pays).
// Reports CPU µs per delivered event (process.cpuUsage), median (min–max) over rounds, and the
// ratio shared / copied per round.
//   node streaming/micro.mjs [--streams 1000] [--events 50] [--rounds 7]
import { parseArgs } from 'node:util';
import { tracked } from '@fw/app';
import { createPubSub } from '@fw/app/middleware';
import { ContextVariables, runStreamOperation } from '@fw/core/plugin';
import { median, min, max, fixed } from '../lib/stats.mjs';
import { ticksOperation } from './operation.mjs';

const { values } = parseArgs({ options: { streams: { type: 'string' }, events: { type: 'string' }, rounds: { type: 'string' } } });
const streams = Number(values.streams ?? 1000);
const events = Number(values.events ?? 50);
const rounds = Number(values.rounds ?? 7);

/** A request context as protocol packages make one. */
class Ctx {
  protocol = 'custom';
  signal = new AbortController().signal;
  #vars;
  get(key) { return this.#vars === undefined ? key.defaultValue : this.#vars.get(key); }
  set(key, value) { (this.#vars ??= new ContextVariables()).set(key, value); return this; }
}

const pubsub = createPubSub({ replay: { size: 0 } });
const shared = await ticksOperation(async function* (_input, ctx) {
  for await (const message of pubsub.subscribe('shared', { signal: ctx.signal })) yield tracked(message.id, message.data);
});
const copied = await ticksOperation(async function* (_input, ctx) {
  for await (const message of pubsub.subscribe('copied', { signal: ctx.signal })) yield tracked(message.id, { ...message.data });
});

/** CPU µs per delivered event of one run: open the streams, publish, pull every event on each. */
async function run(op, topic) {
  const opened = await Promise.all(Array.from({ length: streams }, () => runStreamOperation(op, new Ctx(), {})));
  const start = process.cpuUsage();
  let delivered = 0;
  const pulls = opened.map(async (stream) => {
    for (let i = 0; i < events; i++) {
      const step = await stream.next();
      if (step.done || step.value.data.n !== i) throw new Error(`stream ended or skipped at ${i}`);
      delivered++;
    }
    await stream.return();
  });
  for (let i = 0; i < events; i++) await pubsub.publish(topic, { n: i, at: new Date(0).toISOString() });
  await Promise.all(pulls);
  const used = process.cpuUsage(start);
  if (delivered !== streams * events) throw new Error(`delivered ${delivered} of ${streams * events}`);
  return (used.user + used.system) / delivered;
}

await run(shared, 'shared');
await run(copied, 'copied');
const figures = { shared: [], copied: [], ratio: [] };
for (let r = 0; r < rounds; r++) {
  const a = await run(shared, 'shared');
  const b = await run(copied, 'copied');
  figures.shared.push(a);
  figures.copied.push(b);
  figures.ratio.push(a / b);
}
const show = (xs) => `${fixed(median(xs), 2)} (${fixed(min(xs), 2)}–${fixed(max(xs), 2)})`;
console.log(`${streams} streams × ${events} events, ${rounds} rounds, node ${process.version}`);
console.log(`shared: ${show(figures.shared)} µs per delivered event`);
console.log(`copied: ${show(figures.copied)} µs per delivered event`);
console.log(`shared / copied: ${show(figures.ratio)}`);
