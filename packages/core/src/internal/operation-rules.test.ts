import { HTTP_METHODS } from '../types.js';
import { OPERATION_BRAND, type Operation, type TypeShape } from '../operation.js';
import { byName, compareNames, operationError, pascalCase, readsBody, typeNames, typeStem, unwrapNullable, upperFirst, type NamedShape } from './operation-rules.js';

const op = { [OPERATION_BRAND]: true, name: 'getBook' } as unknown as Operation;
const STRING: TypeShape = { kind: 'scalar', scalar: 'string' };

describe('the operation rules', () => {
  it('upperFirst upper-cases the first letter and keeps the rest', () => {
    expect(['getBook', 'GetBook', 'x', '', '_id', 'ébène'].map(upperFirst)).toEqual(['GetBook', 'GetBook', 'X', '', '_id', 'Ébène']);
  });

  it('pascalCase joins the words between underscores, each upper-cased first', () => {
    expect(['author', 'main_label', '__odd__name_', 'getBook', 'a_b_c'].map(pascalCase)).toEqual(['Author', 'MainLabel', 'OddName', 'GetBook', 'ABC']);
  });

  it("typeStem is the operation's name in pascalCase", () => {
    expect(typeStem(op)).toBe('GetBook');
    expect(typeStem({ ...op, name: 'get_book' })).toBe('GetBook');
  });

  it('operationError names the operation and the path in it', () => {
    const error = operationError(op, 'input.id', 'a map cannot map here');
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('Operation "getBook": input.id: a map cannot map here');
  });

  it('unwrapNullable takes every nullable wrapper off and says whether there was one', () => {
    expect(unwrapNullable({ kind: 'nullable', of: { kind: 'nullable', of: STRING } })).toEqual({ type: STRING, nullable: true });
    const list: TypeShape = { kind: 'list', of: { kind: 'nullable', of: STRING } };
    expect(unwrapNullable(list)).toEqual({ type: list, nullable: false });
  });

  it('compareNames and byName order by code unit, never by locale: upper case before lower, é after z', () => {
    expect(['b', 'é', 'B', 'a', 'a_b', 'aB', 'z'].sort(compareNames)).toEqual(['B', 'a', 'aB', 'a_b', 'b', 'z', 'é']);
    expect(compareNames('same', 'same')).toBe(0);
    expect([{ name: 'b' }, { name: 'A' }, { name: 'a' }].sort(byName)).toEqual([{ name: 'A' }, { name: 'a' }, { name: 'b' }]);
  });

  it('readsBody: POST, PUT and PATCH take the input from the body, every other method from the query', () => {
    expect(HTTP_METHODS.filter(readsBody)).toEqual(['POST', 'PUT', 'PATCH']);
  });
});

/** Shapes and operations by hand, as `defineOperation` makes them: each object or enum call is a new schema. */
const object = (fields: Record<string, TypeShape>, name?: string): Extract<TypeShape, { kind: 'object' }> => ({
  kind: 'object',
  name,
  fields: Object.entries(fields).map(([field, type]) => ({ name: field, type, optional: false })),
  source: {},
});
const enumOf = (values: string[], name?: string): NamedShape => ({ kind: 'enum', name, values, source: {} });
const list = (of: TypeShape): TypeShape => ({ kind: 'list', of });
const nullable = (of: TypeShape): TypeShape => ({ kind: 'nullable', of });
const map = (of: TypeShape): TypeShape => ({ kind: 'map', of });
const operation = (name: string, input: Extract<TypeShape, { kind: 'object' }>, output: TypeShape): Operation =>
  ({ [OPERATION_BRAND]: true, name, input, output }) as unknown as Operation;
const none = (): Extract<TypeShape, { kind: 'object' }> => object({});

