import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diff, CriticalityLevel } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';
import { z } from 'zod';
import { createApp, emit, type SchemaChange } from '@fw/app';
import { defineOperation } from '@fw/app/validate';

/**
 * `fw emit --check` held to the field's own tools: an app evolved the way teams evolve APIs, emitted
 * after each step, and each step judged by buf breaking (WIRE, WIRE_JSON, FILE) on the .proto files
 * and graphql-inspector on the schema. fw's verdict — breaking or not, for gRPC how, for GraphQL
 * whether dangerous — must be theirs. Verdicts are compared, not the text, so the test holds
 * whatever the generators print.
 */

const BUF = join(__dirname, '..', 'node_modules', '.bin', 'buf');

const STEPS = [
  'the first version',
  'reorder fields and operations',
  'add an output field and an optional input field',
  'remove a field',
  're-add the removed field',
  'rename a field',
  'change a type (int32 → number)',
  'make an optional input field required',
  'add one enum value and remove another',
  'rename a shared object',
  'add an operation',
  'add an enum value used in outputs',
  'rename an operation, keeping its old name as an alias',
] as const;

/** The app as it is after `step` steps. */
function build(step: number) {
  const genres = step >= 11 ? ['fiction', 'drama', 'essay'] : step >= 8 ? ['fiction', 'drama'] : ['fiction', 'poetry'];
  const Genre = z.enum(genres).meta({ id: 'Genre' });
  const Address = z.object({ street: z.string(), city: z.string(), zip: z.string().optional() }).meta({ id: step >= 9 ? 'PostalAddress' : 'Address' });
  const book: Array<[string, z.ZodType]> = [
    ['id', z.string()],
    [step >= 5 ? 'name' : 'title', z.string()],
    ['author', z.string()],
    ['genre', Genre],
  ];
  if (step !== 3) book.push(['pages', z.int32().optional()]);
  if (step >= 2) book.push(['isbn', z.string()]);
  if (step >= 1) book.reverse();
  const Book = z.object(Object.fromEntries(book)).meta({ id: 'Book' });
  const Order = z.object({ id: z.string(), bookId: z.string(), address: Address }).meta({ id: 'Order' });
  const placeInput: Record<string, z.ZodType> = {
    bookId: z.string(),
    quantity: step >= 6 ? z.number() : z.int32(),
    phone: step >= 7 ? z.string() : z.string().optional(),
    address: Address,
  };
  if (step >= 2) placeInput.note = z.string().optional();
  const handler = async (): Promise<never> => {
    throw new Error('not called');
  };
  const operations: unknown[] = [
    defineOperation({ name: 'getBook', input: z.object({ id: z.string() }), output: Book, handler, graphql: { type: 'query' }, grpc: { service: 'shop.Catalog' } }),
    defineOperation({ name: 'listBooks', input: z.object({ genre: Genre.optional() }), output: z.object({ items: z.array(Book) }), handler, graphql: { type: 'query' }, grpc: { service: 'shop.Catalog' } }),
    defineOperation({ name: 'placeOrder', input: z.object(placeInput), output: Order, handler, graphql: { type: 'mutation' }, grpc: { service: 'shop.Orders' } }),
    defineOperation({ name: 'cancelOrder', input: z.object({ id: z.string() }), output: Order, handler, graphql: { type: 'mutation' }, grpc: { service: 'shop.Orders' } }),
  ];
  if (step >= 10) {
    // Its output and the object in it have no names of their own: they are named after the operation (`TrackOrderOutputPosition`).
    const tracking = z.object({ orderId: z.string(), position: z.object({ lat: z.number(), lng: z.number() }) });
    const renamed = step >= 12 ? { name: 'locateOrder', aliases: ['trackOrder'] } : { name: 'trackOrder' };
    operations.push(defineOperation({ ...renamed, input: z.object({ id: z.string() }), output: tracking, handler, graphql: { type: 'query' }, grpc: { service: 'shop.Orders' } }));
  }
  if (step >= 1) operations.reverse();
  const app = createApp({ onLog: () => {}, protocols: { graphql: true, grpc: true } });
  for (const operation of operations) app.operation(operation as Parameters<typeof app.operation>[0]);
  return app;
}

