import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTTPError, type Context } from '@fw/core';
import { assertGetOrHead, createAssetHandler, sendHtmlPage, type StaticAsset } from '@fw/core/plugin';

/** The Swagger UI options the page starts with (any given in `swaggerUI` win). */
export const DEFAULT_SWAGGER_UI_OPTIONS: Readonly<Record<string, unknown>> = Object.freeze({
  deepLinking: true,
  displayRequestDuration: true,
  tryItOutEnabled: false,
  persistAuthorization: false,
});

interface ManifestFile {
  type: string;
  hash: string;
}

interface Manifest {
  swaggerUI: string;
  files: Record<string, ManifestFile>;
}

/** What the docs page needs to know. */
export interface DocsPageConfig {
  /** Where the page is served (normalized: no trailing slash, except `/`). */
  docsPath: string;
  /** The documents to show; more than one gives Swagger UI's document selector. */
  documents: ReadonlyArray<{ name: string; path: string }>;
  title: string;
  swaggerUI: Record<string, unknown>;
  /** Origins besides the page's own that "Try it out" may call (absolute server URLs). */
  connectOrigins: readonly string[];
  /** The app's log (the plugin host's). */
  log: (message: string) => void;
}

/** Serves the Swagger UI page and the files bundled into `dist/docs` by the package build. */
export interface DocsPage {
  /** The exact paths the page answers (`/docs` and `/docs/`). */
  readonly pagePaths: readonly string[];
  /** The exact paths of the bundled files (`/docs/swagger-ui-bundle.js`, ...). */
  readonly assetPaths: readonly string[];
  readonly page: (ctx: Context) => void;
  readonly asset: (ctx: Context) => Promise<void>;
}

/** `/docs/` → `/docs`; `` → `/`. */
export function normalizeMountPath(path: string): string {
  let p = path.startsWith('/') ? path : `/${path}`;
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/** The URL of `to` relative to a page at `from` (both absolute paths), so the page works behind a path-prefixing proxy. */
export function relativeUrl(from: string, to: string): string {
  const fromDir = from.slice(0, from.lastIndexOf('/') + 1).split('/').filter((s) => s !== '');
  const target = to.split('/').slice(1);
  let common = 0;
  while (common < fromDir.length && common < target.length - 1 && fromDir[common] === target[common]) common++;
  const up = fromDir.length - common;
  return (up === 0 ? './' : '../'.repeat(up)) + target.slice(common).join('/');
}

/** Creates the docs page for `config`; the files are read once, on first request. */
export function createDocsPage(config: DocsPageConfig): DocsPage {
  const dir = findAssetDir();
  const manifest = dir === undefined ? undefined : (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest);
  const base = config.docsPath === '/' ? '' : config.docsPath;
  // The page asks for each file with its content hash in the query, so a cached copy never goes stale.
  const assets: Record<string, StaticAsset> = {};
  for (const [file, { type }] of Object.entries(manifest?.files ?? {})) assets[`${base}/${file}`] = { file: join(dir!, file), type };
  const pages = new Map<string, string>();
  const csp = contentSecurityPolicy(config.connectOrigins);
  let warned = false;

  const render = (pagePath: string): string => {
    const m = manifest!;
    const asset = (file: string): string => `${relativeUrl(pagePath, `${base}/${file}`)}?v=${m.files[file]!.hash}`;
    const documents = config.documents.map((doc) => ({ name: doc.name, url: relativeUrl(pagePath, doc.path) }));
    const setup =
      documents.length === 1
        ? { url: documents[0]!.url, options: { ...DEFAULT_SWAGGER_UI_OPTIONS, ...config.swaggerUI } }
        : { urls: documents, options: { ...DEFAULT_SWAGGER_UI_OPTIONS, ...config.swaggerUI } };
    const scripts = ['swagger-ui-bundle.js', ...(documents.length > 1 ? ['swagger-ui-standalone-preset.js'] : []), 'docs-init.js'];
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(config.title)}</title>
<link rel="icon" type="image/png" href="${escapeHtml(asset('favicon-32x32.png'))}">
<link rel="stylesheet" href="${escapeHtml(asset('swagger-ui.css'))}">
<style>body { margin: 0; background: #fafafa; }</style>
${scripts.map((file) => `<script src="${escapeHtml(asset(file))}" defer></script>`).join('\n')}
</head>
<body>
<div id="swagger-ui" data-config="${escapeHtml(JSON.stringify(setup))}"></div>
</body>
</html>
`;
  };

  return {
    pagePaths: config.docsPath === '/' ? ['/'] : [config.docsPath, `${config.docsPath}/`],
    assetPaths: Object.keys(assets),
    page(ctx) {
      assertGetOrHead(ctx);
      if (manifest === undefined) {
        if (!warned) config.log('[@fw/openapi] the Swagger UI files are missing (dist/docs): run the @fw/openapi build');
        warned = true;
        throw new HTTPError(500, 'The API documentation page is missing from this installation of @fw/openapi');
      }
      let html = pages.get(ctx.path);
      if (html === undefined) pages.set(ctx.path, (html = render(ctx.path)));
      sendHtmlPage(ctx, html, csp);
    },
    asset: createAssetHandler(assets),
  };
}

/**
 * Only the page's own files run; styles may be inline (Swagger UI sets style attributes); "Try it
 * out" may call the page's origin and the origins of absolute server URLs, nothing else.
 */
function contentSecurityPolicy(connectOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...connectOrigins].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Where the build put the Swagger UI files: `dist/docs` beside the bundled module, or, when the
 * sources run directly (tests), the package's `dist/docs`.
 */
function findAssetDir(): string | undefined {
  const candidates = [join(__dirname, 'docs'), join(__dirname, '..', '..', 'dist', 'docs')];
  return candidates.find((dir) => existsSync(join(dir, 'manifest.json')));
}
