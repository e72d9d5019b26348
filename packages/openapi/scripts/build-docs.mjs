// Copies Swagger UI (from the pinned swagger-ui-dist devDependency) and the page's starter script
// into dist/docs/ at build time, with gzip copies and a manifest of content hashes the server
// reads. Nothing is fetched at run time and no CDN is referred to.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'docs');
const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const swaggerVersion = JSON.parse(await readFile(join(swaggerDir, 'package.json'), 'utf8')).version;
const started = performance.now();

const TYPES = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** served name → source file */
const sources = {
  'swagger-ui-bundle.js': join(swaggerDir, 'swagger-ui-bundle.js'),
  'swagger-ui-standalone-preset.js': join(swaggerDir, 'swagger-ui-standalone-preset.js'),
  'swagger-ui.css': join(swaggerDir, 'swagger-ui.css'),
  'favicon-32x32.png': join(swaggerDir, 'favicon-32x32.png'),
  'docs-init.js': join(root, 'assets', 'docs', 'docs-init.js'),
  // Apache-2.0: the license and notice travel with the copied files.
  'swagger-ui-LICENSE.txt': join(swaggerDir, 'LICENSE'),
  'swagger-ui-NOTICE.txt': join(swaggerDir, 'NOTICE'),
};

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });

const files = {};
for (const [name, source] of Object.entries(sources)) {
  let content = await readFile(source);
  const ext = name.slice(name.lastIndexOf('.'));
  const text = ext === '.js' || ext === '.css';
  if (text) {
    // Source maps are not shipped: drop the comments that would make devtools ask for them.
    content = Buffer.from(content.toString('utf8').replace(/\n?\/[/*]# sourceMappingURL=[^\n]*$/gm, ''));
  }
  if (ext === '.css') {
    // Guard the offline promise: the stylesheet may load nothing from elsewhere.
    const remote = content.toString('utf8').match(/(?:@import\s+(?:url\()?|url\()\s*['"]?(?:https?:)?\/\/[^'")\s]+/);
    if (remote !== null) throw new Error(`build-docs: ${name} loads a remote resource: ${remote[0]}`);
  }
  await writeFile(join(outdir, name), content);
  if (text) await writeFile(join(outdir, `${name}.gz`), gzipSync(content, { level: 9 }));
  files[name] = {
    type: TYPES[ext] ?? 'application/octet-stream',
    hash: createHash('sha256').update(content).digest('hex').slice(0, 12),
    size: content.length,
  };
}

await writeFile(join(outdir, 'manifest.json'), `${JSON.stringify({ swaggerUI: swaggerVersion, files }, null, 2)}\n`);
const ms = Math.round(performance.now() - started);
console.log(`build-docs: Swagger UI ${swaggerVersion}, ${Object.keys(files).length} files in dist/docs in ${ms} ms`);
