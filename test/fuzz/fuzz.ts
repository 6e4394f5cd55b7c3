// npm run fuzz [-- --seconds N --docs N --seed S]: drives the built language server
// (dist/server.js) over stdio with real Python files (examples/, test
// fixtures) and mutations of them — truncations, deletions, junk bytes, deep
// nesting, huge files, absurd sizes, half-typed prefixes, bursts of ranged
// edits — interleaved with random hovers, code actions, lenses, malformed
// requests and bad settings. Fixed seed, bounded time. Reports crashes,
// requests unanswered after 2 s, error responses (other than the
// InvalidParams asked for) and RSS growth; writes each failing document,
// shrunk by line deletion, to test/fuzz/repro/ (replayed by repro.test.ts).
// Exits 1 on a crash or an unanswered request.
//
// --docs N stops after N documents: the same inputs and requests on every
// machine (what CI runs); --seconds bounds the run either way. RSS growth is
// measured between two quiet points (all documents closed, the server idle
// for a few seconds), after a warm-up, so it shows retained memory rather
// than the size of whatever analysis happens to be running. A progress line
// is printed every 30 s. FUZZ_RSS_EVERY=N adds a quiet point every N documents
// and prints each (RSS growth over the first, workers replaced so far) and the
// highest. To find what a problem waited for: FUZZ_LOG=file (the server's log),
// FUZZ_SMAPS=dir (its /proc smaps at each quiet point), FUZZ_SLOW=dir (the texts
// of documents whose diagnostics took over 5 s or never came).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspClient, ROOT, treeRssMb, type Opened } from '../lsp/harness';

const arg = (name: string, dflt: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? process.argv[process.argv.indexOf(`--${name}`) + 1] ?? dflt) || dflt;
const SECONDS = arg('seconds', 60);
const SEED = arg('seed', 1);
const DOCS = arg('docs', Infinity);
/** Documents opened before the RSS baseline is taken. */
const WARM_DOCS = Math.min(60, Math.floor(DOCS / 5));
const REPRO = join(ROOT, 'test/fuzz/repro');

let state = SEED >>> 0;
const rnd = () => { state = (state + 0x6d2b79f5) >>> 0; let t = state; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
const int = (n: number) => Math.floor(rnd() * n);
const pick = <T>(xs: T[]): T => xs[int(xs.length)];

function pyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...pyFiles(p));
    else if (name.endsWith('.py')) out.push(p);
  }
  return out;
}
const corpus = [...pyFiles(join(ROOT, 'examples')), ...pyFiles(join(ROOT, 'test/fixtures'))].map((f) => readFileSync(f, 'utf8'));

const JUNK = ['\u0000', '\uFFFF', '\uD800', '\t\t', '\\', '"""', "'", '(', ')', ']', '{', ':', '@', '\r', '\u00e9', '🙂', '\x1b', '**', 'lambda', 'yield'];
const mutations: Array<[string, (t: string) => string]> = [
  ['truncate', (t) => t.slice(0, int(t.length + 1))],
  ['delete', (t) => { const a = int(t.length + 1); return t.slice(0, a) + t.slice(a + int(200)); }],
  ['junk', (t) => { let s = t; for (let i = 0; i < 1 + int(8); i++) { const a = int(s.length + 1); s = s.slice(0, a) + pick(JUNK) + s.slice(a); } return s; }],
  ['deep', (t) => { const n = 200 + int(3000); return `${t}\ny = ${pick(['f(', '(', '[', 'nn.Sequential(', '-'])}`.repeat(1) + pick(['f(', '(', '[', 'nn.Sequential(']).repeat(n) + '1' + ')'.repeat(int(2) ? n : int(n)) + '\n'; }],
  ['sum', (t) => `${t}\nz = ${Array(500 + int(3000)).fill('a').join(' + ')}\n`],
  ['huge', (t) => t.repeat(Math.min(400, Math.ceil(2_000_000 / Math.max(1, t.length)) * (int(3) ? 0.05 : 1)) | 0 || 1)],
  ['absurd', (t) => t.replace(/\b\d+\b/g, () => pick(['10**30', '0', '-1', '2**63', '99999999999999999999', '1e308', 'float("nan")', '10**9']))],
  ['prefix', (t) => t.slice(0, t.lastIndexOf('\n', int(t.length)) + 1) + pick(['def f(', 'class M(nn.', 'x = torch.zeros((', 'for i in range(', 'with torch.', 'import ', '@jax.', 'model = AutoModel.from_pretrained('])],
  ['grow', () => pick(['x = [0]\nfor _ in range(64):\n    x = x + x\n', 's = "a"\nfor _ in range(64):\n    s += s\n', 'd = {}\nfor i in range(10**6):\n    d[i] = i\n', 'xs = [1]\nfor _ in range(50):\n    xs.extend(xs)\n', 'while True:\n    pass\n', 'def f(n):\n    return f(n + 1)\nf(0)\n'])],
];

