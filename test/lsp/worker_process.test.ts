// The analysis worker runs in a process of its own (server/src/lsp/workerStart.ts, workerHost.ts): ending it
// returns the native memory a worker thread leaves in the server's allocator arenas (docs/performance.md). The
// cancel flag reaches it through a small file it reads while it runs (its main thread runs the analysis and reads no
// message then), a crash of that process is survived, and the server keeps no process behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { LspClient, ROOT, withHangingServer } from './harness';

const small = readFileSync(join(ROOT, 'examples/gpt2_train/train.py'), 'utf8');
const strip = (ds: Diagnostic[]) => ds.map((d) => ({ code: d.code, message: d.message, range: d.range }));
const linux = existsSync('/proc/self/task');

/** The pids of the server's child processes running the worker host (Linux /proc). */
function hosts(pid: number): number[] {
  const out: number[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    let kids: number[] = [];
    try { kids = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number); } catch { continue; }
    for (const k of kids) { try { if (readFileSync(`/proc/${k}/cmdline`, 'utf8').includes('workerHost.js')) out.push(k); } catch { /* ended */ } }
  }
  return out;
}

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

test('the worker is a child process; killed, it is replaced and the next edit is analysed; it ends with the server', { skip: !linux && 'needs /proc' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-wproc-'));
  const c = new LspClient();
  c.settings = { target: { device: 't4' } };
  let host = 0;
  try {
    await c.initialize();
    const doc = c.open(join(dir, 'train.py'), small);
    const reference = await c.diagnostics(doc, 30_000);
    assert.ok(reference.length > 0);
    const hs = hosts(c.proc.pid!);
    assert.equal(hs.length, 1, 'one worker process');
    host = hs[0];
    process.kill(host, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    // A no-op edit pair: the text is the reference's again, analysed by a fresh worker process given the document.
    c.edit(doc, 0, 0, '#');
    c.edit(doc, 0, 1, '');
    const after = await c.diagnostics(doc, 15_000);
    assert.deepEqual(strip(after), strip(reference));
    const again = hosts(c.proc.pid!);
    assert.equal(again.length, 1);
    assert.notEqual(again[0], host);
    host = again[0];
  } finally {
    await c.close();
  }
  // The host sees its channel close and exits.
  for (let i = 0; i < 50 && alive(host); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(alive(host), false, 'the worker process ended with the server');
});

test('a superseded run that reads its cancel flag stops through the flag, without replacing the worker', () => withHangingServer(small, async (c, dir, reference) => {
  const doc = c.open(join(dir, 'doc.py'), `# OOMLENS_TEST_UNTIL_CANCELLED\n${small}`);
  await new Promise((r) => setTimeout(r, 500));
  c.edit(doc, 0, doc.text.indexOf('\n') + 1, '');
  const after = await c.diagnostics(doc, 15_000);
  assert.deepEqual(strip(after), strip(reference));
  assert.doesNotMatch(c.log, /did not stop within/);
}));
