import type { Context, Route } from '@fw/core';
import { assertGetOrHead, type Plugin, type PluginHost } from '@fw/core/plugin';
import { DEFAULT_INFO } from './defaults.js';
import { openapi } from './document.js';
import { createDocsPage, normalizeMountPath } from './internal/docs-page.js';
import type { OpenAPIDocument, OpenAPIOptions, OpenAPIPluginConfig, OpenAPIWarning } from './types.js';

/** The plugin `openapiPlugin()` returns: register it with `app.register()`. */
export interface OpenAPIPlugin extends Plugin {
  /** The document served at `path` (or the entry of `documents` with this name or path), built from the app's current routes. */
  document(nameOrPath?: string): OpenAPIDocument;
}

interface Entry {
  name: string;
  path: string;
  options: OpenAPIOptions;
}

interface Built {
  routes: readonly Route[];
  document: OpenAPIDocument;
  json: string;
  etag: string;
}

/** The implementation of `openapiPlugin`: the package exports ./lazy.ts's, which loads this on its first call. */
export function openapiPlugin(config: OpenAPIPluginConfig = {}): OpenAPIPlugin {
  const { name = 'openapi', path = '/openapi.json', docsPath = '/docs', documents = [], docsTitle, swaggerUI = {}, ...base } = config;
  const entries: Entry[] = [];
  if (path !== false) entries.push({ name: base.info?.title ?? DEFAULT_INFO.title, path: checkPath('path', path), options: base });
  for (const doc of documents) {
    const { name: docName, path: docPath, ...own } = doc;
    if (typeof docName !== 'string' || docName === '') throw new TypeError('openapiPlugin: every entry of documents needs a name');
    entries.push({ name: docName, path: checkPath(`documents "${docName}" path`, docPath), options: { ...base, ...own } });
  }
  if (entries.length === 0) throw new TypeError('openapiPlugin: nothing to serve; give a path or documents');
  const paths = new Set(entries.map((entry) => entry.path));
  if (paths.size !== entries.length) throw new TypeError('openapiPlugin: two documents are served at the same path');

  let host: PluginHost | undefined;
  // Rebuilding after a route change must not repeat every warning.
  const warned = new Set<string>();
  const onWarning = (options: OpenAPIOptions, registered: PluginHost) => (warning: OpenAPIWarning): void => {
    if (warned.has(warning.message)) return;
    warned.add(warning.message);
    if (options.onWarning !== undefined) options.onWarning(warning);
    else registered.log(`[@fw/openapi] ${warning.message}`);
  };

  const built = new Map<string, Built>();

  const build = (entry: Entry): Built => {
    if (host === undefined) throw new Error(`The "${name}" plugin is not registered: call app.register(openapiPlugin(...)) first`);
    const routes = host.routes();
    const cached = built.get(entry.path);
    if (cached !== undefined && sameRoutes(cached.routes, routes)) return cached;
    const document = openapi(routes, { ...entry.options, onWarning: onWarning(entry.options, host) });
    const json = JSON.stringify(document);
    const fresh: Built = { routes, document, json, etag: etagOf(json) };
    built.set(entry.path, fresh);
    return fresh;
  };

  const serve = (entry: Entry) =>
    function serveOpenAPI(ctx: Context): void {
      assertGetOrHead(ctx);
      const { json, etag } = build(entry);
      ctx.setHeader('etag', etag);
      ctx.setHeader('cache-control', 'no-cache');
      if (matchesEtag(ctx.headers['if-none-match'], etag)) {
        ctx.status(304);
        return;
      }
      ctx.setHeader('content-type', 'application/json; charset=utf-8');
      ctx.send(json, 200);
    };

  return {
    name,
    setup(pluginHost: PluginHost): void {
      host = pluginHost;
      for (const entry of entries) pluginHost.claimPath(entry.path, serve(entry));
      if (docsPath === false) return;
      const page = createDocsPage({
        docsPath: normalizeMountPath(docsPath),
        documents: entries,
        title: docsTitle ?? base.info?.title ?? DEFAULT_INFO.title,
        swaggerUI,
        connectOrigins: serverOrigins(entries),
        log: (message) => pluginHost.log(message),
      });
      for (const pagePath of page.pagePaths) pluginHost.claimPath(pagePath, page.page);
      for (const assetPath of page.assetPaths) pluginHost.claimPath(assetPath, page.asset);
    },
    document(nameOrPath?: string): OpenAPIDocument {
      const entry = nameOrPath === undefined ? entries[0]! : entries.find((e) => e.name === nameOrPath || e.path === nameOrPath);
      if (entry === undefined) throw new Error(`The "${name}" plugin serves no document named "${nameOrPath}"`);
      return structuredClone(build(entry).document);
    },
  };
}

/** A strong ETag: the document's SHA-256. `node:crypto` loads on the first build, not with the package. */
function etagOf(json: string): string {
  return `"${process.getBuiltinModule('node:crypto').createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
}

function checkPath(what: string, path: unknown): string {
  if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError(`openapiPlugin: ${what} must be a path starting with "/", got ${JSON.stringify(path)}`);
  return path;
}

/** `host.routes()` gives the same records until the route table changes, so identity tells. */
function sameRoutes(a: readonly Route[], b: readonly Route[]): boolean {
  return a.length === b.length && a.every((route, i) => route === b[i]);
}

function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  return value.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** The origins of absolute server URLs: "Try it out" may call them, so the page's CSP allows them. */
function serverOrigins(entries: readonly Entry[]): string[] {
  const origins = new Set<string>();
  for (const entry of entries) {
    for (const server of entry.options.servers ?? []) {
      if (!/^https?:\/\//i.test(server.url) || /\{/.test(server.url)) continue;
      try {
        origins.add(new URL(server.url).origin);
      } catch {
        // Not a URL the browser could call either.
      }
    }
  }
  return [...origins];
}
