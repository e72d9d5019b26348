import type { HTTPMethod } from '../types.js';
import type { Operation, TypeShape } from '../operation.js';

/**
 * The rules that turn an operation into names and types, one copy for every generator (each
 * protocol's schema, the REST route, the OpenAPI document). A generated name depends on these and
 * on the definitions alone, so every rule here is a pure function.
 */

/** `getBook` → `GetBook`: the name with its first letter upper-cased (an operation's method name, its type stem). */
export function upperFirst(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** `author` → `Author`, `main_label` → `MainLabel`: the part a derived type name takes from a field (or an operation). */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .filter((part) => part.length > 0)
    .map(upperFirst)
    .join('');
}

/** The stem of an operation's derived type names (`<Stem>Input`, `<Stem>Output`): its name, first letter upper-cased. */
export function typeStem(op: Operation): string {
  return upperFirst(op.name);
}

/** The error a generator throws for a definition it cannot serve, naming the operation and the path in it: `Operation "getBook": input.id: …`. */
export function operationError(op: Operation, path: string, message: string): Error {
  return new Error(`Operation "${op.name}": ${path}: ${message}`);
}

/** A shape under its `nullable` wrappers, and whether there was one. */
export function unwrapNullable(shape: TypeShape): { type: TypeShape; nullable: boolean } {
  let type = shape;
  let nullable = false;
  while (type.kind === 'nullable') {
    nullable = true;
    type = type.of;
  }
  return { type, nullable };
}

/**
 * The order generated names are listed in: by UTF-16 code unit, as `<` compares strings, the same
 * on every machine (never the locale's order), so a generated file is the same wherever it is made.
 */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `compareNames` on the `name` of two entries (types, fields, services, methods). */
export function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return compareNames(a.name, b.name);
}

const BODY_METHODS: ReadonlySet<string> = new Set<HTTPMethod>(['POST', 'PUT', 'PATCH']);

/** Whether an operation's REST route takes its input from the body (POST, PUT, PATCH), else from the query. */
export function readsBody(method: HTTPMethod): boolean {
  return BODY_METHODS.has(method);
}
