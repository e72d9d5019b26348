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

/** `priceCents` → `price_cents`, `HTTPStatus` → `http_status`, `main_label` stays: a field name as the protobuf style guide (and `buf lint`) writes it. */
export function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** A package component that is a version (`v1`, `v2beta1`, `v1p1alpha`), as buf's PACKAGE_VERSION_SUFFIX reads it. */
const VERSION = /^v\d+(?:p\d+)?(?:(?:alpha|beta)\d*)?$/;

/**
 * `acme.shop.v1` → `acme/shop/v1/shop.proto`, `bookstore` → `bookstore/bookstore.proto`: the file a
 * proto package is generated in, in the directory of its package (buf's PACKAGE_DIRECTORY_MATCH),
 * named after the last part of the package that is not a version.
 */
export function protoFileOf(pkg: string): string {
  const parts = pkg.split('.');
  const stem = [...parts].reverse().find((part) => !VERSION.test(part)) ?? parts[parts.length - 1]!;
  return `${parts.join('/')}/${snakeCase(stem)}.proto`;
}

/** `acme.shop.v1` → `acme/shop/v1.proto`: where files were generated before they were laid out by package directory, read as the previous generation when the file is not found where it is now. */
export function legacyProtoFileOf(pkg: string): string {
  return `${pkg.split('.').join('/')}.proto`;
}
