import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '@fw/core';
import { createAssetHandler, sendHtmlPage, type LogFunction, type StaticAsset } from '@fw/core/plugin';

/** The folder (under the endpoint path) the GraphiQL files are served from. */
export const PLAYGROUND_FOLDER = '__playground';

/** Strict enough that the page can load nothing but its own two files and talk to its own origin. */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Manifest {
  js: string;
  css: string;
}

/** Serves the GraphiQL page and its bundled files (built into dist/playground by the package build). */
export interface Playground {
  /** The exact request paths of the bundled files (the plugin claims them). */
  readonly assetPaths: readonly string[];
  /** Answers with the GraphiQL page. */
  readonly page: (ctx: Context) => void;
  /** Answers a request for one of `assetPaths` (GET and HEAD only, else 405). */
  readonly asset: (ctx: Context) => Promise<void>;
}

/**
 * The playground for an endpoint at `path`. The page refers to its files relative to itself, so it
 * keeps working behind a proxy that mounts the app under a prefix.
 */
export function createPlayground(path: string, onLog: LogFunction, defaultQuery?: string): Playground {
  const dir = findAssetDir();
  const manifest = dir === undefined ? undefined : (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest);
  const folder = path.endsWith('/') ? `${path}${PLAYGROUND_FOLDER}` : `${path}/${PLAYGROUND_FOLDER}`;
  const relative = path.endsWith('/') ? `./${PLAYGROUND_FOLDER}` : `./${path.slice(path.lastIndexOf('/') + 1)}/${PLAYGROUND_FOLDER}`;
  const assets: Record<string, StaticAsset> = {};
  for (const file of manifest === undefined ? [] : [manifest.js, manifest.css]) {
    assets[`${folder}/${file}`] = { file: join(dir!, file), type: TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' };
  }
  let html: string | undefined;
  let warned = false;

  return {
    assetPaths: Object.keys(assets),
    page: (ctx) => {
      if (manifest === undefined) {
        if (!warned) onLog('GraphiQL playground: the bundled files are missing (dist/playground); run the @fw/graphql build');
        warned = true;
        ctx.text('The GraphiQL playground files are missing from this installation of @fw/graphql.', 500);
        return;
      }
      html ??= renderPage(`${relative}/${manifest.js}`, `${relative}/${manifest.css}`, defaultQuery);
      sendHtmlPage(ctx, html, PAGE_CSP);
    },
    asset: createAssetHandler(assets),
  };
}

/** The page; the default query rides on an attribute, since the CSP allows no inline script. */
function renderPage(script: string, stylesheet: string, defaultQuery: string | undefined): string {
  const query = defaultQuery === undefined ? '' : ` data-default-query="${escapeAttribute(defaultQuery)}"`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>GraphiQL</title>
<link rel="stylesheet" href="${escapeAttribute(stylesheet)}">
<script src="${escapeAttribute(script)}" defer></script>
</head>
<body>
<div id="graphiql"${query}>Loading GraphiQL…</div>
</body>
</html>
`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Where the build put the GraphiQL files: `dist/playground` beside the bundled module, or, when
 * the sources run directly (tests), the package's `dist/playground`.
 */
function findAssetDir(): string | undefined {
  const candidates = [join(__dirname, 'playground'), join(__dirname, '..', 'playground'), join(__dirname, '..', '..', 'dist', 'playground')];
  return candidates.find((dir) => existsSync(join(dir, 'manifest.json')));
}
