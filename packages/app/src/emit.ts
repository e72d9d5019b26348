import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Route } from '@fw/core';
import { compareNames } from '@fw/core/plugin';
import { openapi, type OpenAPIDocument } from '@fw/openapi';
import { compareFiles } from './emit/check.js';
import { generateClient } from './emit/client.js';
import { leftoverWarnings, missingPreviousWarnings, protoLocation } from './emit/proto-dir.js';
import { readCurrent, resolveTarget, writeAtomically } from './emit/write.js';
import type { ProtocolManager } from './protocol-manager.js';

/** What `emit` needs of an application: `createApp`'s app, or an `Application` of `@fw/core` with the plugins registered. */
export interface EmitTarget {
  getRoutes(): Route[];
  getPlugin(name: string): unknown;
  getProtocolManager?(): ProtocolManager | undefined;
}

/** Options of `emit()`. */
export interface EmitOptions {
  /** The application whose schemas are written. */
  app: EmitTarget;
  /** The directory `schema.graphql` and `openapi.json` are written to (created if missing). @default the current directory */
  out?: string;
  /** Write `schema.graphql` when the app serves GraphQL. @default true */
  graphql?: boolean;
  /** Write the generated `.proto` files when the app serves operations over gRPC. @default true */
  proto?: boolean;
  /**
   * Where the `.proto` files go. Field numbers are kept from the files in the gRPC plugin's
   * `protoOut` when it has one, else from the files already in this directory.
   * @default the gRPC plugin's `protoOut`, else `<out>/proto`
   */
  protoOut?: string;
  /** Write `openapi.json`: the document of the app's `openapi` plugin, else one built from its routes. @default true */
  openapi?: boolean;
  /**
   * The directory a relative `protoOut` of the gRPC plugin is resolved against (`fw emit` gives
   * the app module's package directory: the nearest one at or above it with a package.json).
   * @default the current directory
   */
  base?: string;
  /**
   * Write nothing: compare what would be written with the files already there (the committed
   * ones) and return every change in `changes`, those that break existing clients first, then
   * the dangerous ones.
   * @default false
   */
  check?: boolean;
  /**
   * With `check`: count dangerous changes (clients keep working but may get what they do not
   * handle, such as a new enum value in a response) as breaking: each has `breaking: true` too.
   * @default false
   */
  strict?: boolean;
  /**
   * Also write the typed client of the app's operations to this TypeScript file (a relative path
   * is read from the current directory): one module that needs nothing but `fetch`, exporting
   * `createClient` and `FwClientError`, with one method per operation that has a REST route.
   * With `check`, a committed client that differs is reported as out of date.
   */
  client?: string;
}

/** The kinds of file `emit` writes. */
export type EmitKind = 'graphql' | 'proto' | 'openapi' | 'client';

/** One file `emit` wrote (or found already up to date). */
export interface EmittedFile {
  kind: EmitKind;
  /** The absolute path. */
  path: string;
  /** False when the file already had this content (it was left untouched). With `check`: whether it would change. */
  changed: boolean;
}

/**
 * A difference between a file already there (the committed one) and what `emit` generates now.
 * `level` says how a breaking proto change breaks: `wire` (an old client's bytes decode into the
 * wrong field, or a number or reserved name is free for another), `json` (the JSON mapping
 * changes) or `api` (a call, field or value is gone, or a name, type or presence changed; the
 * bytes read the same).
 */
export interface SchemaChange {
  kind: EmitKind;
  /** The file, relative to `out` (GraphQL, OpenAPI) or to the proto directory. */
  file: string;
  /** True when existing clients can break (with `strict`, also when the change is dangerous). */
  breaking: boolean;
  /**
   * True when existing clients keep working but may now get what they do not handle: a value
   * added to an enum that responses carry, a union member or oneof case, a changed default.
   */
  dangerous: boolean;
  /** How a breaking proto change breaks. */
  level?: 'wire' | 'json' | 'api';
  /** One sentence saying what changed. */
  message: string;
}

/** What `emit` did. */
export interface EmitResult {
  /** The files, in the order graphql, proto (by name), openapi, client. */
  files: EmittedFile[];
  /** The kinds that were asked for but not written, and why. */
  skipped: Array<{ kind: EmitKind; reason: string }>;
  /** What the caller must know (`fw emit` prints them on stderr): a committed .proto file found where its numbers were not read from. */
  warnings: string[];
  /** With `check`: every change from the files there to what would be generated, breaking ones first, then dangerous ones. */
  changes?: SchemaChange[];
}

/** The members of the GraphQL plugin `emit` uses. */
interface SchemaPrinter {
  printSchema?: () => string;
}

/** The members of the gRPC plugin `emit` uses. */
interface ProtoGenerator {
  protoOut?: unknown;
  generateProtos?: (previousDir?: string) => ReadonlyArray<{ file: string; text: string }>;
}

interface OpenAPIDocumentSource {
  document?: (nameOrPath?: string) => OpenAPIDocument;
}

/** A file `emit` generated: where it goes, the directory it must stay in, and its name there. */
export interface PlannedFile {
  kind: EmitKind;
  path: string;
  root: string;
  /** The name reported in changes: relative to `out`, or to the proto directory. */
  name: string;
  content: string;
}

