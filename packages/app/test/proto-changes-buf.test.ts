import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProtoChanges } from '@fw/app';

/**
 * findProtoChanges held to buf breaking rule by rule: for each change, fw's `wire` level must be
 * what buf's WIRE category refuses, `wire` or `json` what WIRE_JSON refuses, and any breaking
 * change what FILE refuses.
 */

const BUF = join(__dirname, '..', 'node_modules', '.bin', 'buf');

const V1 = `syntax = "proto3";
package shop;
service Orders {
  rpc Place(PlaceInput) returns (Order);
  rpc Cancel(CancelInput) returns (Order);
}
message PlaceInput {
  optional string phone = 1;
  int32 quantity = 2;
  Address address = 3;
  Kind kind = 4;
  string note = 5;
}
message CancelInput { string id = 1; }
message Order { string id = 1; repeated string lines = 2; }
message Address { string street = 1; string city = 2; }
enum Kind { KIND_UNSPECIFIED = 0; KIND_A = 1; KIND_B = 2; }
`;

const RESERVED = V1.replace('int32 quantity = 2;', 'reserved 2; reserved "quantity";');
const RESERVED_VALUE = V1.replace('KIND_B = 2;', 'reserved 2; reserved "KIND_B";');

/** [what changed, before, after] */
const CASES: Array<[string, string, string]> = [
  ['a field added', V1, V1.replace('string note = 5;', 'string note = 5; string extra = 6;')],
  // The enum now in a response too: dangerous to fw (an old client may read the new value), compatible to buf.
  ['an enum value added', V1, V1.replace('message Order { string id = 1;', 'message Order { string id = 1; Kind kind = 3;').replace('KIND_B = 2;', 'KIND_B = 2; KIND_C = 3;')],
  ['a field removed, nothing reserved', V1, V1.replace('int32 quantity = 2;', '')],
  ['a field removed, its number reserved', V1, V1.replace('int32 quantity = 2;', 'reserved 2;')],
  ['a field removed, number and name reserved', V1, V1.replace('int32 quantity = 2;', 'reserved 2; reserved "quantity";')],
  ['int32 → double under the same number', V1, V1.replace('int32 quantity = 2;', 'double quantity = 2;')],
  ['int32 → int64 under the same number', V1, V1.replace('int32 quantity = 2;', 'int64 quantity = 2;')],
  ['string → bytes under the same number', V1, V1.replace('string note = 5;', 'bytes note = 5;')],
  ['a type change under a new number', V1, V1.replace('int32 quantity = 2;', 'double quantity = 6; reserved 2;')],
  ['a field renamed under its number', V1, V1.replace('string street = 1;', 'string road = 1;')],
  ['optional → implicit presence', V1, V1.replace('optional string phone = 1;', 'string phone = 1;')],
  ['repeated → singular', V1, V1.replace('repeated string lines = 2;', 'string lines = 2;')],
  ['fields moved into a oneof', V1, V1.replace('string street = 1; string city = 2;', 'oneof place { string street = 1; string city = 2; }')],
  ['a reserved number given to a new field', RESERVED, RESERVED.replace('reserved 2;', 'string other = 2;')],
  // The old number stays reserved; the name is a field's again, so it can no longer be reserved (protoc refuses both).
  ['a removed field re-added under a new number', RESERVED, RESERVED.replace('reserved 2; reserved "quantity";', 'reserved 2; int32 quantity = 6;')],
  ['a removed enum value re-added under a new number', RESERVED_VALUE, RESERVED_VALUE.replace('reserved 2; reserved "KIND_B";', 'reserved 2; KIND_B = 3;')],
  ['an enum value removed, nothing reserved', V1, V1.replace('KIND_B = 2;', '')],
  ['an enum value removed, number and name reserved', V1, V1.replace('KIND_B = 2;', 'reserved 2; reserved "KIND_B";')],
  ['an enum value renamed', V1, V1.replace('KIND_B = 2;', 'KIND_C = 2;')],
  ['an rpc removed', V1, V1.replace('  rpc Cancel(CancelInput) returns (Order);\n', '')],
  ['a message renamed', V1, V1.replace('Address address = 3;', 'PostalAddress address = 3;').replace('message Address', 'message PostalAddress')],
];
/**
 * buf compares a message-typed field by its type's name (WIRE's FIELD_WIRE_COMPATIBLE_TYPE); fw
 * pairs the renamed message from the rpc that reaches it and finds the same bytes: an `api` change.
 */
const KNOWN: Record<string, Partial<Record<'wire' | 'wireJson', boolean>>> = { 'a message renamed': { wire: true, wireJson: true } };

type Category = 'WIRE' | 'WIRE_JSON' | 'FILE';

async function buf(now: string, before: string, category: Category): Promise<boolean> {
  const config = JSON.stringify({ version: 'v2', breaking: { use: [category] } });
  await Promise.all([writeFile(join(now, 'buf.yaml'), config), writeFile(join(before, 'buf.yaml'), config)]);
  return new Promise((resolve, reject) => {
    execFile(BUF, ['breaking', '--against', before], { cwd: now, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : err.code;
      if (code !== 0 && code !== 100) reject(new Error(`buf breaking (${category}) failed with ${String(code)}: ${stderr}${stdout}`));
      else resolve(code === 100);
    });
  });
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fw-proto-buf-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('findProtoChanges classes each change as buf breaking does', () => {
  it.each(CASES.map(([name], i) => [name, i] as const))('%s', async (name, i) => {
    const [, before, after] = CASES[i]!;
    const [old, now] = [join(dir, `${i}-before`), join(dir, `${i}-after`)];
    await Promise.all([mkdir(old), mkdir(now)]);
    await Promise.all([writeFile(join(old, 'shop.proto'), before), writeFile(join(now, 'shop.proto'), after)]);
    const theirs = { wire: await buf(now, old, 'WIRE'), wireJson: await buf(now, old, 'WIRE_JSON'), file: await buf(now, old, 'FILE') };
    const changes = findProtoChanges(new Map([['shop.proto', before]]), new Map([['shop.proto', after]]));
    const levels = new Set(changes.map((change) => change.breaks));
    const ours = { wire: levels.has('wire'), wireJson: levels.has('wire') || levels.has('json'), file: changes.some((change) => change.breaks !== undefined) };
    expect({ name, ...ours }).toEqual({ name, ...theirs, ...KNOWN[name] === undefined ? {} : Object.fromEntries(Object.keys(KNOWN[name]).map((key) => [key, ours[key as 'wire']])) });
    for (const [key, value] of Object.entries(KNOWN[name] ?? {})) expect({ name, key, buf: theirs[key as 'wire'] }).toEqual({ name, key, buf: value });
  });
});
