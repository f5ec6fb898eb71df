// The admin front end's build (issue 18): web/src/main.tsx -> dist/web/ with esbuild. Hashed
// names under assets/ (served with a year of caching), pusher-js split into a chunk of its own
// (loaded only when real time is on), an index.html that names the entry's files, and gzip and
// brotli copies beside each asset for @fastify/static's preCompressed.
//   node scripts/build-web.mjs            builds into dist/web
//   import { buildWeb } from './build-web.mjs'   the same from a test, with the sizes
// Each file is written to a temporary name and renamed, index.html last, so a server reading the
// folder while a second build runs (parallel test files) never sees a half-written file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_OUT = path.join(root, 'dist', 'web');
/** The URL path the service serves dist/web under. */
const BASE = '/admin/';

function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

function unchanged(file, contents) {
  try {
    return fs.readFileSync(file).equals(Buffer.from(contents));
  } catch {
    return false;
  }
}

function page({ scripts, styles, preloads }) {
  const lines = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<title>svc admin</title>',
    '<link rel="icon" href="data:,">',
    ...styles.map((href) => `<link rel="stylesheet" href="${BASE}${href}">`),
    ...preloads.map((href) => `<link rel="modulepreload" href="${BASE}${href}">`),
    ...scripts.map((src) => `<script type="module" src="${BASE}${src}"></script>`),
    '</head>',
    '<body>',
    '<div id="app"></div>',
    '<noscript>The svc admin needs JavaScript.</noscript>',
    '</body>',
    '</html>',
    '',
  ];
  return lines.join('\n');
}

/**
 * Builds the app into `outdir`. Returns the files written and the initial JavaScript: the entry
 * and the chunks it imports statically (what a first visit loads before anything else).
 */
export async function buildWeb({ outdir = WEB_OUT, minify = true } = {}) {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['web/src/main.tsx'],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: 'web/tsconfig.json',
    minify,
    sourcemap: false,
    legalComments: 'none',
    entryNames: 'assets/[name]-[hash]',
    chunkNames: 'assets/[name]-[hash]',
    assetNames: 'assets/[name]-[hash]',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const outputs = result.metafile.outputs;
  const relative = (file) =>
    path.relative(outdir, path.resolve(root, file)).split(path.sep).join('/');
  const [entry] = Object.entries(outputs).filter(([, o]) => o.entryPoint === 'web/src/main.tsx');
  if (!entry) throw new Error('build-web: esbuild produced no entry output');
  const [entryFile, entryOutput] = entry;
  const initial = new Set([relative(entryFile)]);
  const visit = (output) => {
    for (const imported of output.imports) {
      if (imported.kind !== 'import-statement' || imported.external) continue;
      const name = relative(imported.path);
      if (initial.has(name)) continue;
      initial.add(name);
      visit(outputs[imported.path]);
    }
  };
  visit(entryOutput);
  const styles = entryOutput.cssBundle ? [relative(entryOutput.cssBundle)] : [];
  const [entryName, ...preloads] = [...initial];

  fs.mkdirSync(path.join(outdir, 'assets'), { recursive: true });
  const written = new Set();
  for (const file of result.outputFiles) {
    const name = relative(file.path);
    written.add(name);
    if (!unchanged(file.path, file.contents)) writeAtomically(file.path, file.contents);
    const gzip = `${file.path}.gz`;
    const brotli = `${file.path}.br`;
    if (!fs.existsSync(gzip)) writeAtomically(gzip, zlib.gzipSync(file.contents, { level: 9 }));
    if (!fs.existsSync(brotli)) writeAtomically(brotli, zlib.brotliCompressSync(file.contents));
    written.add(`${name}.gz`).add(`${name}.br`);
  }
  // Assets of earlier builds: gone (their names are hashes nobody will ask for again).
  for (const name of fs.readdirSync(path.join(outdir, 'assets'))) {
    const rel = `assets/${name}`;
    if (!written.has(rel) && !name.endsWith('.tmp'))
      fs.rmSync(path.join(outdir, rel), { force: true });
  }
  const html = page({ scripts: [entryName], styles, preloads });
  const index = path.join(outdir, 'index.html');
  if (!unchanged(index, html)) writeAtomically(index, html);

  const sizeOf = (name) => {
    const contents = fs.readFileSync(path.join(outdir, name));
    return { name, bytes: contents.length, gzip: zlib.gzipSync(contents, { level: 9 }).length };
  };
  return {
    outdir,
    index: html,
    initial: [...initial].map(sizeOf),
    chunks: Object.keys(outputs)
      .map(relative)
      .filter((n) => n.endsWith('.js'))
      .map(sizeOf),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildWeb();
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  const initialGzip = built.initial.reduce((sum, f) => sum + f.gzip, 0);
  console.log(
    `build-web: ${path.relative(root, built.outdir)}/, initial JavaScript ${kb(initialGzip)} gzipped (${built.initial.map((f) => f.name).join(', ')})`,
  );
}
