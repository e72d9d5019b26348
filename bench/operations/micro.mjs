// In-process micro benchmark of the operations path: CPU µs per call of an operation against the
// same logic written by hand, with no network — REST through `app.inject` (operation route against a
// createHandler route), GraphQL/gRPC through `runOperation` against a hand-written resolver body.
// Alternates the two in rounds and reports the median µs per call and the ratio per round.
//   node operations/micro.mjs [--calls 20000] [--rounds 7]
import { parseArgs } from 'node:util';
import { createApp, HTTPError } from '@fw/app';
import { createHandler, defineOperation } from '@fw/app/validate';
import { ContextVariables, runOperation } from '@fw/core/plugin';
import { z } from 'zod';

const { values } = parseArgs({ options: { calls: { type: 'string' }, rounds: { type: 'string' } } });
const calls = Number(values.calls ?? 20000);
const rounds = Number(values.rounds ?? 7);

const Input = z.object({ name: z.string().min(1).max(100) });
const Output = z.object({ message: z.string() });
const reply = ({ name }) => ({ message: `Hello ${name}` });
function parsed(raw) {
  const result = Input.safeParse(raw);
  if (!result.success) throw new HTTPError(400, 'Validation failed', { errors: result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message, code: i.code })) });
  return result.data;
}
const op = defineOperation({ name: 'sayHello', input: Input, output: Output, handler: async (input) => reply(input), rest: { method: 'POST', path: '/hello' }, graphql: { type: 'query' } });
const opApp = createApp();
opApp.operation(op);
const handApp = createApp();
handApp.post('/hello', ...createHandler({ body: Input }, async (ctx) => ctx.json(reply(ctx.body))));

/** A request context as protocol packages make one: variables made on the first set. */
class Ctx {
  protocol = 'grpc';
  #vars;
  get(key) { return this.#vars === undefined ? key.defaultValue : this.#vars.get(key); }
  set(key, value) { (this.#vars ??= new ContextVariables()).set(key, value); return this; }
}
const resolver = async (args) => reply(parsed(args));
const request = { method: 'POST', url: '/hello', headers: { 'content-type': 'application/json' }, body: '{"name":"bench"}' };

const cases = {
  rest: {
    operation: () => opApp.inject(request),
    handwritten: () => handApp.inject(request),
  },
  call: {
    operation: () => runOperation(op, new Ctx(), { name: 'bench' }),
    handwritten: () => (new Ctx(), resolver({ name: 'bench' })),
  },
};

const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
async function measure(fn) {
  const t = cpu();
  for (let i = 0; i < calls; i++) await fn();
  return (cpu() - t) / calls;
}
const first = await cases.rest.operation();
const second = await cases.rest.handwritten();
if (first.body !== second.body || first.statusCode !== 200) throw new Error(`differ: ${first.body} / ${second.body}`);
for (const [name, c] of Object.entries(cases)) {
  await measure(c.operation); await measure(c.handwritten);
  const ratios = []; const o = []; const h = [];
  for (let r = 0; r < rounds; r++) {
    const a = await measure(c.operation); const b = await measure(c.handwritten);
    o.push(a); h.push(b); ratios.push(a / b);
  }
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  console.log(`${name}: operation ${med(o).toFixed(2)} µs, hand-written ${med(h).toFixed(2)} µs, ratio ${med(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
}
