import type { Readable } from 'node:stream';
import { checkOptions } from './internal/check-options.js';

/**
 * The limits and temporary-file directory of `multipart/form-data` bodies, for the whole app
 * (`ApplicationConfig.multipart`) or one call (`ctx.multipart(options)`, `ctx.formData(options)`,
 * an operation's `rest.multipart`). Going past a limit is answered 413, its message naming it.
 */
export interface MultipartConfig {
  /** Largest file, in bytes. @default 1048576 (1 MiB, as `bodyLimit`) */
  fileSize?: number;
  /** Most file parts. @default 10 */
  files?: number;
  /** Most non-file fields. @default 1000 (as `maxQueryKeys` for a URL-encoded form) */
  fields?: number;
  /** Largest non-file field value, in bytes. @default 1048576 (1 MiB) */
  fieldSize?: number;
  /** Most parts, fields and files together. @default fields + files (1010) */
  parts?: number;
  /** Largest whole body, in bytes, boundaries and part headers included. @default 10485760 (10 MiB) */
  totalSize?: number;
  /** Where `ctx.formData()` writes uploaded files (random names, removed after the response). @default os.tmpdir() */
  tmpDir?: string;
}

/** `MultipartConfig` with every default applied (`tmpDir` undefined: `os.tmpdir()` when a file is written). */
export interface ResolvedMultipartConfig {
  readonly fileSize: number;
  readonly files: number;
  readonly fields: number;
  readonly fieldSize: number;
  readonly parts: number;
  readonly totalSize: number;
  readonly tmpDir: string | undefined;
}

/** The defaults of `ApplicationConfig.multipart`. */
export const MULTIPART_DEFAULTS: ResolvedMultipartConfig = Object.freeze({
  fileSize: 1_048_576,
  files: 10,
  fields: 1000,
  fieldSize: 1_048_576,
  parts: 1010,
  totalSize: 10_485_760,
  tmpDir: undefined,
});

/** The names of `MultipartConfig`, for the unknown-option check. */
export const MULTIPART_OPTION_NAMES: readonly (keyof MultipartConfig)[] = Object.freeze(['fileSize', 'files', 'fields', 'fieldSize', 'parts', 'totalSize', 'tmpDir']);

const LIMITS = ['fileSize', 'files', 'fields', 'fieldSize', 'parts', 'totalSize'] as const;

/**
 * `config` over `base` (the app's settings, else the defaults): an unknown key or a limit that is
 * not a positive integer throws a TypeError naming it (`multipart.fileSize`).
 */
export function resolveMultipart(config: MultipartConfig | undefined, base: ResolvedMultipartConfig = MULTIPART_DEFAULTS): ResolvedMultipartConfig {
  if (config === undefined) return base;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new TypeError(`multipart must be an object ({ fileSize, files, fields, ... }), got ${config === null ? 'null' : Array.isArray(config) ? 'an array' : typeof config}`);
  }
  checkOptions(config, MULTIPART_OPTION_NAMES, { owner: 'multipart' });
  const out = { ...base };
  for (const name of LIMITS) {
    const value = config[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new TypeError(`multipart.${name} must be a positive integer, got ${String(value)}`);
    out[name] = value;
  }
  // Unless given, `parts` follows the other two: it is there to cap them together more tightly.
  if (config.parts === undefined && (config.fields !== undefined || config.files !== undefined)) out.parts = out.fields + out.files;
  if (config.tmpDir !== undefined) {
    if (typeof config.tmpDir !== 'string' || config.tmpDir === '') throw new TypeError(`multipart.tmpDir must be a non-empty string (a directory), got ${typeof config.tmpDir === 'string' ? '""' : typeof config.tmpDir}`);
    out.tmpDir = config.tmpDir;
  }
  return Object.freeze(out);
}

/** A non-file field of a `multipart/form-data` body, as `ctx.multipart()` yields it. */
export interface MultipartField {
  readonly type: 'field';
  /** The field's name (`name` of its `Content-Disposition`). */
  readonly fieldname: string;
  /** The value, decoded as UTF-8. */
  readonly value: string;
  /** The part's `Content-Type` (`text/plain` when it sent none). */
  readonly mimeType: string;
  /** The part's `Content-Transfer-Encoding` (`7bit` when it sent none). */
  readonly encoding: string;
}

/** A file of a `multipart/form-data` body, as `ctx.multipart()` yields it. */
export interface MultipartFile {
  readonly type: 'file';
  /** The form field the file was sent in. */
  readonly fieldname: string;
  /**
   * The name the client gave the file, for display only: its last path segment, without control
   * characters (NUL included); empty when it gave none. Never use it as a path.
   */
  readonly filename: string;
  /** The `Content-Type` the client sent for the file (`application/octet-stream` when none). Not checked against the content. */
  readonly mimeType: string;
  /** The part's `Content-Transfer-Encoding` (`7bit` when it sent none). */
  readonly encoding: string;
  /**
   * The file's bytes. Read it (pipe it somewhere, or `for await` it) before asking for the next part;
   * one left unread is skipped then. Past `fileSize` it fails with the 413.
   */
  readonly stream: Readable;
}

/** A part of a `multipart/form-data` body: a field or a file. */
export type MultipartPart = MultipartField | MultipartFile;

/** A file `ctx.formData()` saved to a temporary file, which is removed once the response is over. */
export interface SavedFile {
  /** The form field the file was sent in. */
  readonly fieldname: string;
  /** The name the client gave the file, sanitised as `MultipartFile.filename`: metadata only. */
  readonly filename: string;
  readonly mimeType: string;
  readonly encoding: string;
  /** Where the file was saved: a random name in `tmpDir`. */
  readonly path: string;
  /** Its size in bytes. */
  readonly size: number;
}

/** What `ctx.formData()` resolves with: the fields (a repeated name gives an array, as the query) and the saved files. */
export interface MultipartForm {
  readonly fields: Record<string, string | string[] | undefined>;
  readonly files: readonly SavedFile[];
}
