import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import type { Route } from '@fw/core';
import type { OpenAPIDocument } from '@fw/openapi';
import { loadCorePlugin, loadOpenAPI } from './internal/optional.js';
import type { ProtocolManager } from './protocol-manager.js';

/** `node:fs/promises`, taken when `emit` writes: importing it would load it (and its streams) into every app. */
const fs = (): typeof FsPromises => process.getBuiltinModule('node:fs/promises');

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
}

/** The kinds of file `emit` writes. */
export type EmitKind = 'graphql' | 'proto' | 'openapi';

/** One file `emit` wrote (or found already up to date). */
export interface EmittedFile {
  kind: EmitKind;
  /** The absolute path. */
  path: string;
  /** False when the file already had this content (it was left untouched). */
  changed: boolean;
}

/** What `emit` did. */
export interface EmitResult {
  /** The files, in the order graphql, proto (by name), openapi. */
  files: EmittedFile[];
  /** The kinds that were asked for but not written, and why. */
  skipped: Array<{ kind: EmitKind; reason: string }>;
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

/**
 * Writes an application's schemas: `schema.graphql` (the GraphQL schema it serves, operations
 * included), the `.proto` files generated for its gRPC operations, and `openapi.json` (the
 * document of its `openapi` plugin, or one built from its routes). Same app, same bytes: each file
 * ends with a newline and is written only when its content changed. Never listens. Throws when
 * there is nothing to write.
 * @example
 * const { files } = await emit({ app, out: 'schemas' });
 */
export async function emit(options: EmitOptions): Promise<EmitResult> {
  const { app } = options;
  if (app === null || typeof app !== 'object' || typeof app.getRoutes !== 'function' || typeof app.getPlugin !== 'function') {
    throw new TypeError('emit: options.app must be an fw application (createApp() or new Application())');
  }
  const out = resolve(options.out ?? '.');
  const manager = app.getProtocolManager?.();
  // Everything is generated before anything is written: a failure leaves no half-written set.
  const planned: Array<{ kind: EmitKind; path: string; text: string }> = [];
  const skipped: EmitResult['skipped'] = [];

  if (options.graphql !== false) {
    const plugin = (manager?.graphql ?? app.getPlugin('graphql')) as SchemaPrinter | undefined;
    if (plugin === undefined) skipped.push({ kind: 'graphql', reason: 'the app serves no GraphQL' });
    else if (typeof plugin.printSchema !== 'function') skipped.push({ kind: 'graphql', reason: 'this version of @fw/graphql cannot print its schema' });
    else planned.push({ kind: 'graphql', path: join(out, 'schema.graphql'), text: plugin.printSchema() });
  }

  if (options.proto !== false) {
    const plugin = (manager?.grpc ?? app.getPlugin('grpc')) as ProtoGenerator | undefined;
    if (plugin === undefined) skipped.push({ kind: 'proto', reason: 'the app serves no gRPC' });
    else if (typeof plugin.generateProtos !== 'function') skipped.push({ kind: 'proto', reason: 'this version of @fw/grpc cannot generate .proto files' });
    else {
      const configured = typeof plugin.protoOut === 'string' && plugin.protoOut !== '' ? resolve(plugin.protoOut) : undefined;
      const dir = options.protoOut !== undefined ? resolve(options.protoOut) : (configured ?? join(out, 'proto'));
      // Field numbers come from the committed files (protoOut); without them, from the last emit here.
      // The plugin entry of core loads here, not with the app: a REST-only start never needs it.
      const { compareNames } = loadCorePlugin();
      const protos = [...plugin.generateProtos(configured ?? dir)].sort((a, b) => compareNames(a.file, b.file));
      if (protos.length === 0) skipped.push({ kind: 'proto', reason: 'the gRPC server serves no operations (its .proto files are your own)' });
      for (const { file, text } of protos) planned.push({ kind: 'proto', path: inside(dir, file), text });
    }
  }

  if (options.openapi !== false) {
    const plugin = app.getPlugin('openapi') as OpenAPIDocumentSource | undefined;
    const path = join(out, 'openapi.json');
    if (plugin !== undefined && typeof plugin.document === 'function') planned.push({ kind: 'openapi', path, text: JSON.stringify(plugin.document(), null, 2) });
    else if (app.getRoutes().length > 0) planned.push({ kind: 'openapi', path, text: JSON.stringify(loadOpenAPI().openapi(app), null, 2) });
    else skipped.push({ kind: 'openapi', reason: 'the app has no REST routes and no openapi plugin' });
  }

  if (planned.length === 0) {
    const why = skipped.length === 0 ? 'graphql, proto and openapi are all turned off' : skipped.map((s) => `${s.kind}: ${s.reason}`).join('; ');
    throw new Error(`Nothing to emit (${why})`);
  }
  const files: EmittedFile[] = [];
  for (const { kind, path, text } of planned) files.push(await writeText(kind, path, text));
  return { files, skipped };
}

/** `dir/file`, refusing a file name that would land outside `dir`. */
function inside(dir: string, file: string): string {
  const path = resolve(dir, file);
  const rel = relative(dir, path);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new Error(`emit: the generated file name "${file}" points outside ${dir}`);
  return path;
}

/** Writes `text` (with one final newline) unless the file already holds exactly that. */
async function writeText(kind: EmitKind, path: string, text: string): Promise<EmittedFile> {
  const content = text.endsWith('\n') ? text : `${text}\n`;
  const { mkdir, readFile, writeFile } = fs();
  let current: string | undefined;
  try {
    current = await readFile(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) return { kind, path, changed: false };
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  return { kind, path, changed: true };
}