/** The error `typeNames` throws for `ops`. */
function refusal(ops: Operation[]): string {
  try {
    typeNames(ops);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('typeNames accepted the operations');
}

describe('typeNames', () => {
  it('gives a schema the name it carries (.meta({ id }))', () => {
    const Book = object({ id: STRING }, 'Book');
    const Genre = enumOf(['A'], 'Genre');
    const names = typeNames([operation('getBook', object({ genre: Genre }, 'BookQuery'), Book)]);
    expect([names.nameOf(Book), names.nameOf(Genre)]).toEqual(['Book', 'Genre']);
  });

  it('derives <Stem>Input, <Stem>Output, <Stem>OutputItem, <Stem>OutputValue from the one place an unnamed schema is used', () => {
    const input = object({ id: STRING });
    const output = object({ id: STRING });
    const item = object({ id: STRING });
    const value = enumOf(['A']);
    const names = typeNames([operation('get_book', input, nullable(output)), operation('listBooks', none(), list(list(item))), operation('kinds', none(), map(value))]);
    expect([names.nameOf(input), names.nameOf(output), names.nameOf(item), names.nameOf(value)]).toEqual(['GetBookInput', 'GetBookOutput', 'ListBooksOutputItem', 'KindsOutputValue']);
  });

  it('derives <Parent><Field> for a field, through its lists, maps and nullables, from the name of the parent, given or derived', () => {
    const author = object({ name: STRING });
    const role = enumOf(['ADMIN']);
    const label = object({ text: STRING });
    const tag = object({ text: STRING });
    const Book = object({ author: nullable(author), main_label: label, tags: list(map(tag)) }, 'Book');
    const names = typeNames([operation('getBook', object({ filter: object({ role }) }), Book)]);
    expect([names.nameOf(author), names.nameOf(label), names.nameOf(tag), names.nameOf(role)]).toEqual(['BookAuthor', 'BookMainLabel', 'BookTags', 'GetBookInputFilterRole']);
  });

  it('names a schema below a named schema once, however many operations and sides reach it', () => {
    const address = object({ city: STRING });
    const Customer = object({ address }, 'Customer');
    const names = typeNames([operation('b', object({ customer: Customer }), Customer), operation('a', none(), list(Customer))]);
    expect(names.nameOf(address)).toBe('CustomerAddress');
  });

  it('refuses an unnamed schema used by two operations, naming both uses and asking for .meta({ id })', () => {
    const lines = list(object({ sku: STRING }));
    const ops = [operation('placeOrder', object({ lines }), STRING), operation('getOrder', none(), object({ lines }, 'Order'))];
    const message =
      'The same object schema, with no name, is used at operation "getOrder" at output.lines[] and at operation "placeOrder" at input.lines[]: a schema used in more than one place takes no name from either, so give it one with .meta({ id })';
    expect(refusal(ops)).toBe(message);
    expect(refusal([...ops].reverse())).toBe(message);
  });

  it('refuses an unnamed schema used in two fields of one object, and an unnamed enum used twice', () => {
    const money = object({ cents: STRING });
    expect(refusal([operation('quote', none(), object({ net: money, gross: money }))])).toMatch(/^The same object schema, with no name, is used at operation "quote" at output.gross and at operation "quote" at output.net: .*\.meta\(\{ id \}\)$/);
    const status = enumOf(['OPEN']);
    expect(refusal([operation('a', object({ status }), object({ status }))])).toMatch(/^The same enum schema, with no name, is used at operation "a" at input.status and at operation "a" at output.status/);
  });

  it('refuses one name given to two different schemas, naming both', () => {
    const ops = [operation('getBook', none(), object({ id: STRING }, 'Book')), operation('listBooks', none(), list(object({ title: STRING }, 'Book')))];
    expect(refusal(ops)).toBe(
      'The type name "Book" is given to two different schemas, at operation "getBook" at output and at operation "listBooks" at output[]: give one of them another name with .meta({ id })',
    );
    expect(refusal([operation('b', none(), object({ x: STRING }, 'AOutput')), operation('a', none(), object({ y: STRING }))])).toMatch(/"AOutput" is given to two different schemas/);
  });

  it('gives the same names whatever order the operations come in', () => {
    const Order = object({ lines: list(object({ sku: STRING })), state: enumOf(['OPEN']) }, 'Order');
    const ops = [operation('placeOrder', object({ order: Order }), Order), operation('listOrders', object({ page: object({ n: STRING }) }), list(Order)), operation('zap', none(), STRING)];
    const names = (list: Operation[]): string[] => {
      const all = typeNames(list);
      const lines = (Order.fields[0]!.type as { of: NamedShape }).of;
      return [all.nameOf(Order), all.nameOf(lines), all.nameOf(Order.fields[1]!.type as NamedShape)];
    };
    expect(names(ops)).toEqual(['Order', 'OrderLines', 'OrderState']);
    expect(names([...ops].reverse())).toEqual(names(ops));
    expect(names([ops[1]!, ops[2]!, ops[0]!])).toEqual(names(ops));
  });

  it("keeps a schema's name when a field of another operation, or another field of the same object, is renamed", () => {
    const lines = object({ sku: STRING });
    const Order = object({ lines: list(lines) }, 'Order');
    const before = typeNames([operation('getOrder', none(), Order), operation('placeOrder', object({ lines: list(object({ sku: STRING })) }), STRING)]);
    const after = typeNames([operation('getOrder', none(), Order), operation('placeOrder', object({ items: list(object({ sku: STRING })) }), STRING)]);
    expect(after.nameOf(lines)).toBe(before.nameOf(lines));
    const note = object({ text: STRING });
    const first = typeNames([operation('a', none(), object({ note, zeta: object({ z: STRING }) }))]);
    const renamed = typeNames([operation('a', none(), object({ note, alpha: object({ z: STRING }) }))]);
    expect([first.nameOf(note), renamed.nameOf(note)]).toEqual(['AOutputNote', 'AOutputNote']);
  });
});
