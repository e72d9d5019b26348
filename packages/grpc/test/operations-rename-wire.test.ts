import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import type { Operation } from '@fw/core';
import { generateProtos, type GeneratedProto } from '../src/index.js';
import { unary } from './helpers.js';
import { operation, t } from './fixtures/operation.js';
import { generatedClient, startOperations, type StartedOperations } from './operations-helpers.js';

/**
 * A renamed message on the wire: a client generated before the rename (`Address`) calls a server
 * generated after it (`PostalAddress`, keys reordered, `Order` renamed `Purchase`). Every value
 * arrives in its own field, both ways.
 */

const seen: unknown[] = [];

function app(version: 1 | 2): Operation[] {
  const Address =
    version === 1
      ? t.object({ street: t.string(), city: t.string(), zip: t.optional(t.float()) }, 'Address')
      : t.object({ zip: t.optional(t.float()), city: t.string(), street: t.string() }, 'PostalAddress');
  const Order = t.object(version === 1 ? { id: t.string(), shipTo: Address } : { shipTo: Address, id: t.string() }, version === 1 ? 'Order' : 'Purchase');
  return [
    operation({
      name: 'placeOrder',
      input: t.object({ shipTo: Address, note: t.optional(t.string()) }),
      output: Order,
      grpc: { service: 'shop.v1.OrderService' },
      handler: (input) => {
        seen.push(input);
        return { id: 'o1', shipTo: (input as { shipTo: unknown }).shipTo };
      },
    }),
  ];
}

describe('a client generated before a rename talks to the server generated after it', () => {
  let dir: string;
  let v1: GeneratedProto[];
  let server: StartedOperations;
  let client: grpc.Client;

  beforeAll(async () => {
    v1 = generateProtos(app(1));
    dir = await mkdtemp(path.join(os.tmpdir(), 'fw-grpc-rename-'));
    await mkdir(path.join(dir, 'shop', 'v1'), { recursive: true });
    await writeFile(path.join(dir, v1[0]!.file), v1[0]!.text);
    server = await startOperations(app(2), { protoOut: dir });
    client = generatedClient(v1, 'shop.v1.OrderService', server.target);
  });

  afterAll(async () => {
    client.close();
    await server.app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('generates the renamed messages with the numbers of the old ones', () => {
    const text = server.grpc.generateProtos()[0]!.text;
    expect(text).toContain('message PostalAddress {\n  optional string street = 1;\n  optional string city = 2;\n  optional double zip = 3;\n}');
    expect(text).toContain('message PlaceOrderResponse {\n  Purchase purchase = 1;\n}');
  });

  it('reads every value of the old request into its own field, and answers in the fields the old client reads', async () => {
    const { reply } = await unary(client, 'PlaceOrder', { ship_to: { street: 'Rue 1', city: 'Lyon', zip: 69001 } });
    expect(seen).toEqual([{ shipTo: { street: 'Rue 1', city: 'Lyon', zip: 69001 } }]);
    expect(reply).toEqual({ order: { id: 'o1', ship_to: { street: 'Rue 1', city: 'Lyon', zip: 69001 } } });
  });
});
