// Bundles the three entry points (VS Code client, language server, CLI) with
// esbuild and copies the tree-sitter wasm files next to the server bundle.
// `--production` minifies; `--watch` rebuilds on change. Type checking is
// separate (`tsc -b`): esbuild strips types without checking them.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { makeCodeCaches, removeCodeCaches } from './scripts/code-cache.mjs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

// vega-canvas's Node build awaits an optional `canvas` package at its top level, which a CommonJS bundle
// cannot hold; its browser build returns no canvas outside a page, and vega then measures text by
// estimate and draws SVG without one (all `--format svg` needs).
const vegaCanvasBrowser = {
  name: 'vega-canvas-browser',
  setup(build) {
    build.onResolve({ filter: /^vega-canvas$/ }, () => ({ path: join(dirname(require.resolve('vega-canvas')), 'vega-canvas.browser.js') }));
  },
};

const common = {
  plugins: [vegaCanvasBrowser],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // Prefer a package's ESM build: jsonc-parser's `main` is a UMD file whose dynamic requires esbuild cannot follow.
  mainFields: ['module', 'main'],
  // web-tree-sitter's ESM build calls createRequire(import.meta.url), which a
  // CommonJS bundle leaves undefined; give it the bundle's own file URL.
  define: { 'import.meta.url': 'importMetaUrl' },
  banner: { js: "const importMetaUrl = require('url').pathToFileURL(__filename).href;" },
};

// dist/serverMain.js and dist/workerMain.js are compiled with vm.Script (server/src/boot/codeCache.ts), where a
// dynamic import() would need a loader callback (experimental in Node 20). web-tree-sitter imports two Node
// built-ins so (node:module, node:fs/promises): each becomes a require() of the built-in, through a name the banner
// binds to the module's own require (web-tree-sitter declares a `require` of its own in that function).
const builtinImports = {
  name: 'builtin-dynamic-imports',
  setup(build) {
    build.onLoad({ filter: /[\\/]web-tree-sitter[\\/].*\.(m?js|cjs)$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replace(/\bimport\((["'])((?:node:)?[a-z_/]+)\1\)/g, (all, q, name) => (isBuiltin(name) ? `Promise.resolve(nodeRequire(${q}${name}${q}))` : all)), loader: 'js' };
    });
  },
};
const loadedByVm = {
  plugins: [vegaCanvasBrowser, builtinImports],
  banner: { js: `${common.banner.js}\nconst nodeRequire = require;` },
};

const entries = [
  // Only the client may import 'vscode'; it is provided by the editor at run time.
  { entryPoints: ['client/src/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] },
  // The server's entry: starts the analysis worker, then loads dist/serverMain.js through V8's code cache
  // (server/src/boot/codeCache.ts); the worker's entry, dist/worker.js, loads dist/workerMain.js the same way.
  { entryPoints: ['server/src/main.ts'], outfile: 'dist/server.js' },
  { entryPoints: ['server/src/serverMain.ts'], outfile: 'dist/serverMain.js', ...loadedByVm },
  { entryPoints: ['server/src/lsp/workerBoot.ts'], outfile: 'dist/worker.js' },
  // The worker's own process (server/src/lsp/workerStart.ts): runs dist/workerMain.js on its main thread.
  { entryPoints: ['server/src/lsp/workerHost.ts'], outfile: 'dist/workerHost.js' },
  { entryPoints: ['server/src/lsp/worker.ts'], outfile: 'dist/workerMain.js', ...loadedByVm },
  { entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js' },
  // The timeline webview's script (vega-lite + vega, run in the page under a strict CSP).
  {
    entryPoints: ['client/webview/timeline.ts'], outfile: 'dist/timelineView.js', platform: 'browser', format: 'iife', target: 'chrome114',
    define: {}, banner: {},
  },
];

function copyWasm() {
  mkdirSync('dist', { recursive: true });
  const files = [
    require.resolve('web-tree-sitter/tree-sitter.wasm'),
    join(dirname(require.resolve('tree-sitter-python/package.json')), 'tree-sitter-python.wasm'),
  ];
  for (const f of files) copyFileSync(f, join('dist', f.split('/').pop()));
}

copyWasm();
// Caches of earlier bundles would not be used (their hash differs) and only take space.
removeCodeCaches();
const contexts = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  for (const f of ['dist/serverMain.js', 'dist/workerMain.js']) {
    if (/[^\w$.]import\(/.test(readFileSync(f, 'utf8'))) throw new Error(`${f} has a dynamic import(), which vm.Script cannot run without a loader (see builtinImports)`);
  }
  // V8 code caches of the server's two bundles, made by running the built server on the examples
  // (scripts/code-cache.mjs). Not for a package: VS Code runs the server on its own Node, whose V8 would
  // reject them; the extension makes its own in its storage (client/src/client.ts). OOMLENS_NO_CODE_CACHE=1
  // skips them.
  if (!production && !process.env.OOMLENS_NO_CODE_CACHE) {
    try {
      await makeCodeCaches();
    } catch (e) {
      console.warn(`warning: no code cache made (the server loads without one, only slower): ${e.message}`);
    }
  }
}