interface Problem { kind: 'crash' | 'unanswered' | 'error'; what: string; text: string }

// A hard bound on the whole run (fuzzing, closing, shrinking): a hang anywhere fails instead of stalling CI.
setTimeout(() => {
  console.log(`fuzz: did not finish within ${SECONDS + 240} s (a hang in the server or the driver)`);
  process.exit(1);
}, (SECONDS + 240) * 1000).unref();

void (async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-fuzz-'));
  const problems: Problem[] = [];
  let requests = 0, edits = 0, docsOpened = 0, invalidAsked = 0;
  let c = new LspClient();
  let crashed = false;
  /** Set before the driver's own shutdown/exit: the server's exit then is the expected one, not a crash. */
  let closing = false;
  const watch = (cl: LspClient) => cl.proc.on('exit', (code, sig) => { if (cl === c && !closing) { crashed = true; problems.push({ kind: 'crash', what: `server exited (code ${code}, signal ${sig}); stderr: ${cl.stderr.slice(-4000)}`, text: current?.text ?? '' }); } });
  watch(c);
  await c.initialize();
  let current: Opened | undefined;
  const open = new Set<string>();
  // The server and its analysis worker's process.
  const rss = () => treeRssMb(c.proc.pid!);

  const latencies: number[] = [];
  const request = async (method: string, params: unknown, expectInvalid = false) => {
    requests++;
    const t = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => { timer = setTimeout(() => r('late'), 2000); });
    const text = current?.text ?? '';
    const answer = c.conn.sendRequest(method, params).then(() => 'ok' as const, (e: { code?: number; message?: string }) => e);
    try {
      const r = await Promise.race([answer, late]);
      if (r === 'late') {
        const p: Problem = { kind: 'unanswered', what: `${method} not answered within 2 s`, text };
        problems.push(p);
        // Say whether (and when) the answer came after all: a slow answer and a lost one have different causes.
        void answer.then(() => { p.what += ` (answered after ${Date.now() - t} ms)`; });
      } else {
        latencies.push(Date.now() - t);
        if (r !== 'ok' && !(expectInvalid && r.code === -32602) && !crashed) problems.push({ kind: 'error', what: `${method}: error ${r.code} ${r.message}`, text });
      }
    } finally {
      clearTimeout(timer);
    }
  };

  /** Closes every open document and waits until the server has been idle a while: a quiet point to read RSS at. */
  const quietRss = async () => {
    for (const uri of open) void c.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    open.clear();
    current = undefined;
    await request('textDocument/hover', { textDocument: { uri: 'file:///none.py' }, position: { line: 0, character: 0 } });
    await new Promise((r) => setTimeout(r, 4000));
    return rss();
  };

  // FUZZ_SMAPS=dir: the server's /proc/<pid>/smaps at each quiet point, to see which mappings hold what grew.
  const smaps = () => { if (process.env.FUZZ_SMAPS) { try { writeFileSync(join(process.env.FUZZ_SMAPS, `smaps-${docsOpened}.txt`), readFileSync(`/proc/${c.proc.pid}/smaps`, 'utf8')); } catch { /* the server is gone */ } } };
  const t0 = Date.now();
  const deadline = t0 + SECONDS * 1000;
  let rssStart = NaN, rssMax = 0, nextReport = t0 + 30_000;
  const progress = () => `${((Date.now() - t0) / 1000).toFixed(0)} s: ${docsOpened} documents, ${edits} edits, ${requests} requests, ${problems.length} problems, RSS ${rss().toFixed(0)} MB`;
  // FUZZ_RSS_EVERY=N: a quiet point every N documents after the warm-up, to see how RSS grows over the run.
  const rssEvery = Number(process.env.FUZZ_RSS_EVERY) || 0;
  let lastQuiet = 0, quietMax = 0;
  while (Date.now() < deadline && docsOpened < DOCS && !crashed) {
    if (Number.isNaN(rssStart) && docsOpened >= WARM_DOCS) { rssStart = await quietRss(); lastQuiet = docsOpened; smaps(); }
    else if (rssEvery && docsOpened - lastQuiet >= rssEvery && !Number.isNaN(rssStart)) {
      lastQuiet = docsOpened;
      const r = await quietRss();
      quietMax = Math.max(quietMax, r);
      smaps();
      const replaced = (c.log.match(/analysis worker replaced/g) ?? []).length;
      console.log(`  quiet point at ${docsOpened} documents: RSS ${r.toFixed(0)} MB (${(r - rssStart) >= 0 ? '+' : ''}${(r - rssStart).toFixed(0)} MB), workers replaced so far: ${replaced}`);
    }
    rssMax = Math.max(rssMax, rss() || 0);
    if (Date.now() > nextReport) { console.log(`  ${progress()}`); nextReport += 30_000; }
    if (process.env.FUZZ_DEBUG) console.error(`doc ${docsOpened} t=${Date.now() - t0}`);
    const base = pick(corpus);
    const [, mutate] = pick(mutations);
    const text = int(4) === 0 ? base : mutate(base);
    if (current && int(3) > 0) { void c.conn.sendNotification('textDocument/didClose', { textDocument: { uri: current.uri } }); open.delete(current.uri); }
    current = c.open(join(dir, `f${docsOpened++ % 3}.py`), text);
    open.add(current.uri);
    if (int(5) === 0) c.setSettings(pick([{ target: { device: pick(['t4', 'h100-80gb', '8xa100-80gb', 'nope', '', '0xh100', '999999999xh100']) } }, { units: 5 }, { diagnostics: { disabled: 'x', severity: [] } }, { target: null }, {}]));
    for (let i = 0, n = int(40); i < n; i++) {
      const r = int(10);
      if (r < 6) {
        const a = int(current.text.length + 1), b = Math.min(current.text.length, a + int(20));
        c.edit(current, a, b, int(3) ? pick(['', 'x', '1', '\n', ' ', '(', ')', pick(JUNK), 'model(', '0'.repeat(int(30))]) : '');
        edits++;
      } else {
        const line = int(current.text.split('\n').length + 2), character = int(80);
        const pos = { line, character };
        const m = pick(['hover', 'lens', 'action', 'bad']);
        if (m === 'hover') await request('textDocument/hover', { textDocument: { uri: current.uri }, position: pos });
        else if (m === 'lens') await request('textDocument/codeLens', { textDocument: { uri: current.uri } });
        else if (m === 'action') await request('textDocument/codeAction', { textDocument: { uri: current.uri }, range: { start: pos, end: pos }, context: { diagnostics: [], only: int(2) ? ['source.fixAll.oomlens'] : undefined } });
        else { invalidAsked++; await request(pick(['textDocument/hover', 'textDocument/codeLens', 'textDocument/codeAction']), pick([null, {}, { textDocument: 1 }, { textDocument: { uri: current.uri }, position: { line: -1 } }]), true); }
      }
    }
    // Every document must get diagnostics for its last version within 15 s.
    const waited = Date.now();
    try {
      await c.diagnostics(current, 15_000);
      // FUZZ_SLOW=dir: keeps each document whose diagnostics took over 5 s (and each that got none), to profile them.
      if (process.env.FUZZ_SLOW && Date.now() - waited > 5000) writeFileSync(join(process.env.FUZZ_SLOW, `slow-${docsOpened}-${Date.now() - waited}ms.py`), current.text);
    } catch (e) {
      if (process.env.FUZZ_SLOW) writeFileSync(join(process.env.FUZZ_SLOW, `unanswered-${docsOpened}.py`), current.text);
      if (!crashed) problems.push({ kind: 'unanswered', what: `no diagnostics within 15 s: ${(e as Error).message.slice(0, 200)}`, text: current.text });
    }
  }
  const rssEnd = crashed ? NaN : await quietRss();
  closing = true;
  if (!crashed) await c.close();
  latencies.sort((a, b) => a - b);

  const count = (k: Problem['kind']) => problems.filter((p) => p.kind === k).length;
  console.log(`fuzz: seed ${SEED}, ${((Date.now() - t0) / 1000).toFixed(0)} s, ${docsOpened} documents, ${edits} edits, ${requests} requests (${invalidAsked} deliberately malformed)`);
  console.log(`  crashes: ${count('crash')}, unanswered after 2 s: ${count('unanswered')}, error responses: ${count('error')}`);
  console.log(`  request latency: p50 ${latencies[Math.floor(latencies.length / 2)] ?? NaN} ms, p99 ${latencies[Math.floor(latencies.length * 0.99)] ?? NaN} ms, max ${latencies[latencies.length - 1] ?? NaN} ms`);
  console.log(`  server RSS, all documents closed and idle: ${rssStart.toFixed(0)} MB after ${WARM_DOCS} documents → ${rssEnd.toFixed(0)} MB at the end (${(rssEnd - rssStart).toFixed(0)} MB); max ${rssMax.toFixed(0)} MB while running`);
  if (rssEvery) console.log(`  RSS at the quiet points every ${rssEvery} documents: at most ${Math.max(quietMax, rssEnd).toFixed(0)} MB (${(Math.max(quietMax, rssEnd) - rssStart).toFixed(0)} MB over the first)`);
  for (const p of problems.slice(0, 10)) console.log(`  ${p.kind}: ${p.what.slice(0, 300)}`);
  // FUZZ_LOG=file: the server's whole log (analysis times, worker replacements), to find what a problem was waiting for.
  if (process.env.FUZZ_LOG) writeFileSync(process.env.FUZZ_LOG, c.log);
  // Shrink each crash/hang document (at most 2 minutes in all) by deleting lines while the analyzer still fails on it.
  // The analyzer runs in a child process (the CLI) with a time limit, so an analyzer that never returns cannot stall the driver.
  const probe = join(dir, 'probe.py');
  const fails = async (t: string) => {
    writeFileSync(probe, t);
    const start = Date.now();
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/oomlens.js'), 'check', probe, '--device', 'a100-80gb', '--format', 'json'], { timeout: 30_000, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    return Date.now() - start > 10_000 || r.error !== undefined || r.signal !== null || (r.status !== 0 && r.status !== 1) || /internal error/.test(r.stdout);
  };
  const written: string[] = [];
  const shrinkUntil = Date.now() + 120_000;
  for (const p of problems.filter((x) => x.kind !== 'error').slice(0, 5)) {
    if (Date.now() > shrinkUntil) break;
    let lines = p.text.split('\n');
    if (!(await fails(lines.join('\n')))) { written.push(`(not reproduced by the CLI: ${p.what.slice(0, 80)})`); continue; }
    for (let chunk = Math.ceil(lines.length / 2); chunk >= 1; chunk = Math.floor(chunk / 2)) {
      for (let i = 0; i < lines.length;) {
        const cand = [...lines.slice(0, i), ...lines.slice(i + chunk)];
        if (Date.now() > shrinkUntil) break;
        if (cand.length && (await fails(cand.join('\n')))) lines = cand; else i += chunk;
      }
    }
    mkdirSync(REPRO, { recursive: true });
    const f = join(REPRO, `seed${SEED}-${written.length}.py`);
    writeFileSync(f, `# fuzz reproduction (seed ${SEED}): ${p.what.replace(/\n/g, ' ').slice(0, 200)}\n${lines.join('\n')}\n`);
    written.push(f);
  }
  for (const w of written) console.log(`  reproduction: ${w}`);
  if (process.env.FUZZ_DEBUG) console.error(c.log.split('\n').filter((l) => /worker/.test(l)).join('\n'));
  process.exit(count('crash') + count('unanswered') > 0 ? 1 : 0);
})();
