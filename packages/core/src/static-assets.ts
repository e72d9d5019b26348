import { readFile } from 'node:fs/promises';
import type { Context } from './context.js';
import { HTTPError } from './http-error.js';
import { assertGetOrHead } from './internal/http-guards.js';

/** One file an asset handler serves. */
export interface StaticAsset {
  /** The file on disk. A gzipped copy beside it (`<file>.gz`), when there is one, goes to clients that accept gzip. */
  file: string;
  /** The `Content-Type` it is sent with, e.g. `text/javascript; charset=utf-8`. */
  type: string;
}

interface LoadedAsset {
  type: string;
  raw: Buffer;
  gzip: Buffer | undefined;
}

/** Files whose name or URL carries a content hash: a cached copy never goes stale. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * A handler that serves bundled, content-hashed files: `assets` maps each exact request path to
 * its file. It answers GET and HEAD with the file (gzipped when the client accepts gzip and a
 * `.gz` copy exists), cached for a year as immutable, with `X-Content-Type-Options: nosniff` and
 * `Vary: accept-encoding`; other methods get 405 with `Allow: GET, HEAD`, other paths 404 (both
 * thrown as `HTTPError`). Each file is read on its first request and kept; a failed read is retried.
 * @example
 * const assets = { '/docs/app.js': { file: join(dir, 'app.js'), type: 'text/javascript; charset=utf-8' } };
 * const serveAsset = createAssetHandler(assets);
 * for (const path of Object.keys(assets)) host.claimPath(path, serveAsset, { protocol: 'http' });
 */
export function createAssetHandler(assets: Readonly<Record<string, StaticAsset>>): (ctx: Context) => Promise<void> {
  const byPath = new Map(Object.entries(assets));
  const loaded = new Map<string, Promise<LoadedAsset>>();

  const load = (path: string, asset: StaticAsset): Promise<LoadedAsset> => {
    let pending = loaded.get(path);
    if (pending === undefined) {
      pending = Promise.all([readFile(asset.file), readFile(`${asset.file}.gz`).catch(() => undefined)]).then(([raw, gzip]) => ({
        type: asset.type,
        raw,
        gzip,
      }));
      // A failed read is retried on the next request rather than cached.
      pending.catch(() => loaded.delete(path));
      loaded.set(path, pending);
    }
    return pending;
  };

  return async function serveAsset(ctx) {
    const asset = byPath.get(ctx.path);
    if (asset === undefined) throw new HTTPError(404, 'Not Found');
    assertGetOrHead(ctx);
    const file = await load(ctx.path, asset);
    const acceptEncoding = ctx.headers['accept-encoding'];
    const gzip = file.gzip !== undefined && typeof acceptEncoding === 'string' && /\bgzip\b/i.test(acceptEncoding);
    ctx.setHeader('content-type', file.type);
    ctx.setHeader('cache-control', IMMUTABLE);
    ctx.setHeader('x-content-type-options', 'nosniff');
    ctx.setHeader('vary', 'accept-encoding');
    if (gzip) ctx.setHeader('content-encoding', 'gzip');
    ctx.send(gzip ? file.gzip! : file.raw, 200);
  };
}

/**
 * Answers with an HTML page that must not be cached, sniffed or framed elsewhere, nor leak its URL:
 * `Content-Type: text/html; charset=utf-8`, `Cache-Control: no-cache`, the given
 * `Content-Security-Policy`, `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
 * @example
 * sendHtmlPage(ctx, '<!doctype html><title>Docs</title>', "default-src 'none'; script-src 'self'");
 */
export function sendHtmlPage(ctx: Context, html: string, csp: string): void {
  ctx.setHeader('content-type', 'text/html; charset=utf-8');
  ctx.setHeader('cache-control', 'no-cache');
  ctx.setHeader('content-security-policy', csp);
  ctx.setHeader('x-content-type-options', 'nosniff');
  ctx.setHeader('referrer-policy', 'no-referrer');
  ctx.send(html, 200);
}
