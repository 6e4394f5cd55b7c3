// Scoring of the ground truth (test/truth/README.md): oomlens's report against the harness's measurement of
// the same program, phase by phase and component by component, and the table of the result. Used by
// truth.test.ts (which runs the programs) and score.test.ts (which checks the scoring itself).
export const TOLERANCE = 0.10;
export const DEVICE = 'a100-80gb';
export type Phases = Record<string, { peak: number; byKind: Record<string, number>; segment: string; memTracker: number | null; peakLive?: number; segmentLive?: string }>;
export interface Measured {
  framework: 'torch' | 'jax'; phases: Phases; acceleratorLowering?: Record<string, { peak: number; segment: string }>;
  acceleratorKernels?: Record<string, { peak: number; segment: string; byKind: Record<string, number> }>;
  /** tracker_torch.KERNEL_SWAPS of the CPU run: how many dropout / SDPA-with-dropout calls and optimizer steps (only where the step could be the peak) have a CUDA kernel that keeps other tensors. */
  kernelSwaps?: Record<string, number>;
}
export interface BreakdownItem { label: string; bytes: number }
export interface OPhase { name: string; peakBytes: number | null; peakIsLowerBound?: boolean; breakdown: BreakdownItem[] }
export interface OModel { name: string; params: number | null; phases: OPhase[] }
export interface OReport { files: { path: string; models: OModel[] }[] }

/** Which run a row is scored against: the CPU's own, or the one with the accelerator's behaviour swapped in. */
export type Basis = 'cpu' | 'accelerator lowering' | 'accelerator kernels';

export interface Row {
  program: string; phase: string; component: string;
  /** the scored measurement: the accelerator run where the harness made one (`basis`), else the CPU run */
  measured: number; oomlens: number | null; memTracker: number | null;
  /** oomlens reports the phase as a lower bound ("≥"): an unknown part is not counted */
  lowerBound?: boolean;
  error: number | null; within: boolean; segment: string;
  basis: Basis;
  /** the CPU run's figure for the same phase and component, its error and whether that is within tolerance */
  cpu: number; cpuError: number | null; cpuWithin: boolean;
  /** why the scored figure differs from the CPU's (empty where they are equal) */
  why: string;
}

