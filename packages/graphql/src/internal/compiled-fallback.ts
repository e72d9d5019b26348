import {
  Kind,
  TypeInfo,
  BREAK,
  getNamedType,
  isAbstractType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/**
 * Why graphql-jit would not answer `operation` (and the fragments of `document`) as graphql-js
 * does, or undefined when it would. Each reason is a divergence found by the differential test
 * (`test/differential.test.ts`); the document then runs on graphql-js:
 *
 * - `__schema` / `__type`: introspection is left to graphql-js;
 * - a field of an interface or union type: graphql-jit resolves abstract types synchronously only;
 * - a field of an object type with `isTypeOf`: graphql-jit calls it without context and info, and
 *   ignores a promise it returns;
 * - a field of a custom scalar type: graphql-jit keeps only the message of what `serialize` throws;
 * - `@skip` / `@include`: graphql-jit applies a directive on a fragment spread to the fragment's
 *   other uses, orders the response by a skipped selection, counts skipped selections in error
 *   locations and accepts a null for `if` from a nullable variable;
 * - a variable inside a list or input-object literal: graphql-jit passes an absent one as null
 *   (over the field's default);
 * - an argument or variable whose type is or holds a custom scalar (graphql-jit does not call
 *   `parseLiteral` on literals, nor coerce variable defaults), a `@oneOf` input (not enforced) or a
 *   self-referencing input type (its variable compiler recurses without end);
 * - a field of a list type: graphql-jit answers a list of nullable items one item longer when an
 *   item is a rejected promise, and the items of a list of non-null items fail beside each other
 *   (below);
 * - a non-null field beside other fields (`__typename` aside) at one place: graphql-jit executes
 *   every field and reports every error, graphql-js stops at the non-null field's failure (its null
 *   reaches the nearest nullable parent), and which errors of the fields beside it it still
 *   reports depends on when its promises settle. A non-null field alone at its place is compiled:
 *   its failure is then the only error in what its null takes away.
 *
 * What resolvers return is not known here, so every field is taken as one that may fail.
 */
export function compiledFallback(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): string | undefined {
  const typeInfo = new TypeInfo(schema);
  const unsafe = unsafeInputs(schema);
  let reason: string | undefined;
  const fragments = usedFragments(document, operation);
  const stop = (why: string): typeof BREAK => {
    reason = why;
    return BREAK;
  };
  const visitor = visitWithTypeInfo(typeInfo, {
    Field(node) {
      const name = node.name.value;
      if (name === '__schema' || name === '__type') return stop('it selects __schema or __type');
      const type = typeInfo.getType();
      const named = type == null ? undefined : getNamedType(type);
      if (named === undefined) return undefined;
      if (isListType(isNonNullType(type) ? type.ofType : type)) return stop(`it selects the list field ${typeInfo.getParentType()?.name ?? ''}.${name}`);
      if (isAbstractType(named)) return stop(`it selects a field of the abstract type ${named.name}`);
      if (isObjectType(named) && named.isTypeOf != null) return stop(`it selects a field of ${named.name}, which has isTypeOf`);
      if (isScalarType(named) && !isSpecifiedScalarType(named)) return stop(`it selects a field of the custom scalar ${named.name}`);
      return undefined;
    },
    Directive(node) {
      if (node.name.value === 'skip' || node.name.value === 'include') return stop(`it uses @${node.name.value}`);
      return undefined;
    },
    Argument(node) {
      const argument = typeInfo.getArgument();
      // A whole variable is checked where it is defined.
      if (argument != null && node.value.kind !== Kind.VARIABLE) {
        const why = unsafe.literal(argument.type);
        if (why !== undefined) return stop(`the argument "${node.name.value}" ${why}`);
      }
      if (hasNestedVariable(node.value)) return stop(`the argument "${node.name.value}" has a variable inside a list or object`);
      return undefined;
    },
    VariableDefinition(node) {
      const type = typeInfo.getInputType();
      if (type == null) return undefined;
      // graphql-jit copies a default through JSON, after parseLiteral.
      const why = node.defaultValue === undefined ? unsafe.variable(type) : (unsafe.literal(type) ?? (isPlainJson(valueFromAST(node.defaultValue, type)) ? undefined : 'has a default that is not plain JSON'));
      if (why !== undefined) return stop(`the variable "$${node.variable.name.value}" ${why}`);
      return undefined;
    },
  });
  for (const definition of [operation, ...fragments]) {
    visit(definition, visitor);
    if (reason !== undefined) return reason;
  }
  const root = schema.getRootType(operation.operation);
  return root == null ? undefined : nonNullBesideOthers(root, [operation.selectionSet], fragmentMap(document), { left: MAX_ANALYSED_FIELDS });
}

/** The most fields, fragments expanded, the non-null analysis walks; past it the operation runs on graphql-js. */
const MAX_ANALYSED_FIELDS = 10_000;

/**
 * Where a non-null field is selected beside other fields (`__typename` aside) in `sets` (the merged
 * selection sets of one place, of `type`), or below: the fields graphql-js collects at the place,
 * a fragment spread once, then their merged sub-selections. Without abstract types and directives
 * (refused before), every selection applies.
 */
function nonNullBesideOthers(type: GraphQLObjectType, sets: readonly SelectionSetNode[], fragments: Map<string, FragmentDefinitionNode>, budget: { left: number }): string | undefined {
  const keys = new Map<string, FieldNode[]>();
  const spread = new Set<string>();
  const collect = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const nodes = keys.get(key);
        if (nodes === undefined) keys.set(key, [selection]);
        else nodes.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!spread.has(selection.name.value)) {
        spread.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined) collect(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) collect(set);
  let fields = 0;
  let nonNull: string | undefined;
  for (const [key, nodes] of keys) {
    const field = type.getFields()[nodes[0]!.name.value];
    // __typename (validation has refused unknown fields), which cannot fail.
    if (field === undefined) continue;
    budget.left -= 1;
    if (budget.left < 0) return `it has more than ${MAX_ANALYSED_FIELDS} fields with fragments expanded`;
    fields += 1;
    if (isNonNullType(field.type)) nonNull ??= key;
    const named = getNamedType(field.type);
    if (isObjectType(named)) {
      const below = nonNullBesideOthers(named, nodes.flatMap((node) => (node.selectionSet === undefined ? [] : [node.selectionSet])), fragments, budget);
      if (below !== undefined) return below;
    }
  }
  if (nonNull !== undefined && fields > 1) return `the non-null field ${type.name}.${keys.get(nonNull)![0]!.name.value} is selected beside other fields`;
  return undefined;
}

