import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { generateProtos, STATUS_DETAILS_KEY, type GeneratedProto } from '../src/index.js';
import { failure, unary } from './helpers.js';
import { operation, t } from './fixtures/operation.js';
import { decodeRichStatus, generatedClient, startOperations, type StartedOperations } from './operations-helpers.js';

/**
 * Presence across an evolution step. v1: `{ quantity: z.int32(), phone: z.string().optional() }`;
 * v2: `{ quantity: z.number(), phone: z.string() }`. A client generated from v1 calls the v2
 * server: what it leaves out must be refused as "required", as REST refuses it (400 `body.phone`),
 * never handed to the handler as `{ quantity: 0, phone: '' }`.
 */

const calls: unknown[] = [];

function placeOrder(version: 1 | 2) {
  const input = version === 1 ? t.object({ quantity: t.int32(), phone: t.optional(t.string()) }) : t.object({ quantity: t.float(), phone: t.string() });
  return operation({
    name: 'placeOrder',
    input,
    output: t.object({ ok: t.boolean() }),
    grpc: { service: 'shop.v1.OrderService' },
    rest: { method: 'POST', path: '/orders' },
    handler: (value) => {
      calls.push(value);
      return { ok: true };
    },
  });
}

async function violations(call: Promise<unknown>): Promise<Array<{ field: string; description: string }>> {
  const err = await failure(call);
  expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
  return decodeRichStatus((err.metadata.get(STATUS_DETAILS_KEY) as Buffer[])[0]!).violations;
}

describe('a caller that leaves out a required field is told so, on gRPC as on REST, across versions', () => {
  let dir: string;
  let v1: GeneratedProto[];
  let server: StartedOperations;
  let oldClient: grpc.Client;
  let newClient: grpc.Client;

  beforeAll(async () => {
    v1 = generateProtos([placeOrder(1)]);
    dir = await mkdtemp(path.join(os.tmpdir(), 'fw-grpc-presence-'));
    // v1's file is committed: the v2 server numbers from it.
    await mkdir(path.join(dir, 'shop', 'v1'), { recursive: true });
    await writeFile(path.join(dir, v1[0]!.file), v1[0]!.text);
    server = await startOperations([placeOrder(2)], { protoOut: dir });
    oldClient = generatedClient(v1, 'shop.v1.OrderService', server.target);
    newClient = generatedClient(server.grpc.generateProtos(), 'shop.v1.OrderService', server.target);
  });

  afterAll(async () => {
    oldClient.close();
    newClient.close();
    await server.app.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    calls.length = 0;
  });

  it('gives every request field explicit presence, and a field whose type changed a new number', () => {
    expect(v1[0]!.text).toContain('message PlaceOrderRequest {\n  optional int32 quantity = 1;\n  optional string phone = 2;\n}');
    expect(server.grpc.generateProtos()[0]!.text).toContain('message PlaceOrderRequest {\n  optional string phone = 2;\n  optional double quantity = 3;\n  reserved 1;\n}');
  });

  it('REST answers 400 naming body.phone when the phone is left out', async () => {
    const response = await fetch(`${server.url}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ quantity: 2 }) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { details: { errors: Array<{ field: string }> } };
    expect(body.details.errors.map((e) => e.field)).toEqual(['body.phone']);
    expect(calls).toEqual([]);
  });

  it('gRPC answers INVALID_ARGUMENT naming phone to a v2 client that leaves it out', async () => {
    await expect(violations(unary(newClient, 'PlaceOrder', { quantity: 2 }))).resolves.toEqual([{ field: 'phone', description: 'Required' }]);
    expect(calls).toEqual([]);
  });

  it('gRPC answers INVALID_ARGUMENT naming phone and quantity to a v1 client: its quantity is an int under a number now reserved, never misread', async () => {
    await expect(violations(unary(oldClient, 'PlaceOrder', { quantity: 2 }))).resolves.toEqual([
      { field: 'quantity', description: 'Required' },
      { field: 'phone', description: 'Required' },
    ]);
    // Zero values are sent when set (presence), and reach validation as values.
    await expect(violations(unary(oldClient, 'PlaceOrder', { quantity: 0, phone: '' }))).resolves.toEqual([{ field: 'quantity', description: 'Required' }]);
    expect(calls).toEqual([]);
  });

  it('hands the handler what a v2 client set, zero values included', async () => {
    await unary(newClient, 'PlaceOrder', { quantity: 0, phone: '' });
    expect(calls).toEqual([{ quantity: 0, phone: '' }]);
  });
});
