import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { GraphQLLimits } from '../types.js';

/** A limit a document broke, with the message the client sees. */
export interface LimitViolation {
  limit: keyof GraphQLLimits;
  message: string;
}

interface Measure {
  depth: number;
  aliases: number;
  /** Fields selected at this level, inline fragments and spreads expanded. */
  fields: number;
}

const ZERO: Measure = { depth: 0, aliases: 0, fields: 0 };

/**
 * Checks depth, aliases and root fields of every operation in the document, expanding fragments
 * (each fragment measured once, so the walk is linear in the document). Introspection subtrees
 * (`__schema`, `__type`) add no depth, since graphql's MaxIntrospectionDepthRule bounds them;
 * their aliases still count.
 */
export function checkDocumentLimits(document: DocumentNode, limits: Required<GraphQLLimits>): LimitViolation | undefined {
  const { maxDepth, maxAliases, maxRootFields } = limits;
  if (maxDepth === false && maxAliases === false && maxRootFields === false) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const measured = new Map<string, Measure>();
  const active = new Set<string>();

  const fragmentMeasure = (name: string): Measure => {
    const known = measured.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    // Unknown fragments and cycles are validation errors, reported after the limits pass.
    if (fragment === undefined || active.has(name)) return ZERO;
    active.add(name);
    const result = measure(fragment.selectionSet);
    active.delete(name);
    measured.set(name, result);
    return result;
  };

  const measure = (selectionSet: SelectionSetNode): Measure => {
    let depth = 0;
    let aliases = 0;
    let fields = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        fields += 1;
        if (selection.alias !== undefined) aliases += 1;
        if (selection.selectionSet === undefined) {
          if (depth < 1) depth = 1;
          continue;
        }
        const inner = measure(selection.selectionSet);
        aliases += inner.aliases;
        const name = selection.name.value;
        const below = name === '__schema' || name === '__type' ? 0 : inner.depth;
        if (1 + below > depth) depth = 1 + below;
        continue;
      }
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? measure(selection.selectionSet) : fragmentMeasure(selection.name.value);
      fields += inner.fields;
      aliases += inner.aliases;
      if (inner.depth > depth) depth = inner.depth;
    }
    return { depth, aliases, fields };
  };

  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const label = definition.name === undefined ? 'The operation' : `Operation "${definition.name.value}"`;
    const { depth, aliases, fields } = measure(definition.selectionSet);
    if (maxDepth !== false && depth > maxDepth) {
      return { limit: 'maxDepth', message: `${label} is too deep: depth ${depth} exceeds the maximum depth of ${maxDepth}.` };
    }
    if (maxAliases !== false && aliases > maxAliases) {
      return { limit: 'maxAliases', message: `${label} uses ${aliases} aliases; the maximum is ${maxAliases}.` };
    }
    if (maxRootFields !== false && fields > maxRootFields) {
      return { limit: 'maxRootFields', message: `${label} selects ${fields} root fields; the maximum is ${maxRootFields}.` };
    }
  }
  return undefined;
}

/** The UTF-8 size of `query` when it is larger than `max` bytes, else undefined (bytes are counted only when needed). */
export function oversizeBytes(query: string, max: number): number | undefined {
  // A UTF-16 code unit is at most 3 UTF-8 bytes, and at least 1.
  if (query.length * 3 <= max) return undefined;
  if (query.length > max) return Buffer.byteLength(query);
  const bytes = Buffer.byteLength(query);
  return bytes > max ? bytes : undefined;
}
