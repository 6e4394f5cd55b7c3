// Ground truth: oomlens's predictions against memory that the real frameworks
// allocate running the same programs on CPU (test/truth/README.md).
//
// 1. The trackers' self-checks (exact known answers) run first; the suite
//    fails if a tracker is wrong.
// 2. Every program under test/truth/programs runs unmodified under the
//    harness (test/truth/run.py, venv python from scripts/venv.sh), and
//    `oomlens check --format json` analyses the same file.
// 3. Per phase and per component: measured, oomlens, PyTorch's MemTracker,
//    error. The table goes to test-results/truth.json and stdout.
// 4. Ratchet: test/truth/baseline.json lists what is within ±10% today; a
//    listed entry that is no longer within 10% fails the suite. Refresh with
//    TRUTH_UPDATE_BASELINE=1 after an improvement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const truthDir = join(root, 'test', 'truth');
const programsDir = join(truthDir, 'programs');
const baselinePath = join(truthDir, 'baseline.json');
const cli = join(root, 'dist', 'cli.js');
const TOLERANCE = 0.10;

type Phases = Record<string, { peak: number; byKind: Record<string, number>; segment: string; memTracker: number | null; peakLive?: number; segmentLive?: string }>;
interface Measured {
  framework: 'torch' | 'jax'; phases: Phases; acceleratorLowering?: Record<string, { peak: number; segment: string }>;
  acceleratorKernels?: Record<string, { peak: number; segment: string }>;
}
interface BreakdownItem { label: string; bytes: number }
interface OPhase { name: string; peakBytes: number | null; breakdown: BreakdownItem[] }
interface OModel { name: string; params: number | null; phases: OPhase[] }
interface OReport { files: { path: string; models: OModel[] }[] }

export interface Row {
  program: string; phase: string; component: string;
  measured: number; oomlens: number | null; memTracker: number | null;
  error: number | null; within: boolean; segment: string;
}

function venvPython(): string {
  const r = spawnSync('bash', [join(root, 'scripts', 'venv.sh')], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  assert.equal(r.status, 0, 'scripts/venv.sh failed');
  const lines = r.stdout.trim().split('\n');
  return lines[lines.length - 1];
}

const env = { ...process.env, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1', TF_CPP_MIN_LOG_LEVEL: '3', JAX_PLATFORMS: 'cpu', TOKENIZERS_PARALLELISM: 'false', HF_HUB_OFFLINE: '1' };

function runHarness(py: string, file: string): Promise<{ ok: boolean; out?: Measured; log: string; seconds: number }> {
  return new Promise(resolve => {
    const t0 = Date.now();
    const p = spawn(py, [join(truthDir, 'run.py'), file], { cwd: root, env });
    let log = '';
    p.stdout.on('data', d => { log += d; });
    p.stderr.on('data', d => { log += d; });
    const timer = setTimeout(() => p.kill('SIGKILL'), 240_000);
    p.on('close', code => {
      clearTimeout(timer);
      const seconds = (Date.now() - t0) / 1000;
      const m = log.match(/@@TRUTH@@(.*)/);
      if (code !== 0 || !m) { resolve({ ok: false, log, seconds }); return; }
      resolve({ ok: true, out: JSON.parse(m[1]) as Measured, log, seconds });
    });
  });
}

async function pool<T, R>(items: T[], n: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) { const i = next++; out[i] = await f(items[i]); }
  }));
  return out;
}

/** oomlens breakdown label -> component. */
export function componentOf(label: string): string {
  if (/^gradients/.test(label)) return 'gradients';
  if (/^optimizer state/.test(label)) return 'optimizer';
  if (/^parameters/.test(label)) return 'parameters';
  // generate()'s working sets: the prefill forward, the last decode step (phases/inference.ts transients).
  if (/activations|logits|log-probs|KV cache|kv-cache|forward input|: |^prefill forward|^decode step|^last step without cache/.test(label)) return 'activations+other';
  return 'parameters'; // a module's weights (load/init breakdown: "h (float32)"), buffers
}

/** measured kind -> component. */
function measuredComponent(kind: string): string | null {
  if (kind === 'parameter' || kind === 'buffer') return 'parameters';
  if (kind === 'gradient') return 'gradients';
  if (kind === 'optimizer') return 'optimizer';
  if (kind.startsWith('live before') || kind.startsWith('XLA') || kind.startsWith('outputs')) return null;
  return 'activations+other'; // activations, outputs, backward temporaries, inputs, state dicts
}

