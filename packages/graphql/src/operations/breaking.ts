import {
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  specifiedScalarTypes,
  type GraphQLSchema,
} from 'graphql';

/** Int, Float, String, Boolean and ID: every schema has them, printed or not. */
const STANDARD_SCALARS = new Set(specifiedScalarTypes.map((type) => type.name));

/** One difference between two GraphQL schemas. */
export interface GraphQLSchemaChange {
  /** True when existing operations can fail against the new schema. */
  readonly breaking: boolean;
  /** graphql-js's name for the change (`FIELD_REMOVED`, `ARG_CHANGED_KIND`, …), or `TYPE_ADDED`/`FIELD_ADDED`. */
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

/** The implementation of `findSchemaChanges`: the package exports ../lazy.ts's, which loads this on its first call. */
export function findSchemaChanges(before: string, after: string): GraphQLSchemaChange[] {
  const old = read(before, 'previous');
  const now = read(after, 'new');
  // graphql-js reports a standard scalar no longer printed as removed; clients can still use it.
  const standardRemoved = (description: string): boolean => /^Standard scalar (\w+) was removed/.test(description);
  const changes: GraphQLSchemaChange[] = [
    ...findBreakingChanges(old, now)
      .filter((change) => !standardRemoved(change.description))
      .map((change) => ({ breaking: true, type: change.type, message: change.description })),
    ...findDangerousChanges(old, now).map((change) => ({ breaking: false, type: change.type, message: change.description })),
  ];
  const oldTypes = old.getTypeMap();
  for (const [name, type] of Object.entries(now.getTypeMap())) {
    if (name.startsWith('__') || STANDARD_SCALARS.has(name)) continue;
    const was = oldTypes[name];
    if (was === undefined) {
      changes.push({ breaking: false, type: 'TYPE_ADDED', message: `${name} was added.` });
      continue;
    }
    // Added input fields and arguments are graphql-js's to judge (a required one breaks).
    if ((isObjectType(type) || isInterfaceType(type)) && (isObjectType(was) || isInterfaceType(was)) && !isInputObjectType(was)) {
      const fields = was.getFields();
      for (const field of Object.keys(type.getFields())) {
        if (fields[field] === undefined) changes.push({ breaking: false, type: 'FIELD_ADDED', message: `${name}.${field} was added.` });
      }
    }
  }
  return changes;
}
