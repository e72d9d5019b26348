import type { Operation } from '@fw/core';

/** The names generated GraphQL types and fields use, and the checks they pass. */

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Whether `name` is a GraphQL name a schema may define (not reserved with a leading `__`). */
export function isGraphQLName(name: string): boolean {
  return NAME.test(name) && !name.startsWith('__');
}

/** `author` → `Author`, `main_label` → `MainLabel`: the part a derived type name takes from a field. */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The operation's name with its first letter upper-cased: the stem of its derived type names. */
export function typeStem(op: Operation): string {
  return op.name.charAt(0).toUpperCase() + op.name.slice(1);
}

/**
 * The input type of a schema named `name`: `Book` → `BookInput`, so that one schema used as input
 * and as output is two GraphQL types; a name already ending in `Input` is kept.
 */
export function inputTypeName(name: string): string {
  return name.endsWith('Input') ? name : `${name}Input`;
}

/** An error naming the operation and where in it the problem is. */
export function operationError(op: Operation, path: string, message: string): Error {
  return new Error(`Operation "${op.name}": ${path}: ${message}`);
}