function sumBy<T>(xs: T[], key: (x: T) => string | null, val: (x: T) => number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) { const k = key(x); if (k !== null) out[k] = (out[k] ?? 0) + val(x); }
  return out;
}

const rel = (o: number | null, m: number) => (o === null ? null : m === 0 ? (o === 0 ? 0 : 1) : (o - m) / m);

export function compare(program: string, measured: Measured, models: OModel[]): Row[] {
  const rows: Row[] = [];
  // oomlens phase for each measured phase; several models in a file: the largest answer
  const oPhase = (names: string[]) => {
    let best: OPhase | null = null;
    for (const m of models) for (const p of m.phases) {
      if (names.includes(p.name) && (best === null || (p.peakBytes ?? -1) > (best.peakBytes ?? -1))) best = p;
    }
    return best;
  };
  for (const [mname, mp] of Object.entries(measured.phases)) {
    const names = mname === 'pre' ? ['init', 'load'] : [mname];
    const op = oPhase(names);
    const phase = mname === 'pre' ? (op?.name ?? (measured.framework === 'jax' ? 'init' : 'load')) : mname;
    const o = op ? op.peakBytes : null;
    const err = rel(o, mp.peak);
    rows.push({ program, phase, component: 'peak', measured: mp.peak, oomlens: o, memTracker: mp.memTracker,
      error: err, within: err !== null && Math.abs(err) <= TOLERANCE, segment: mp.segment });
    if (measured.framework === 'jax' && mp.peakLive !== undefined && op) {
      // The arrays alive between XLA executions (tracker_jax.py peakLive): an eager init's op-by-op copies
      // (initializer sample and scaled product) without the CPU's Threefry temporaries inside each sampler,
      // which a GPU does not have; oomlens's init models the former and no backend temporaries.
      const e = rel(o, mp.peakLive);
      rows.push({ program, phase, component: 'live arrays', measured: mp.peakLive, oomlens: o, memTracker: null,
        error: e, within: e !== null && Math.abs(e) <= TOLERANCE, segment: mp.segmentLive ?? mp.segment });
    }
    const acc = measured.acceleratorLowering?.[mname];
    if (measured.framework === 'jax' && acc && op) {
      // The same program, XLA's buffers included, with the Threefry lowering JAX registers for every
      // platform but the CPU (tracker_jax.py use_accelerator_threefry_lowering): the CPU's rolled
      // loop temporaries are the only thing it removes.
      const e = rel(o, acc.peak);
      rows.push({ program, phase, component: 'accelerator lowering', measured: acc.peak, oomlens: o, memTracker: null,
        error: e, within: e !== null && Math.abs(e) <= TOLERANCE, segment: acc.segment });
    }
    const kern = measured.acceleratorKernels?.[mname];
    if (measured.framework === 'torch' && kern && op && kern.peak !== mp.peak) {
      // The same program with the kernels a CUDA device runs for dropout (native_dropout: a bool mask) and SDPA
      // with dropout (flash: q, k, v, output, logsumexp), which the CPU replaces with the input's dtype noise and
      // the math path (tracker_torch.py use_accelerator_kernels); oomlens predicts the accelerator's kernels.
      const e = rel(o, kern.peak);
      rows.push({ program, phase, component: 'accelerator kernels', measured: kern.peak, oomlens: o, memTracker: null,
        error: e, within: e !== null && Math.abs(e) <= TOLERANCE, segment: kern.segment });
    }
    if (measured.framework !== 'torch' || !op) continue;
    const mc = sumBy(Object.entries(mp.byKind), ([k]) => measuredComponent(k), ([, v]) => v);
    const oc = sumBy(op.breakdown, b => componentOf(b.label), b => b.bytes);
    for (const comp of ['parameters', 'gradients', 'optimizer', 'activations+other']) {
      const m = mc[comp] ?? 0, ov = oc[comp] ?? 0;
      if (Math.max(m, ov) < 0.01 * mp.peak) continue; // under 1% of the phase on both sides
      const e = rel(ov, m);
      rows.push({ program, phase, component: comp, measured: m, oomlens: ov, memTracker: null,
        error: e, within: e !== null && Math.abs(e) <= TOLERANCE, segment: mp.segment });
    }
  }
  return rows;
}

