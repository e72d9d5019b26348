/**
 * The names GraphQL allows, and the checks generated names pass. The rules shared with the other
 * generators (`pascalCase`, `typeStem`, ...) are core's (`@fw/core/plugin`).
 */

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Whether `name` is a GraphQL name a schema may define (not reserved with a leading `__`). */
export function isGraphQLName(name: string): boolean {
  return NAME.test(name) && !name.startsWith('__');
}

/**
 * The input type of a schema named `name`: `Book` → `BookInput`, so that one schema used as input
 * and as output is two GraphQL types; a name already ending in `Input` is kept.
 */
export function inputTypeName(name: string): string {
  return name.endsWith('Input') ? name : `${name}Input`;
}