/** buf breaking's verdict for `category` on the proto directory `now` against `before`: true when it reports a breaking change. */
function bufBreaks(now: string, before: string, category: 'WIRE' | 'WIRE_JSON' | 'FILE'): Promise<{ breaks: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const config = JSON.stringify({ version: 'v2', breaking: { use: [category] } });
    Promise.all([writeFile(join(now, 'buf.yaml'), config), writeFile(join(before, 'buf.yaml'), config)])
      .then(() => {
        execFile(BUF, ['breaking', '--against', before, '--error-format', 'json'], { cwd: now, timeout: 30_000 }, (err, stdout, stderr) => {
          const code = err === null ? 0 : err.code;
          // 100 is buf's "breaking changes found"; anything else is a failure to run (a file that does not compile).
          if (code !== 0 && code !== 100) reject(new Error(`buf breaking (${category}) failed with ${String(code)}: ${stderr}${stdout}`));
          else resolve({ breaks: code === 100, output: stdout.trim() });
        });
      })
      .catch(reject);
  });
}

/** graphql-inspector's verdicts: whether any change is BREAKING, whether any is DANGEROUS. */
async function inspectorVerdicts(before: string, after: string): Promise<{ breaks: boolean; dangerous: boolean; output: string }> {
  const changes = await diff(buildSchema(before), buildSchema(after));
  const found = changes.filter((change) => change.criticality.level !== CriticalityLevel.NonBreaking);
  return {
    breaks: found.some((change) => change.criticality.level === CriticalityLevel.Breaking),
    dangerous: found.some((change) => change.criticality.level === CriticalityLevel.Dangerous),
    output: found.map((change) => `${change.criticality.level}: ${change.message}`).join('\n'),
  };
}

const fwBreaks = (changes: readonly SchemaChange[], kind: SchemaChange['kind'], levels: ReadonlyArray<SchemaChange['level']>): boolean =>
  changes.some((change) => change.kind === kind && change.breaking && levels.includes(change.level));

interface Verdicts {
  graphql: boolean;
  graphqlDangerous: boolean;
  wire: boolean;
  wireJson: boolean;
  file: boolean;
}

let dir: string;
const fw: Verdicts[] = [];
const oracles: Verdicts[] = [];
const evidence: string[] = [];
const found: SchemaChange[][] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-emit-oracles-'));
  for (let step = 0; step < STEPS.length; step++) {
    const out = join(dir, `step-${step}`);
    // The files of the step before are the committed ones: numbers are read from them, changes judged against them.
    if (step > 0) await cp(join(dir, `step-${step - 1}`), out, { recursive: true });
    const app = build(step);
    const { changes = [] } = await emit({ app, out, openapi: false, check: true });
    await emit({ app, out, openapi: false });
    if (step === 0) continue;
    const [before, now] = [join(dir, `step-${step - 1}`), out];
    // One category at a time: each run reads the buf.yaml written for it.
    const wire = await bufBreaks(join(now, 'proto'), join(before, 'proto'), 'WIRE');
    const wireJson = await bufBreaks(join(now, 'proto'), join(before, 'proto'), 'WIRE_JSON');
    const file = await bufBreaks(join(now, 'proto'), join(before, 'proto'), 'FILE');
    const inspector = await inspectorVerdicts(await readFile(join(before, 'schema.graphql'), 'utf8'), await readFile(join(now, 'schema.graphql'), 'utf8'));
    found.push(changes);
    fw.push({
      graphql: changes.some((change) => change.kind === 'graphql' && change.breaking),
      graphqlDangerous: changes.some((change) => change.kind === 'graphql' && change.dangerous),
      wire: fwBreaks(changes, 'proto', ['wire']),
      wireJson: fwBreaks(changes, 'proto', ['wire', 'json']),
      file: fwBreaks(changes, 'proto', ['wire', 'json', 'api']),
    });
    oracles.push({ graphql: inspector.breaks, graphqlDangerous: inspector.dangerous, wire: wire.breaks, wireJson: wireJson.breaks, file: file.breaks });
    evidence.push(
      [
        `step ${step}: ${STEPS[step]}`,
        ...changes
          .filter((change) => change.breaking || change.dangerous)
          .map((change) => `  fw ${change.kind}${change.level === undefined ? '' : ` [${change.level}]`}${change.dangerous ? ' (dangerous)' : ''}: ${change.message}`),
        ...[inspector.output, wire.output, wireJson.output, file.output].filter((text) => text !== '').map((text) => `  oracle: ${text.split('\n').join('\n  oracle: ')}`),
      ].join('\n'),
    );
  }
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Where fw and buf class a change differently, on purpose: buf compares a message-typed field by
 * its type's name, so a renamed message (step 9) is wire-incompatible to WIRE and WIRE_JSON; fw
 * compares the renamed message field by field from the rpc that reaches it (the bytes read the
 * same) and reports the rename as an `api` change, as buf's FILE rules and graphql-inspector call
 * it breaking. fw's `wire` level means "the binary encoding is affected" there.
 */
