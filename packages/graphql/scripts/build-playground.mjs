// Bundles GraphiQL (React, graphql and the stylesheet included) into dist/playground/ at build
// time, with content-hashed file names and a manifest the server reads. Nothing is fetched at run time.
import { build } from 'esbuild';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'playground');
const started = performance.now();

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });

const result = await build({
  entryPoints: { graphiql: join(root, 'assets', 'playground', 'entry.js') },
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2020'],
  outdir,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  // Fonts are inlined by graphiql's stylesheet already; anything else small is inlined too.
  loader: { '.woff': 'dataurl', '.woff2': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
});

const files = await readdir(outdir);
const pick = (ext) => {
  const found = files.find((f) => f.startsWith('graphiql-') && f.endsWith(ext));
  if (found === undefined) throw new Error(`build-playground: no ${ext} output in ${outdir}`);
  return found;
};
const manifest = { js: pick('.js'), css: pick('.css'), files: files.sort() };

// Guard the offline promise: no absolute http(s) URL may be loaded by the bundle.
for (const output of Object.keys(result.metafile.outputs)) {
  if (/\.(js|css)$/.test(output) === false) continue;
  const text = await readFile(join(root, output), 'utf8');
  const remote = text.match(/(?:@import\s+(?:url\()?|url\()\s*['"]?https?:\/\/[^'")\s]+/);
  if (remote !== null) throw new Error(`build-playground: ${basename(output)} loads a remote resource: ${remote[0]}`);
  // Served as is to clients that accept gzip: about a quarter of the size, compressed once here.
  await writeFile(join(root, `${output}.gz`), gzipSync(text, { level: 9 }));
}

await writeFile(join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
const ms = Math.round(performance.now() - started);
console.log(`build-playground: ${manifest.js}, ${manifest.css} in ${ms} ms`);
