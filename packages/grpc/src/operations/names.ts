/**
 * The names proto allows, and the checks generated names pass. The rules shared with the other
 * generators (`pascalCase`, `typeStem`, ...) are core's (`@fw/core/plugin`).
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `name` is a proto identifier (a message, enum, field, service or method name). */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** Words that cannot name a message or enum: where a field's type is read they mean something else. */
const NOT_TYPE_NAMES = new Set([
  ...['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes'],
  ...['optional', 'repeated', 'required', 'reserved', 'map', 'message', 'enum', 'oneof', 'extensions', 'extend', 'service', 'stream', 'group'],
]);

/** Whether `name` can name a message or enum. */
export function isTypeName(name: string): boolean {
  return IDENTIFIER.test(name) && !NOT_TYPE_NAMES.has(name);
}

/** `BookGenre` → `BOOK_GENRE`, `in-stock` → `IN_STOCK`, `HTTPStatus` → `HTTP_STATUS`: enum value names, as the protobuf style guide writes them. */
export function upperSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

/** protoc's JSON name of a field (`main_label` → `mainLabel`); two fields of one message may not share it in proto3. */
export function jsonName(name: string): string {
  return name.replace(/_+([a-z0-9])/gi, (_, char: string) => char.toUpperCase());
}

/** `acme.shop.v1` → `acme/shop/v1.proto`: the file a proto package's messages and services are generated in. */
export function protoFileOf(pkg: string): string {
  return `${pkg.split('.').join('/')}.proto`;
}
