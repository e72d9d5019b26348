import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
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
  const { maxDepth, maxAliases, maxRootFields, maxSelections, maxFieldPairs } = limits;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  if (maxSelections !== false || maxFieldPairs !== false) {
    const violation = checkSelections(document, fragments, maxSelections, maxFieldPairs);
    if (violation !== undefined) return violation;
  }
  if (maxDepth === false && maxAliases === false && maxRootFields === false) return undefined;
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

/** Fields merged at one place of a selection: same-named fields share the place of their sub-selections. */
interface Place {
  /** Per response name: how many fields, the summed weight of their arguments, and their sub-selections' place. */
  fields: Map<string, { count: number; weight: number; child: Place | undefined }>;
  spreads: Set<string> | undefined;
}

/** Measured: printing one argument value for a pair comparison costs about as much as 8 plain pairs. */
const ARGUMENT_PRINT_WEIGHT = 8;

/** How far the walk goes when `maxSelections` is off and only `maxFieldPairs` is checked. */
const UNCOUNTED_WALK_CEILING = 100_000;

/**
 * Counts the selections of the document and the pairs of same-named fields graphql's
 * OverlappingFieldsCanBeMergedRule compares, the cost that is quadratic in the document (a pair
 * weighs more when its fields have arguments, since the rule prints them to compare them). Each
 * operation and each fragment definition is a root; inline fragments merge into the place they sit
 * in; a fragment spread merges its fragment's fields there too, once per place (graphql compares a
 * fragment with itself once). The walk stops once past `maxSelections`, so it visits at most
 * `maxSelections + 1` selections, however fragments fan out.
 */
function checkSelections(
  document: DocumentNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  maxSelections: number | false,
  maxFieldPairs: number | false,
): LimitViolation | undefined {
  const ceiling = maxSelections === false ? UNCOUNTED_WALK_CEILING : maxSelections;
  const pairLimit = maxFieldPairs === false ? Infinity : maxFieldPairs;
  let selections = 0;
  let pairs = 0;
  let stopped = false;
  const active = new Set<string>();
  const weights = new Map<FieldNode, number>();
  const place = (): Place => ({ fields: new Map(), spreads: undefined });

  const walk = (selectionSet: SelectionSetNode, at: Place): void => {
    for (const selection of selectionSet.selections) {
      // Past the pair limit the walk goes on counting selections, so that a document over both
      // limits is told about the plainer one; it stops early only when selections are not limited.
      if (++selections > ceiling || (maxSelections === false && pairs > pairLimit)) {
        stopped = true;
        return;
      }
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        let entry = at.fields.get(key);
        if (entry === undefined) {
          entry = { count: 1, weight: 0, child: undefined };
          at.fields.set(key, entry);
          if (selection.arguments !== undefined && selection.arguments.length > 0) entry.weight = argumentWeight(selection, weights);
        } else {
          // The new field pairs with every same-named field already at this place, and each
          // comparison prints the arguments of both fields.
          const weight = selection.arguments !== undefined && selection.arguments.length > 0 ? argumentWeight(selection, weights) : 0;
          pairs += entry.count * (1 + weight) + entry.weight;
          entry.count += 1;
          entry.weight += weight;
        }
        if (selection.selectionSet !== undefined) walk(selection.selectionSet, (entry.child ??= place()));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, at);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        // Unknown fragments and cycles are validation errors, reported after the limits pass.
        if (fragment === undefined || active.has(name) || at.spreads?.has(name) === true) continue;
        (at.spreads ??= new Set()).add(name);
        active.add(name);
        walk(fragment.selectionSet, at);
        active.delete(name);
      }
      if (stopped) return;
    }
  };

  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) walk(definition.selectionSet, place());
    else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      active.add(definition.name.value);
      walk(definition.selectionSet, place());
      active.delete(definition.name.value);
    }
    if (stopped) break;
  }
  if (maxSelections !== false && selections > maxSelections) {
    return {
      limit: 'maxSelections',
      message: `The document has more than ${maxSelections} selections (fields, fragment spreads and inline fragments, a fragment counted again wherever it is spread); the maximum is ${maxSelections}.`,
    };
  }
  if (pairs > pairLimit) {
    return {
      limit: 'maxFieldPairs',
      message: `The document has more than ${pairLimit} pairs of selections with the same name at the same place for validation to compare; the maximum is ${pairLimit}.`,
    };
  }
  return undefined;
}

/**
 * What comparing a field's arguments costs, in units of one plain field pair: graphql sorts and
 * prints each argument value of both fields of a pair, about 8 pairs' worth per argument, plus one
 * per value inside lists and objects. Cached per field node.
 */
function argumentWeight(field: FieldNode, cache: Map<FieldNode, number>): number {
  const known = cache.get(field);
  if (known !== undefined) return known;
  let weight = ARGUMENT_PRINT_WEIGHT * field.arguments!.length;
  const stack: ValueNode[] = field.arguments!.map((argument) => argument.value);
  while (stack.length > 0) {
    const value = stack.pop()!;
    weight += 1;
    if (value.kind === Kind.LIST) for (const item of value.values) stack.push(item);
    else if (value.kind === Kind.OBJECT) for (const objectField of value.fields) stack.push(objectField.value);
  }
  cache.set(field, weight);
  return weight;
}

/** The UTF-8 size of `query` when it is larger than `max` bytes, else undefined (bytes are counted only when needed). */
export function oversizeBytes(query: string, max: number): number | undefined {
  // A UTF-16 code unit is at most 3 UTF-8 bytes, and at least 1.
  if (query.length * 3 <= max) return undefined;
  if (query.length > max) return Buffer.byteLength(query);
  const bytes = Buffer.byteLength(query);
  return bytes > max ? bytes : undefined;
}