/** Whether graphql-jit runs `document` as graphql-js would (every operation of it). */
export function jitRunsLikeExecute(schema: GraphQLSchema, document: DocumentNode): boolean {
  return document.definitions.every((definition) => definition.kind !== Kind.OPERATION_DEFINITION || compiledFallback(schema, document, definition) === undefined);
}

function hasNestedVariable(value: ValueNode): boolean {
  if (value.kind === Kind.LIST) return value.values.some((item) => item.kind === Kind.VARIABLE || hasNestedVariable(item));
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => field.value.kind === Kind.VARIABLE || hasNestedVariable(field.value));
  return false;
}

/** Why graphql-jit would not take an input type: for a literal argument, and for a variable. */
interface InputChecks {
  readonly literal: (type: GraphQLInputType) => string | undefined;
  readonly variable: (type: GraphQLInputType) => string | undefined;
}

const unsafeBySchema = new WeakMap<GraphQLSchema, InputChecks>();

/**
 * For a schema: why an input type is not compiled, else undefined, memoised per named type. Never:
 * a @oneOf input, a self-referencing input, an input field whose default is not plain JSON
 * (graphql-jit copies defaults through JSON). In a literal argument, nor a custom scalar
 * (graphql-jit does not call `parseLiteral`); variables get `parseValue` as in graphql-js.
 */
function unsafeInputs(schema: GraphQLSchema): InputChecks {
  let checks = unsafeBySchema.get(schema);
  if (checks !== undefined) return checks;
  const checker = (scalars: boolean): ((type: GraphQLInputType) => string | undefined) => {
    const known = new Map<string, string | null>();
    const visiting = new Set<string>();
    const named = (type: GraphQLNamedType): string | undefined => {
      const memo = known.get(type.name);
      if (memo !== undefined) return memo ?? undefined;
      let why: string | undefined;
      if (isScalarType(type)) {
        if (scalars && !isSpecifiedScalarType(type)) why = `holds the custom scalar ${type.name}`;
      } else if (isInputObjectType(type)) {
        if (visiting.has(type.name)) return `holds the self-referencing input ${type.name}`;
        if ((type as { isOneOf?: boolean }).isOneOf === true) {
          why = `holds the @oneOf input ${type.name}`;
        } else {
          visiting.add(type.name);
          for (const field of Object.values(type.getFields())) {
            if (field.defaultValue !== undefined && !isPlainJson(field.defaultValue)) {
              why = `holds ${type.name}.${field.name}, whose default is not plain JSON`;
              break;
            }
            why = named(getNamedType(field.type));
            if (why !== undefined) break;
          }
          visiting.delete(type.name);
        }
      }
      // A type inside a cycle being visited is decided when the cycle's first type is.
      if (why === undefined && visiting.size > 0) return undefined;
      known.set(type.name, why ?? null);
      return why;
    };
    return (type) => named(getNamedType(type));
  };
  checks = { literal: checker(true), variable: checker(false) };
  unsafeBySchema.set(schema, checks);
  return checks;
}

/** Whether `value` survives `JSON.parse(JSON.stringify(value))` unchanged: strings, finite numbers, booleans, null, and arrays and plain objects of them. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every(isPlainJson);
}

/** The fragment definitions `operation` spreads, directly or through other fragments. */
function usedFragments(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  const all = fragmentMap(document);
  const used = new Map<string, FragmentDefinitionNode>();
  const walk = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = all.get(name);
        if (fragment === undefined || used.has(name)) continue;
        used.set(name, fragment);
        walk(fragment.selectionSet);
      } else if (selection.selectionSet !== undefined) {
        walk(selection.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return [...used.values()];
}

function fragmentMap(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const map = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) map.set(definition.name.value, definition);
  return map;
}

/** The selections of `operation` with fragments expanded, each fragment measured once. */
export function operationWeight(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = fragmentMap(document);
  const sizes = new Map<string, number>();
  const size = (set: SelectionSetNode): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        let known = sizes.get(name);
        if (known === undefined) {
          // 0 while measuring: validation has refused cycles, this only guards the walk.
          sizes.set(name, 0);
          const fragment = fragments.get(name);
          known = fragment === undefined ? 0 : size(fragment.selectionSet);
          sizes.set(name, known);
        }
        total += known;
      } else {
        total += (selection.kind === Kind.FIELD ? 1 : 0) + (selection.selectionSet === undefined ? 0 : size(selection.selectionSet));
      }
    }
    return total;
  };
  return size(operation.selectionSet);
}

