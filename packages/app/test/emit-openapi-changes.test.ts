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

const level = (change: { breaking: boolean; dangerous: boolean }): string => (change.breaking ? 'breaking' : change.dangerous ? 'dangerous' : 'safe');
const changes = (after: object, before = doc(INPUT, ORDER)): string[] => findOpenAPIChanges(before, after).map((change) => `${level(change)}: ${change.message}`);

describe('findOpenAPIChanges', () => {
  it('finds nothing between a document and itself', () => {
    expect(changes(doc(INPUT, ORDER))).toEqual([]);
  });

  it('says a removed operation, a response property removed and an input made required break clients', () => {
    expect(findOpenAPIChanges(doc(INPUT, ORDER, { '/ping': { get: { operationId: 'ping', responses: {} } } }), doc(INPUT, ORDER))).toEqual([
      { breaking: true, dangerous: false, message: 'GET /ping (ping) was removed' },
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

  it('calls a new enum value in a response dangerous (readers may not handle it) and in a request safe; a removed one breaks senders', () => {
    const status = (values: string[]): object => doc(INPUT, { ...ORDER, properties: { ...ORDER.properties, status: { type: 'string', enum: values } } });
    expect(changes(status(['placed', 'shipped', 'lost']))).toEqual(['dangerous: POST /orders 201 response.status now allows "lost"']);
    expect(changes(status(['placed']))).toEqual(['safe: POST /orders 201 response.status no longer allows "shipped"']);
    const kind = (values: string[]): object => doc({ ...INPUT, properties: { ...INPUT.properties, kind: { type: 'string', enum: values } } }, ORDER);
    expect(changes(kind(['gift', 'retail', 'bulk']), kind(['gift', 'retail']))).toEqual(['safe: POST /orders body.kind now allows "bulk"']);
    expect(changes(kind(['gift']), kind(['gift', 'retail']))).toEqual(['breaking: POST /orders body.kind no longer allows "retail"']);
  });

  it('calls a changed default of a request property or parameter dangerous: a client that leaves it out gets another value', () => {
    const withDefault = (value: number): object => doc({ ...INPUT, properties: { ...INPUT.properties, quantity: { type: 'integer', default: value } } }, ORDER);
    expect(changes(withDefault(2), withDefault(1))).toEqual(['dangerous: POST /orders body.quantity changed its default from 1 to 2']);
    expect(changes(withDefault(1))).toEqual(['dangerous: POST /orders body.quantity now has the default 1']);
    const page = (schema: object): object => doc(INPUT, ORDER, { '/books': { get: { parameters: [{ name: 'limit', in: 'query', schema }], responses: {} } } });
    expect(changes(page({ type: 'integer', default: 50 }), page({ type: 'integer', default: 20 }))).toEqual([
      'dangerous: GET /books query parameter limit changed its default from 20 to 50',
    ]);
  });

  it('lists added operations, optional inputs and output properties as safe', () => {
    const added = doc({ ...INPUT, properties: { ...INPUT.properties, note: { type: 'string' } } }, { ...ORDER, properties: { ...ORDER.properties, total: { type: 'integer' } } }, {
      '/ping': { get: { responses: {} } },
    });
    expect(changes(added)).toEqual(['safe: POST /orders body.note was added', 'safe: POST /orders 201 response.total was added', 'safe: GET /ping was added']);
  });
});
