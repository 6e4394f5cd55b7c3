// Makes the V8 code caches of dist/serverMain.js and dist/workerMain.js beside them (run by esbuild.mjs after a
// build; server/src/boot/codeCache.ts loads them). It starts the built server over stdio as the extension does,
// with OOMLENS_CODE_CACHE_DIR set to dist/, opens the example programs (examples/**.py: PyTorch, JAX, Flax,
// Haiku, Equinox, Hugging Face), asks a hover on each, and waits for the server to save both caches at its first
// idle point: a cache made then holds the bytecode of every function those analyses ran, so a server started
// later with the same Node does not compile them again. A cache only makes loading faster: one made by another
// Node (VS Code's) is rejected by V8 and the bundle is compiled from its source.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import rpc from 'vscode-jsonrpc/node';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const TIMEOUT_MS = 60_000;

/** Removes caches left by earlier builds (they would not match the new bundles, and would only take space). */
export function removeCodeCaches() {
  if (!existsSync(DIST)) return;
  for (const f of readdirSync(DIST)) if (f.endsWith('.cache')) rmSync(join(DIST, f));
}

function pythonFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...pythonFiles(p));
    else if (e.name.endsWith('.py')) out.push(p);
  }
  return out.sort();
}

export async function makeCodeCaches(dir = DIST) {
  const proc = spawn(process.execPath, [join(DIST, 'server.js'), '--stdio'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, OOMLENS_CODE_CACHE_DIR: dir },
  });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));
  const saved = new Set();
  const diagnosed = new Set();
  let wake = () => {};
  conn.onNotification('window/logMessage', (p) => {
    if (/saved the server's code cache/.test(p.message)) saved.add('server');
    if (/saved the analysis worker's code cache/.test(p.message)) saved.add('worker');
    wake();
  });
  conn.onNotification('textDocument/publishDiagnostics', (p) => { diagnosed.add(p.uri); wake(); });
  conn.onRequest('workspace/configuration', (p) => p.items.map(() => null));
  conn.onRequest('workspace/codeLens/refresh', () => null);
  conn.listen();
  const until = async (done, what) => {
    const deadline = Date.now() + TIMEOUT_MS;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`code cache: timed out waiting for ${what}`);
      await new Promise((r) => { wake = r; setTimeout(r, 200); });
    }
  };
  try {
    const examples = join(ROOT, 'examples');
    await conn.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(examples).href, capabilities: {} });
    await conn.sendNotification('initialized', {});
    const files = pythonFiles(examples);
    for (const f of files) {
      await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: pathToFileURL(f).href, languageId: 'python', version: 1, text: readFileSync(f, 'utf8') } });
    }
    await until(() => files.every((f) => diagnosed.has(pathToFileURL(f).href)), 'the examples\' diagnostics');
    for (const f of files) {
      const lines = readFileSync(f, 'utf8').split('\n');
      const line = Math.max(0, lines.findIndex((l) => /^\s*\w+\s*=\s*\w+\(/.test(l)));
      await conn.sendRequest('textDocument/hover', { textDocument: { uri: pathToFileURL(f).href }, position: { line, character: 4 } });
    }
    await until(() => saved.size === 2, 'the server to save its code caches');
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
  } finally {
    conn.dispose();
    proc.kill();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  removeCodeCaches();
  await makeCodeCaches();
}