/** Devices a program is written for: `--xla_force_host_platform_device_count=N` on its `# truth-harness:` line (run.py). */
export function harnessDevices(src: string): number {
  const first = src.split('\n', 1)[0];
  if (!/^#\s*truth-harness:/.test(first)) return 1;
  const m = first.match(/--xla_force_host_platform_device_count=(\d+)/);
  return m ? Number(m[1]) : 1;
}

/** oomlens breakdown label -> component. */
export function componentOf(label: string): string {
  if (/^gradients/.test(label)) return 'gradients';
  if (/^optimizer state/.test(label)) return 'optimizer';
  if (/^optimizer step temporaries/.test(label)) return 'activations+other'; // measured: the step segment's own tensors
  if (/^parameters/.test(label)) return 'parameters';
  // A model built from a config holds its head's own weight until tie_weights() replaces it: a registered
  // parameter of the head at that instant (the tracker counts a storage as a parameter from its registration).
  if (/the head's own weight before tie_weights\(\)/.test(label)) return 'parameters';
  // generate()'s working sets: the prefill forward, the last decode step (phases/inference.ts transients).
  if (/activations|logits|log-probs|KV cache|kv-cache|forward input|: |^prefill forward|^decode step|^last step without cache/.test(label)) return 'activations+other';
  return 'parameters'; // a module's weights (load/init breakdown: "h (float32)"), buffers
}

/** oomlens breakdown entries that are XLA temporaries inside one jitted execution (shared/src/threefry.ts). */
const XLA_INSIDE = /^Threefry random bits for |^whole random draws on every device before the reshard/;

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
  // The run with the accelerator's behaviour: every JAX program has one (run.py: the Threefry lowering of GPU
  // and TPU), a PyTorch program where its CPU run called a kernel CUDA replaces (tracker_torch.KERNEL_SWAPS).
  const jax = measured.framework === 'jax';
  const basis: Basis = jax ? 'accelerator lowering' : 'accelerator kernels';
  const swaps = Object.entries(measured.kernelSwaps ?? {}).filter(([, n]) => n > 0).map(([k]) => k);
  const needsAccel = jax || swaps.length > 0;
  const accel = jax ? measured.acceleratorLowering : measured.acceleratorKernels;
  const mk = (r: Omit<Row, 'error' | 'within' | 'cpuError' | 'cpuWithin'>): Row => {
    const e = rel(r.oomlens, r.measured), ce = rel(r.oomlens, r.cpu);
    return { ...r, error: e, within: e !== null && Math.abs(e) <= TOLERANCE, cpuError: ce, cpuWithin: ce !== null && Math.abs(ce) <= TOLERANCE };
  };
  for (const [mname, mp] of Object.entries(measured.phases)) {
    const names = mname === 'pre' ? ['init', 'load'] : [mname];
    const op = oPhase(names);
    const phase = mname === 'pre' ? (op?.name ?? (jax ? 'init' : 'load')) : mname;
    const o = op ? op.peakBytes : null;
    const acc = accel?.[mname];
    if (needsAccel && !acc) {
      // Never scored against the CPU figure in its place: that would pass a row because a run is missing.
      throw new Error(`${program}: phase ${mname} has no ${basis} measurement (${jax ? 'every JAX program is run twice' : `the CPU run called ${swaps.join(', ')}`}); the second run is missing or lost the phase`);
    }
    const scored = acc ? { peak: acc.peak, segment: acc.segment } : { peak: mp.peak, segment: mp.segment };
    const why = !acc || acc.peak === mp.peak ? ''
      : jax ? `without the XLA temporaries of the CPU's rolled Threefry loop: ${mb(mp.peak - acc.peak)} MB less`
        : `${swaps.map((k) => (k === 'dropout' ? "native_dropout's bool mask for the CPU's float noise" : k === 'optimizer_foreach' ? "the multi-tensor (foreach) optimizer step for the CPU's single-tensor one" : 'flash SDPA for the math path')).join(' and ')}: ${mb(Math.abs(mp.peak - acc.peak))} MB ${acc.peak < mp.peak ? 'less' : 'more'}`;
    rows.push(mk({ program, phase, component: 'peak', measured: scored.peak, cpu: mp.peak, oomlens: o, lowerBound: op?.peakIsLowerBound || undefined, memTracker: mp.memTracker,
      segment: scored.segment, basis: acc ? basis : 'cpu', why }));
    if (jax && mp.peakLive !== undefined && op) {
      // The arrays alive between XLA executions (tracker_jax.py peakLive): an eager init's op-by-op copies
      // (initializer sample and scaled product) without the XLA temporaries inside each execution; the
      // same on every backend, so it is its own basis.
      // oomlens's own XLA temporaries inside one execution (the Threefry bits of a non-partitionable draw, the
      // whole draws an Explicit-axes reshard leaves) are not arrays alive between executions: left out here.
      const inside = sumBy(op.breakdown, b => (XLA_INSIDE.test(b.label) ? 'inside' : 'between'), b => b.bytes).inside ?? 0;
      rows.push(mk({ program, phase, component: 'live arrays', measured: mp.peakLive, cpu: mp.peakLive, oomlens: o === null ? null : o - inside, memTracker: null,
        segment: mp.segmentLive ?? mp.segment, basis: 'cpu', why: '' }));
    }
    if (jax || !op) continue;
    // Components at the scored run's peak (its live set by kind), the CPU run's beside them.
    const kinds = (acc as { byKind?: Record<string, number> } | undefined)?.byKind ?? mp.byKind;
    const mc = sumBy(Object.entries(kinds), ([k]) => measuredComponent(k), ([, v]) => v);
    const cc = sumBy(Object.entries(mp.byKind), ([k]) => measuredComponent(k), ([, v]) => v);
    const oc = sumBy(op.breakdown, b => componentOf(b.label), b => b.bytes);
    for (const comp of ['parameters', 'gradients', 'optimizer', 'activations+other']) {
      const m = mc[comp] ?? 0, c = cc[comp] ?? 0, ov = oc[comp] ?? 0;
      if (Math.max(m, c, ov) < 0.01 * scored.peak) continue; // under 1% of the phase on every side
      rows.push(mk({ program, phase, component: comp, measured: m, cpu: c, oomlens: ov, memTracker: null,
        segment: scored.segment, basis: acc ? basis : 'cpu', why: m === c ? '' : why }));
    }
  }
  return rows;
}

export const mb = (n: number | null) => (n === null ? '—' : (n / 1e6).toFixed(1));
export const pct = (e: number | null) => (e === null ? 'no answer' : `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%`);

const basisText: Record<Basis, string> = {
  cpu: 'CPU (no kernel differs)',
  'accelerator lowering': 'GPU/TPU Threefry lowering',
  'accelerator kernels': 'CUDA dropout/SDPA/optimizer kernels',
};

export function table(rows: Row[], components = false): string {
  const out = ['| program | phase | measured MB (scored) | CPU MB | oomlens MB | MemTracker MB | error | error vs CPU | scored against |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |'];
  for (const r of rows) {
    if (!components && r.component !== 'peak') continue;
    const ph = r.component === 'peak' ? r.phase : `${r.phase} · ${r.component}`;
    const against = r.basis === 'cpu' ? basisText.cpu : `${basisText[r.basis]}${r.why ? `: ${r.why}` : ' (same as the CPU)'}`;
    out.push(`| ${r.program} | ${ph} | ${mb(r.measured)} | ${mb(r.cpu)} | ${r.lowerBound ? '≥ ' : ''}${mb(r.oomlens)} | ${mb(r.memTracker)} | ${pct(r.error)}${r.within ? ' ✓' : ''} | ${pct(r.cpuError)}${r.cpuWithin ? ' ✓' : ''} | ${against} |`);
  }
  return out.join('\n');
}