const KNOWN: Partial<Record<number, Partial<Verdicts>>> = {
  9: { wire: true, wireJson: true },
};

describe('fw emit --check agrees with buf breaking and graphql-inspector', () => {
  it.each(STEPS.slice(1).map((name, i) => [i + 1, name] as const))('step %i (%s)', (step) => {
    const ours = fw[step - 1]!;
    const theirs = { ...oracles[step - 1]!, ...Object.fromEntries(Object.keys(KNOWN[step] ?? {}).map((key) => [key, ours[key as keyof Verdicts]])) };
    // On a disagreement the message shows what each side found.
    expect({ step, ...ours, evidence: evidence[step - 1] }).toEqual({ step, ...theirs, evidence: evidence[step - 1] });
  });

  it('still sees the known difference (buf flags a renamed message on the wire, fw does not)', () => {
    for (const [step, verdicts] of Object.entries(KNOWN)) {
      for (const [key, value] of Object.entries(verdicts!)) expect({ step, key, buf: oracles[Number(step) - 1]![key as keyof Verdicts] }).toEqual({ step, key, buf: value });
    }
  });

  it('calls a reorder and additions safe, and every other step breaking (a re-added field releases a reserved name)', () => {
    // Step 12 breaks GraphQL only: its types named after the operation take the new name (graphql-inspector agrees).
    const expected = [false, false, true, true, true, true, true, true, true, false, false, true];
    expect(fw.map((verdicts) => verdicts.graphql || verdicts.file)).toEqual(expected);
    expect(oracles.map((verdicts) => verdicts.graphql || verdicts.file)).toEqual(expected);
  });

  it('keeps the .proto messages of a renamed operation\'s former name: compatible to buf, where GraphQL names its types anew', () => {
    const step = STEPS.indexOf('rename an operation, keeping its old name as an alias');
    expect(oracles[step - 1]).toEqual({ graphql: true, graphqlDangerous: false, wire: false, wireJson: false, file: false });
    expect(found[step - 1]!.filter((change) => change.kind === 'proto' && change.breaking)).toEqual([]);
    expect(found[step - 1]!.filter((change) => change.kind === 'graphql' && change.breaking).map((change) => change.message)).toEqual([
      'TrackOrderOutput was removed.',
      'TrackOrderOutputPosition was removed.',
      'Query.trackOrder changed type from TrackOrderOutput! to LocateOrderOutput!.',
    ]);
  });

  it('lists an enum value added to what responses carry as dangerous in schema.graphql and the .proto file, where buf sees nothing', () => {
    const step = STEPS.indexOf('add an enum value used in outputs');
    const dangerous = found[step - 1]!.filter((change) => change.dangerous).map((change) => `${change.kind}: ${change.message}`);
    expect(dangerous).toEqual(['graphql: essay was added to enum type Genre.', 'proto: enum value GENRE_ESSAY (4) was added to shop.Genre, which responses carry']);
    expect(oracles[step - 1]).toEqual({ graphql: false, graphqlDangerous: true, wire: false, wireJson: false, file: false });
  });
});