const mb = (n: number | null) => (n === null ? '—' : (n / 1e6).toFixed(1));
const pct = (e: number | null) => (e === null ? 'no answer' : `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%`);

export function table(rows: Row[], components = false): string {
  const out = ['| program | phase | measured MB | oomlens MB | MemTracker MB | error |', '| --- | --- | ---: | ---: | ---: | ---: |'];
  for (const r of rows) {
    if (!components && r.component !== 'peak') continue;
    const ph = r.component === 'peak' ? r.phase : `${r.phase} · ${r.component}`;
    out.push(`| ${r.program} | ${ph} | ${mb(r.measured)} | ${mb(r.oomlens)} | ${mb(r.memTracker)} | ${pct(r.error)}${r.within ? ' ✓' : ''} |`);
  }
  return out.join('\n');
}

test('ground truth: tracker self-checks, then oomlens against the measured peaks', async t => {
  const py = venvPython();

  await t.test('tracker self-checks (exact known answers)', () => {
    const r = spawnSync(py, [join(truthDir, 'selfcheck.py')], { cwd: root, env, encoding: 'utf8', timeout: 300_000 });
    process.stdout.write(r.stdout);
    assert.equal(r.status, 0, `a tracker self-check failed: the measurements cannot be trusted\n${r.stdout}\n${r.stderr}`);
  });

  const programs = readdirSync(programsDir).filter(f => f.endsWith('.py')).sort();
  assert.ok(programs.length >= 20, 'at least 20 programs');
  const files = programs.map(p => join(programsDir, p));

  const oom = spawnSync(process.execPath, [cli, 'check', ...files, '--format', 'json', '--device', 'a100-80gb'], { cwd: root, encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 28 });
  assert.ok(oom.status === 0 || oom.status === 1, `oomlens check failed: ${oom.stderr}`);
  const report = JSON.parse(oom.stdout) as OReport;

  const results = await pool(files, 2, f => runHarness(py, f));
  const rows: Row[] = [];
  const failedRuns: string[] = [];
  programs.forEach((p, i) => {
    const r = results[i];
    const name = p.replace(/\.py$/, '');
    if (!r.ok || !r.out) { failedRuns.push(`${name}:\n${r.log.slice(-3000)}`); return; }
    const file = report.files.find(f => f.path.endsWith(`/${p}`) || f.path === p);
    rows.push(...compare(name, r.out, file?.models ?? []));
  });

  const within = rows.filter(r => r.within).map(r => `${r.program}:${r.phase}:${r.component}`);
  mkdirSync(join(root, 'test-results'), { recursive: true });
  writeFileSync(join(root, 'test-results', 'truth.json'), JSON.stringify({
    tolerance: TOLERANCE, device: 'a100-80gb', rows,
    seconds: Object.fromEntries(programs.map((p, i) => [p, results[i].seconds])),
  }, null, 2) + '\n');
  const peaks = rows.filter(r => r.component === 'peak');
  console.log(`\nground truth (${peaks.filter(r => r.within).length}/${peaks.length} phase peaks within ±${TOLERANCE * 100}%):\n` + table(rows));

  await t.test('every program runs under the harness', () => {
    assert.deepEqual(failedRuns, [], failedRuns.join('\n\n'));
  });

  await t.test('no regression against test/truth/baseline.json', () => {
    if (process.env.TRUTH_UPDATE_BASELINE === '1' || !existsSync(baselinePath)) {
      writeFileSync(baselinePath, JSON.stringify({ tolerance: TOLERANCE, within: within.sort() }, null, 2) + '\n');
      return;
    }
    const base = JSON.parse(readFileSync(baselinePath, 'utf8')) as { within: string[] };
    const now = new Set(within);
    const regressed = base.within.filter(k => !now.has(k));
    const detail = regressed.map(k => {
      const [program, phase, component] = k.split(':');
      const r = rows.find(x => x.program === program && x.phase === phase && x.component === component);
      return r ? `${k}: measured ${mb(r.measured)} MB, oomlens ${mb(r.oomlens)} MB (${pct(r.error)})` : `${k}: no longer reported`;
    });
    assert.deepEqual(detail, [], `within ±10% before, not now:\n${detail.join('\n')}`);
    const gained = within.filter(k => !base.within.includes(k));
    if (gained.length) console.log(`newly within ±10% (run with TRUTH_UPDATE_BASELINE=1 to ratchet): ${gained.join(', ')}`);
  });
});