/** The implementation of `emit`: the package exports ./lazy.ts's, which loads this on its first call. */
export async function emit(options: EmitOptions): Promise<EmitResult> {
  const { app } = options;
  if (app === null || typeof app !== 'object' || typeof app.getRoutes !== 'function' || typeof app.getPlugin !== 'function') {
    throw new TypeError('emit: options.app must be an fw application (createApp() or new Application())');
  }
  const out = resolve(options.out ?? '.');
  const base = resolve(options.base ?? '.');
  const manager = app.getProtocolManager?.();
  // Everything is generated before anything is written: a failure leaves no half-written set.
  const planned: PlannedFile[] = [];
  const skipped: EmitResult['skipped'] = [];
  const warnings: string[] = [];
  const plan = (kind: EmitKind, path: string, root: string, name: string, text: string): void =>
    void planned.push({ kind, path, root, name, content: text.endsWith('\n') ? text : `${text}\n` });
  let committedProtoDir: string | undefined;

  if (options.graphql !== false) {
    const plugin = (manager?.graphql ?? app.getPlugin('graphql')) as SchemaPrinter | undefined;
    if (plugin === undefined) skipped.push({ kind: 'graphql', reason: 'the app serves no GraphQL' });
    else if (typeof plugin.printSchema !== 'function') skipped.push({ kind: 'graphql', reason: 'this version of @fw/graphql cannot print its schema' });
    else plan('graphql', join(out, 'schema.graphql'), out, 'schema.graphql', plugin.printSchema());
  }

  if (options.proto !== false) {
    const plugin = (manager?.grpc ?? app.getPlugin('grpc')) as ProtoGenerator | undefined;
    if (plugin === undefined) skipped.push({ kind: 'proto', reason: 'the app serves no gRPC' });
    else if (typeof plugin.generateProtos !== 'function') skipped.push({ kind: 'proto', reason: 'this version of @fw/grpc cannot generate .proto files' });
    else {
      const configured = typeof plugin.protoOut === 'string' && plugin.protoOut !== '' ? plugin.protoOut : undefined;
      const location = protoLocation(out, base, options.protoOut, configured);
      committedProtoDir = location.previousDir;
      // Field numbers come from the committed files (protoOut); without them, from the last emit here.
      const protos = [...plugin.generateProtos(location.previousDir)].sort((a, b) => compareNames(a.file, b.file));
      if (protos.length === 0) skipped.push({ kind: 'proto', reason: 'the gRPC server serves no operations (its .proto files are your own)' });
      for (const { file, text } of protos) plan('proto', inside(location.dir, file), location.root, file, text);
      const places = { cwd: process.cwd(), base, out };
      warnings.push(...(await missingPreviousWarnings(protos, location, configured, places)), ...(await leftoverWarnings(location.dir, protos)));
    }
  }

  if (options.openapi !== false) {
    const plugin = app.getPlugin('openapi') as OpenAPIDocumentSource | undefined;
    const path = join(out, 'openapi.json');
    if (plugin !== undefined && typeof plugin.document === 'function') plan('openapi', path, out, 'openapi.json', JSON.stringify(plugin.document(), null, 2));
    else if (app.getRoutes().length > 0) plan('openapi', path, out, 'openapi.json', JSON.stringify(openapi(app), null, 2));
    else skipped.push({ kind: 'openapi', reason: 'the app has no REST routes and no openapi plugin' });
  }

  if (options.client !== undefined) {
    if (typeof options.client !== 'string' || options.client === '') throw new TypeError('emit: options.client must be the path of the client module to write (client.ts)');
    const path = resolve(options.client);
    plan('client', path, dirname(path), relative(out, path) || path, generateClient(app.getRoutes()));
  }

  if (planned.length === 0) {
    const why = skipped.length === 0 ? 'graphql, proto and openapi are all turned off' : skipped.map((s) => `${s.kind}: ${s.reason}`).join('; ');
    throw new Error(`Nothing to emit (${why})`);
  }

  // Every target is checked before any file is written; the refusal reported is the first file's in
  // the plan's order, whichever check finished first (the same message on every run).
  const checked = await Promise.allSettled(planned.map((file) => resolveTarget(file)));
  const refused = checked.find((result) => result.status === 'rejected');
  if (refused !== undefined) throw refused.reason;
  const targets = checked.map((result) => (result as PromiseFulfilledResult<Awaited<ReturnType<typeof resolveTarget>>>).value);
  const current = await Promise.all(targets.map((target) => readCurrent(target)));
  const files: EmittedFile[] = planned.map(({ kind, path }, i) => ({ kind, path, changed: current[i] !== planned[i]!.content }));
  if (options.check === true) {
    const changes = await compareFiles(planned, current, committedProtoDir, options.strict === true);
    return { files, skipped, warnings, changes };
  }
  await writeAtomically(planned.flatMap((file, i) => (files[i]!.changed ? [{ target: targets[i]!, content: file.content }] : [])));
  return { files, skipped, warnings };
}

/** `dir/file`, refusing a file name that would land outside `dir`. */
function inside(dir: string, file: string): string {
  const path = resolve(dir, file);
  const rel = relative(dir, path);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new Error(`emit: the generated file name "${file}" points outside ${dir}`);
  return path;
}
