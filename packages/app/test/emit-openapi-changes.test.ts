import { findOpenAPIChanges } from '../src/emit/openapi-changes.js';

/** A document with one POST operation taking `input` and answering `output` (through a component). */
const doc = (input: object, output: object, extra: object = {}): object => ({
  openapi: '3.1.0',
  paths: {
    '/orders': {
      post: {
        operationId: 'placeOrder',
        requestBody: { required: true, content: { 'application/json': { schema: input } } },
        responses: { '201': { description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } } },
      },
    },
    ...extra,
  },
  components: { schemas: { Order: output } },
});

const INPUT = { type: 'object', properties: { quantity: { type: 'integer' }, phone: { type: 'string' } }, required: ['quantity'] };
const ORDER = { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string', enum: ['placed', 'shipped'] } }, required: ['id', 'status'] };

const changes = (after: object): string[] => findOpenAPIChanges(doc(INPUT, ORDER), after).map((change) => `${change.breaking ? 'breaking' : 'safe'}: ${change.message}`);

describe('findOpenAPIChanges', () => {
  it('finds nothing between a document and itself', () => {
    expect(changes(doc(INPUT, ORDER))).toEqual([]);
  });

  it('says a removed operation, a response property removed and an input made required break clients', () => {
    expect(findOpenAPIChanges(doc(INPUT, ORDER, { '/ping': { get: { operationId: 'ping', responses: {} } } }), doc(INPUT, ORDER))).toEqual([
      { breaking: true, message: 'GET /ping (ping) was removed' },
    ]);
    expect(changes(doc(INPUT, { ...ORDER, properties: { id: ORDER.properties.id }, required: ['id'] }))).toEqual(['breaking: POST /orders 201 response.status was removed']);
    expect(changes(doc({ ...INPUT, required: ['quantity', 'phone'] }, ORDER))).toEqual(['breaking: POST /orders body.phone became required']);
  });

  it('says a narrower input type breaks, a wider one does not; the opposite for outputs', () => {
    expect(changes(doc({ ...INPUT, properties: { ...INPUT.properties, quantity: { type: 'number' } } }, ORDER))).toEqual([]);
    expect(changes(doc({ ...INPUT, properties: { ...INPUT.properties, phone: { type: 'integer' } } }, ORDER))).toEqual([
      'breaking: POST /orders body.phone changed type from string to integer',
    ]);
    expect(changes(doc(INPUT, { ...ORDER, properties: { ...ORDER.properties, id: { type: ['string', 'null'] } } }))).toEqual([
      'breaking: POST /orders 201 response.id changed type from string to string | null',
    ]);
  });

  it('says a new enum value breaks readers of an output, a removed one the senders of an input', () => {
    expect(changes(doc(INPUT, { ...ORDER, properties: { ...ORDER.properties, status: { type: 'string', enum: ['placed', 'shipped', 'lost'] } } }))).toEqual([
      'breaking: POST /orders 201 response.status now allows "lost"',
    ]);
  });

  it('lists added operations, optional inputs and output properties as safe', () => {
    const added = doc({ ...INPUT, properties: { ...INPUT.properties, note: { type: 'string' } } }, { ...ORDER, properties: { ...ORDER.properties, total: { type: 'integer' } } }, {
      '/ping': { get: { responses: {} } },
    });
    expect(changes(added)).toEqual(['safe: POST /orders body.note was added', 'safe: POST /orders 201 response.total was added', 'safe: GET /ping was added']);
  });
});
