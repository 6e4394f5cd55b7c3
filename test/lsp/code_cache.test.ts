// The server's code caches made at run time (server/src/boot/codeCache.ts), as in VS Code, whose Node rejects
// the caches a build leaves beside the bundles: a server given a cache directory saves both bundles' caches
// after its first analysis; the next server started with it loads them (it has nothing to save) and gives the
// same diagnostics. Runs a copy of the bundles without the build's caches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspClient, ROOT } from './harness';

const BUNDLES = ['server.js', 'serverMain.js', 'worker.js', 'workerHost.js', 'workerMain.js', 'tree-sitter.wasm', 'tree-sitter-python.wasm'];

async function session(server: string, cacheDir: string, file: string): Promise<{ diagnostics: unknown; log: string }> {
  const c = new LspClient({ OOMLENS_CODE_CACHE_DIR: cacheDir }, server);
  c.settings = { target: { device: 't4' } };
  try {
    await c.initialize();
    const diagnostics = await c.diagnostics(c.open(file), 30_000);
    // The caches are saved at the first idle point (1 s without a run) after a result.
    for (let i = 0; i < 60 && (c.log.match(/code cache to /g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1500));
    return { diagnostics, log: c.log };
  } finally {
    await c.close();
  }
}

test('code caches saved by a first server are loaded by the next one, with the same diagnostics', async () => {
  const dist = mkdtempSync(join(tmpdir(), 'oomlens-dist-'));
  for (const f of BUNDLES) copyFileSync(join(ROOT, 'dist', f), join(dist, f));
  const cacheDir = join(mkdtempSync(join(tmpdir(), 'oomlens-cache-')), 'code-cache');
  const file = join(ROOT, 'examples/gpt2_train/train.py');
  const first = await session(join(dist, 'server.js'), cacheDir, file);
  assert.match(first.log, /saved the server's code cache to /);
  assert.match(first.log, /saved the analysis worker's code cache to /);
  assert.deepEqual(readdirSync(cacheDir).sort(), [`serverMain.js.${process.versions.v8}.${process.arch}.cache`, `workerMain.js.${process.versions.v8}.${process.arch}.cache`]);
  // None beside the copied bundles: the server writes only where it is told.
  assert.deepEqual(readdirSync(dist).filter((f) => f.endsWith('.cache')), []);
  const saved = readdirSync(cacheDir).map((f) => readFileSync(join(cacheDir, f)));
  const second = await session(join(dist, 'server.js'), cacheDir, file);
  assert.doesNotMatch(second.log, /code cache to /);
  assert.deepEqual(second.diagnostics, first.diagnostics);
  assert.deepEqual(readdirSync(cacheDir).map((f) => readFileSync(join(cacheDir, f))), saved);
});
