import { HTTP_METHODS } from '../types.js';
import { OPERATION_BRAND, type Operation, type TypeShape } from '../operation.js';
import { byName, compareNames, operationError, pascalCase, readsBody, typeStem, unwrapNullable, upperFirst } from './operation-rules.js';

const op = { [OPERATION_BRAND]: true, name: 'getBook' } as unknown as Operation;
const STRING: TypeShape = { kind: 'scalar', scalar: 'string' };

describe('the operation rules', () => {
  it('upperFirst upper-cases the first letter and keeps the rest', () => {
    expect(['getBook', 'GetBook', 'x', '', '_id', 'ébène'].map(upperFirst)).toEqual(['GetBook', 'GetBook', 'X', '', '_id', 'Ébène']);
  });

  it('pascalCase joins the words between underscores, each upper-cased first', () => {
    expect(['author', 'main_label', '__odd__name_', 'getBook', 'a_b_c'].map(pascalCase)).toEqual(['Author', 'MainLabel', 'OddName', 'GetBook', 'ABC']);
  });

  it("typeStem is the operation's name, first letter upper-cased", () => {
    expect(typeStem(op)).toBe('GetBook');
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
