import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Operation, TypeShape } from '@fw/core';
import { generateProtos } from '../src/index.js';
import { operation, t, type Optional } from './fixtures/operation.js';

/**
 * Field numbers across versions of an app, against committed golden files (test/golden/<step>/):
 * each step is generated with the previous step's file as the previous generation.
 */

const GOLDEN = path.join(__dirname, 'golden');

function golden(step: string): string {
  return readFileSync(path.join(GOLDEN, step, 'bookstore.proto'), 'utf8');
}

/** The bookstore's operations with Book's fields and Genre's values in the order given. */
function bookstore(bookFields: Array<[string, TypeShape | Optional]>, genres: string[]): Operation[] {
  const Genre = t.enum(genres, 'Genre');
  const Author = t.object({ name: t.string() }, 'Author');
  const known: Record<string, TypeShape | Optional> = { genre: Genre, author: Author };
  const Book = t.object(Object.fromEntries(bookFields.map(([name, type]) => [name, known[name] ?? type])), 'Book');
  return [
    operation({ name: 'getBook', description: 'One book by id', input: t.object({ id: t.string() }), output: Book, grpc: { service: 'bookstore.Catalog' }, handler: () => undefined }),
    operation({ name: 'listBooks', input: t.object({ genre: t.optional(Genre) }), output: t.list(Book), grpc: { service: 'bookstore.Catalog' }, handler: () => undefined }),
  ];
}

const placeholder = t.string();
const v1Fields: Array<[string, TypeShape | Optional]> = [
  ['id', t.string()],
  ['title', t.string()],
  ['genre', placeholder],
  ['author', placeholder],
  ['tags', t.list(t.string())],
  ['price', t.float()],
];

function generate(ops: Operation[], previousStep?: string): string {
  const previous = previousStep === undefined ? undefined : new Map([['bookstore.proto', golden(previousStep)]]);
  const files = generateProtos(ops, previous === undefined ? {} : { previous });
  expect(files.map((f) => f.file)).toEqual(['bookstore.proto']);
  return files[0]!.text;
}

describe('stable field numbers (golden files)', () => {
  it('v1: numbers follow declaration order', () => {
    expect(generate(bookstore(v1Fields, ['fiction', 'non-fiction']))).toBe(golden('v1'));
  });

  it('reordering keys and enum values changes nothing', () => {
    const reordered = [...v1Fields].reverse();
    expect(generate(bookstore(reordered, ['non-fiction', 'fiction']), 'v1')).toBe(golden('v1'));
  });

  it('v2: added fields and enum values take new numbers after the highest', () => {
    const text = generate(bookstore([['isbn', t.string()], ...v1Fields, ['rating', t.optional(t.float())]], ['poetry', 'fiction', 'non-fiction']), 'v1');
    expect(text).toBe(golden('v2-addition'));
    expect(text).toContain('  string isbn = 7;\n  optional double rating = 8;');
    expect(text).toContain('  GENRE_POETRY = 3;');
  });

  it('v3: removed fields and enum values become reserved numbers and names', () => {
    const fields = v1Fields.filter(([name]) => name !== 'tags');
    const text = generate(bookstore([...fields, ['rating', t.optional(t.float())]], ['non-fiction', 'poetry']), 'v2-addition');
    expect(text).toBe(golden('v3-removal'));
    expect(text).toContain('  reserved 5, 7;\n  reserved "isbn", "tags";');
    expect(text).toContain('  reserved 1;\n  reserved "GENRE_FICTION";');
  });

  it('v4: a reserved name coming back gets a new number; a field whose wire kind changed is renumbered', () => {
    const fields = v1Fields.filter(([name]) => name !== 'tags' && name !== 'price');
    const text = generate(bookstore([...fields, ['price', t.string()], ['rating', t.optional(t.float())], ['tags', t.list(t.string())]], ['non-fiction', 'poetry', 'fiction']), 'v3-removal');
    expect(text).toBe(golden('v4-return'));
    expect(text).toContain('  repeated string tags = 10;');
    expect(text).toContain('  string price = 9;');
    expect(text).toContain('  reserved 5 to 7;\n  reserved "isbn";');
    expect(text).toContain('  GENRE_FICTION = 4;');
  });
});
