// Bundles the three entry points (VS Code client, language server, CLI) with
// esbuild and copies the tree-sitter wasm files next to the server bundle.
// `--production` minifies; `--watch` rebuilds on change. Type checking is
// separate (`tsc -b`): esbuild strips types without checking them.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
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

const entries = [
  // Only the client may import 'vscode'; it is provided by the editor at run time.
  { entryPoints: ['client/src/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] },
  { entryPoints: ['server/src/main.ts'], outfile: 'dist/server.js' },
  // The server's analysis worker (worker_threads), loaded from beside dist/server.js.
  { entryPoints: ['server/src/lsp/worker.ts'], outfile: 'dist/worker.js' },
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
const contexts = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
