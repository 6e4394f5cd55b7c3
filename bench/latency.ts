// Latency benchmark (npm run bench; not part of npm test). An independent
// LSP client drives the bundled server over stdio on a generated
// 2,000-line PyTorch model file and prints:
//   open → first diagnostics;
//   edit → publishDiagnostics for that version, p50 / p95, over single-character
//     ranged edits (the user's view: includes the server's debounce);
//   hover p95, sent right after edits (while an analysis runs);
//   server RSS over 20,000 edits (bursts of 100, diagnostics awaited after each);
//   ruff's time to check the same file (`.venv/bin/ruff` or `ruff` on PATH), as a ratio.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LspClient, ROOT, treeRssMb } from '../test/lsp/harness';
import { modelFile } from './generate';

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
/** CPU time the process has used (all its threads: the server's main thread and the analysis worker), or with `tid` one thread's, in ms. */
const cpuMs = (pid: number, tid?: number): number => {
  const f = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime) in clock ticks; the list starts at field 3.
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / TICKS;
};
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
// The server and its analysis worker's process.
const rssMb = (pid: number): number => treeRssMb(pid);

function ruffMs(file: string): number | undefined {
  const exe = [join(ROOT, '.venv/bin/ruff'), 'ruff'].find((e) => e === 'ruff' || existsSync(e))!;
  const run = () => spawnSync(exe, ['check', '--no-cache', '--quiet', '--select', 'ALL', file], { encoding: 'utf8' });
  const first = run();
  if (first.error) return undefined;
  const times: number[] = [];
  for (let i = 0; i < 10; i++) { const t = performance.now(); run(); times.push(performance.now() - t); }
  return pct(times, 50);
}

void (async () => {
  const totalEdits = Number(process.argv.find((a) => a.startsWith('--edits='))?.slice(8) ?? 20_000);
  const c = new LspClient();
  // A T4 makes the generated model not fit, so every edit produces diagnostics.
  c.settings = { target: { device: 't4' } };
  await c.initialize();
  // --file=PATH: a real file, opened where it is (its project is the workspace; it is never written).
  const given = process.argv.find((a) => a.startsWith('--file='))?.slice(7);
  const text = given ? readFileSync(given, 'utf8') : modelFile(2000);
  let path = given ? resolve(given) : '';
  if (!given) {
    const dir = mkdtempSync(join(tmpdir(), 'oomlens-bench-'));
    path = join(dir, 'model.py');
    writeFileSync(path, text);
  }
  const pid = c.proc.pid!;
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  const d = c.open(path, text);
  const first = await c.diagnostics(d, 60_000);
  const openMs = performance.now() - t0;
  const openCpu = cpuMs(pid) - cpu0;

  // Type a digit into the embedding size, as a user edits a hyperparameter.
  // In a given file: the last digit of its last integer literal of two or more digits.
  const lastNumber = [...text.matchAll(/\b\d\d+\b/g)].pop();
  const mark = given ? text.slice(0, lastNumber ? lastNumber.index! + lastNumber[0].length - 1 : 0) : 'nn.Embedding(32000, 409';
  const digitAt = () => (given ? mark.length : d.text.indexOf(mark) + mark.length);
  let flip = 0;
  const type = () => { const at = digitAt(); c.edit(d, at, at + 1, String(6 + (flip++ % 2))); };

  const edit: number[] = [];
  const editCpu0 = cpuMs(pid);
  const editMain0 = cpuMs(pid, pid);
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    type();
    await c.diagnostics(d, 60_000);
    edit.push(performance.now() - t);
  }
  const editCpu = (cpuMs(pid) - editCpu0) / edit.length;
  // The main thread alone (its thread id is the process id): it answers hovers, and receives each result from the worker.
  const editMain = (cpuMs(pid, pid) - editMain0) / edit.length;
  const hover: number[] = [];
  // On the model's construction (a given file: the line of the edited number).
  const hoverAt = given ? mark.split('\n').length - 1 : d.text.split('\n').findIndex((l) => l.startsWith('model = Model()'));
  const hoverMain0 = cpuMs(pid, pid);
  for (let i = 0; i < 100; i++) {
    type();
    const t = performance.now();
    await c.hover(d, { line: hoverAt, character: 10 });
    hover.push(performance.now() - t);
    await c.diagnostics(d, 60_000);
  }

  const hoverMain = (cpuMs(pid, pid) - hoverMain0) / hover.length;
  const rssStart = rssMb(pid);
  let rssMax = rssStart;
  for (let i = 0; i < totalEdits; i += 100) {
    for (let j = 0; j < 100; j++) type();
    await c.diagnostics(d, 60_000);
    rssMax = Math.max(rssMax, rssMb(pid));
  }
  const rssEnd = rssMb(pid);
  await c.close();

  const ruff = ruffMs(path);
  const fmt = (x: number) => `${x.toFixed(0)} ms`;
  console.log(given ? `oomlens latency, ${given} (${text.split('\n').length} lines, ${first.length} diagnostics)` : `oomlens latency, generated ${text.split('\n').length}-line PyTorch model file (${first.length} diagnostics)`);
  console.log('| measure | value | target |');
  console.log('| --- | --- | --- |');
  console.log(`| open → first diagnostics | ${fmt(openMs)} | ≤ 300 ms |`);
  console.log(`| edit → diagnostics p50 (${edit.length} edits) | ${fmt(pct(edit, 50))} | goal 30 ms |`);
  console.log(`| edit → diagnostics p95 | ${fmt(pct(edit, 95))} | ≤ 100 ms |`);
  console.log(`| hover p95 (sent right after an edit) | ${fmt(pct(hover, 95))} | ≤ 20 ms |`);
  // Wall-clock figures on a shared machine depend on its load; the server's own CPU time much less.
  console.log(`| server CPU time, open (all threads) | ${fmt(openCpu)} | |`);
  console.log(`| server CPU time per edit, mean (all threads) | ${fmt(editCpu)} | |`);
  console.log(`| server main-thread CPU time per edit, mean | ${editMain.toFixed(1)} ms | |`);
  console.log(`| server main-thread CPU time per hover (with its edit), mean | ${hoverMain.toFixed(1)} ms | |`);
  console.log(`| load average (1 min) at the end | ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]} | |`);
  console.log(`| server RSS over ${totalEdits} edits (start → end, max) | ${rssStart.toFixed(0)} → ${rssEnd.toFixed(0)} MB, max ${rssMax.toFixed(0)} MB | flat ± 20 MB |`);
  if (ruff === undefined) console.log('| ruff check --select ALL | ruff not found (pip install ruff into .venv to compare) | |');
  else {
    const ours = pct(edit, 50);
    console.log(`| ruff check --select ALL, same file (process start included) | ${fmt(ruff)} | |`);
    console.log(`| oomlens edit → diagnostics p50 / ruff | ${(ours / ruff).toFixed(1)}× | |`);
  }
})();
