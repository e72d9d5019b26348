import {
  BreakingChangeType,
  buildSchema,
  DangerousChangeType,
  findBreakingChanges,
  findDangerousChanges,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  print,
  specifiedScalarTypes,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLSchema,
} from 'graphql';

/** Int, Float, String, Boolean and ID: every schema has them, printed or not. */
const STANDARD_SCALARS = new Set(specifiedScalarTypes.map((type) => type.name));

/** One difference between two GraphQL schemas. */
export interface GraphQLSchemaChange {
  /** True when existing operations can fail against the new schema. */
  readonly breaking: boolean;
  /**
   * True when existing operations still run but may get what their clients do not handle, as
   * graphql-inspector calls it dangerous: a value added to an enum, a member to a union, an
   * interface to a type, an optional argument or an input field with a default, a default changed.
   */
  readonly dangerous: boolean;
  /** graphql-js's name for the change (`FIELD_REMOVED`, `ARG_CHANGED_KIND`, …), or `TYPE_ADDED`, `FIELD_ADDED`, `DEFAULT_VALUE_CHANGE`. */
  readonly type: string;
  /** One sentence saying what changed. */
  readonly message: string;
}

function read(sdl: string, side: string): GraphQLSchema {
  try {
    return buildSchema(sdl);
  } catch (err) {
    throw new Error(`Could not read the ${side} GraphQL schema: ${(err as Error).message}`, { cause: err });
  }
}

/** The default an argument or input field declares in the SDL, printed; undefined when it has none. */
const printedDefault = (value: GraphQLArgument | GraphQLInputField): string | undefined => {
  const node = value.astNode?.defaultValue;
  return node === undefined ? undefined : print(node);
};

/**
 * The defaults graphql-js does not compare, which graphql-inspector calls dangerous when they
 * change: an argument's default where it had none, an input field's, a directive argument's.
 */
function defaultChanges(old: GraphQLSchema, now: GraphQLSchema): GraphQLSchemaChange[] {
  const changes: GraphQLSchemaChange[] = [];
  const compare = (was: GraphQLArgument | GraphQLInputField, is: GraphQLArgument | GraphQLInputField, where: string): void => {
    const [from, to] = [printedDefault(was), printedDefault(is)];
    if (from === to) return;
    const message = from === undefined ? `${where} now has the default ${to}.` : to === undefined ? `${where} no longer has the default ${from}.` : `${where} changed its default from ${from} to ${to}.`;
    changes.push({ breaking: false, dangerous: true, type: 'DEFAULT_VALUE_CHANGE', message });
  };
  const args = (was: readonly GraphQLArgument[], is: readonly GraphQLArgument[], where: string, all: boolean): void => {
    for (const arg of was) {
      const next = is.find((candidate) => candidate.name === arg.name);
      // graphql-js reports a field argument's default changed or removed (ARG_DEFAULT_VALUE_CHANGE).
      if (next !== undefined && (all || arg.defaultValue === undefined)) compare(arg, next, `${where}(${arg.name}:)`);
    }
  };
  const oldTypes = old.getTypeMap();
  for (const [name, type] of Object.entries(now.getTypeMap())) {
    const was = oldTypes[name];
    if ((isObjectType(type) || isInterfaceType(type)) && (isObjectType(was) || isInterfaceType(was))) {
      const fields = was.getFields();
      for (const field of Object.values(type.getFields())) {
        const before = fields[field.name];
        if (before !== undefined) args(before.args, field.args, `${name}.${field.name}`, false);
      }
    } else if (isInputObjectType(type) && isInputObjectType(was)) {
      const fields = was.getFields();
      for (const field of Object.values(type.getFields())) {
        const before = fields[field.name];
        if (before !== undefined) compare(before, field, `${name}.${field.name}`);
      }
    }
  }
  for (const directive of now.getDirectives()) {
    const was = old.getDirective(directive.name);
    if (was !== undefined && was !== null) args(was.args, directive.args, `@${directive.name}`, true);
  }
  return changes;
}

/** The implementation of `findSchemaChanges`: the package exports ../lazy.ts's, which loads this on its first call. */
export function findSchemaChanges(before: string, after: string): GraphQLSchemaChange[] {
  const old = read(before, 'previous');
  const now = read(after, 'new');
  // graphql-js reports a standard scalar no longer printed as removed; clients can still use it.
  const standardRemoved = (description: string): boolean => /^Standard scalar (\w+) was removed/.test(description);
  // graphql-inspector's verdicts where they differ from graphql-js's lists: an operation that used
  // a directive once still validates, and a nullable input field added without a default changes
  // nothing a client sent before (one with a default does: its value now reaches the resolver).
  const dangerousBreak = (type: BreakingChangeType): boolean => type === BreakingChangeType.DIRECTIVE_REPEATABLE_REMOVED;
  const addedInputField = (description: string): boolean => {
    const match = /^An optional field (\w+) on input type (\w+) was added\.$/.exec(description);
    const type = match === null ? undefined : now.getType(match[2]!);
    return isInputObjectType(type) && type.getFields()[match![1]!]?.defaultValue === undefined;
  };
  const changes: GraphQLSchemaChange[] = [
    ...findBreakingChanges(old, now)
      .filter((change) => !standardRemoved(change.description))
      .map((change) => ({ breaking: !dangerousBreak(change.type), dangerous: dangerousBreak(change.type), type: change.type, message: change.description })),
    ...findDangerousChanges(old, now).map((change) => ({
      breaking: false,
      dangerous: !(change.type === DangerousChangeType.OPTIONAL_INPUT_FIELD_ADDED && addedInputField(change.description)),
      type: change.type,
      message: change.description,
    })),
    ...defaultChanges(old, now),
  ];
  const oldTypes = old.getTypeMap();
  for (const [name, type] of Object.entries(now.getTypeMap())) {
    if (name.startsWith('__') || STANDARD_SCALARS.has(name)) continue;
    const was = oldTypes[name];
    if (was === undefined) {
      changes.push({ breaking: false, dangerous: false, type: 'TYPE_ADDED', message: `${name} was added.` });
      continue;
    }
    // Added input fields and arguments are graphql-js's to judge (a required one breaks).
    if ((isObjectType(type) || isInterfaceType(type)) && (isObjectType(was) || isInterfaceType(was)) && !isInputObjectType(was)) {
      const fields = was.getFields();
      for (const field of Object.keys(type.getFields())) {
        if (fields[field] === undefined) changes.push({ breaking: false, dangerous: false, type: 'FIELD_ADDED', message: `${name}.${field} was added.` });
      }
    }
  }
  // Breaking first, then dangerous, each in the order found.
  const rank = (change: GraphQLSchemaChange): number => (change.breaking ? 0 : change.dangerous ? 1 : 2);
  return changes
    .map((change, index) => ({ change, index }))
    .sort((a, b) => rank(a.change) - rank(b.change) || a.index - b.index)
    .map(({ change }) => change);
}
