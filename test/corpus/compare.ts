/**
 * The corpus comparison shared by `npm run corpus` (scripts/corpus.ts) and
 * test/corpus/corpus.test.ts: loads the manifest, obtains the PyTorch ground
 * truth by running torch_truth.py under a real PyTorch (one process for all
 * torch entries), analyses every corpus file once, and classifies each model
 * as exact, unknown (with the analyzer's reasons), missing or wrong. Rule
 * findings of the alarm families (OOM1xx, OOM2xx, OOM9xx) that fire on a file
 * without being listed in `expectFindings` are collected as false alarms.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

export const CORPUS_DIR = __dirname;
export const DEVICE = 'a100-80gb';

export interface ManifestEntry {
  file: string;
  name: string;
  framework: 'torch' | 'flax' | 'haiku' | 'equinox';
  construct: string;
  setup?: string;
  index?: number;
  truth: { params: number | null; source: string };
  expectFindings: string[];
}

export interface Manifest { description?: string; models: ManifestEntry[] }

export function loadManifest(): Manifest {
  return JSON.parse(readFileSync(join(CORPUS_DIR, 'manifest.json'), 'utf8')) as Manifest;
}

/** The key that names one corpus model everywhere (report, baseline, torch truth). */
export function entryKey(e: ManifestEntry): string {
  return `${e.file}::${e.name}::${e.index ?? 0}`;
}

export interface TorchTruthEntry { params?: number; buffers?: number; class?: string; devices?: string[]; error?: string }
export interface TorchTruth { ok: boolean; python?: string; torch?: string; error?: string; entries: Record<string, TorchTruthEntry> }

/**
 * Finds a Python with PyTorch: $OOMLENS_PYTHON first, then Debian's
 * /usr/bin/python3 (where python3-torch installs), then python3 on PATH
 * (which may be a pyenv shim without torch).
 */
export function pythonWithTorch(): { exe?: string; tried: string[] } {
  const candidates = [process.env.OOMLENS_PYTHON, '/usr/bin/python3', 'python3'].filter((c): c is string => !!c);
  const tried: string[] = [];
  for (const exe of candidates) {
    const r = spawnSync(exe, ['-c', 'import torch'], { encoding: 'utf8' });
    tried.push(`${exe}: ${r.error ? r.error.message : r.status === 0 ? 'ok' : (r.stderr || '').trim().split('\n').pop()}`);
    if (!r.error && r.status === 0) return { exe, tried };
  }
  return { tried };
}

/** Runs torch_truth.py once; never throws, reports why it failed instead. */
export function computeTorchTruth(): TorchTruth {
  const { exe, tried } = pythonWithTorch();
  if (!exe) {
    return { ok: false, entries: {}, error: `no python3 with PyTorch found (install Debian python3-torch python3-torchvision, or set OOMLENS_PYTHON); tried ${tried.join('; ')}` };
  }
  const r = spawnSync(exe, [join(CORPUS_DIR, 'torch_truth.py'), join(CORPUS_DIR, 'manifest.json')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) {
    return { ok: false, entries: {}, error: `torch_truth.py failed (${exe}): ${r.error?.message ?? r.stderr}` };
  }
  const out = JSON.parse(r.stdout) as { torch: string; python: string; entries: Record<string, TorchTruthEntry> };
  return { ok: true, python: exe, torch: out.torch, entries: out.entries };
}

export type Status = 'exact' | 'unknown' | 'missing' | 'wrong' | 'no-truth';

export interface Row {
  key: string;
  entry: ManifestEntry;
  expected: number | null;
  predicted: number | null;
  status: Status;
  reasons: string[];
  ms: number;
  /** Buffer elements (BatchNorm running stats, registered masks and caches), kept apart from parameters. */
  expectedBuffers: number | null;
  predictedBuffers: number | null;
}

export interface FalseAlarm { file: string; code: string; severity: string; message: string }

export interface CorpusResult {
  rows: Row[];
  falseAlarms: FalseAlarm[];
  fileMs: Record<string, number>;
  torch: TorchTruth;
}

/** Rule families that must stay quiet on carefully written code (issue 4). */
const ALARM = /^OOM[129]\d\d$/;

export async function runCorpus(torch: TorchTruth = computeTorchTruth()): Promise<CorpusResult> {
  const manifest = loadManifest();
  const byFile = new Map<string, ManifestEntry[]>();
  for (const e of manifest.models) {
    const list = byFile.get(e.file) ?? [];
    list.push(e);
    byFile.set(e.file, list);
  }
  const rows: Row[] = [];
  const falseAlarms: FalseAlarm[] = [];
  const fileMs: Record<string, number> = {};
  // Times are steady-state, as in the long-lived language server where an edit re-analyses the file:
  // one untimed pass over the corpus first pays the one-time start-up (loading the tree-sitter
  // grammar, building the catalogues, JIT-compiling the interpreter), which would otherwise be
  // charged to whichever file comes first.
  for (const file of byFile.keys()) {
    const path = join(CORPUS_DIR, file);
    await analyze(readFileSync(path, 'utf8'), { path, device: DEVICE });
  }
  for (const [file, entries] of byFile) {
    const path = join(CORPUS_DIR, file);
    const text = readFileSync(path, 'utf8');
    // Files with PyTorch models are analysed as if pinned to the torch that computes their truth, so
    // version-dependent code (nanoGPT's `hasattr(F, "scaled_dot_product_attention")`) takes the same branch.
    const versions = torch.ok && torch.torch && entries.some((e) => e.framework === 'torch') ? { torch: torch.torch } : undefined;
    const t0 = Date.now();
    const result = await analyze(text, { path, device: DEVICE, versions });
    const ms = Date.now() - t0;
    fileMs[file] = ms;
    const expected = new Set(entries.flatMap((e) => e.expectFindings));
    for (const f of result.findings) {
      if (ALARM.test(f.code) && !expected.has(f.code)) falseAlarms.push({ file, code: f.code, severity: f.severity, message: f.message });
    }
    for (const entry of entries) {
      const key = entryKey(entry);
      let truth: number | null = entry.truth.params;
      let truthBuffers: number | null = null;
      const reasons: string[] = [];
      if (entry.framework === 'torch') {
        const t = torch.entries[key];
        truth = t?.params ?? null;
        truthBuffers = t?.buffers ?? null;
        if (t?.error) reasons.push(`torch truth failed: ${t.error}`);
        else if (!t) reasons.push(`torch truth unavailable: ${torch.error ?? 'entry not computed'}`);
      }
      const candidates = result.models.filter((m) => m.facts.name === entry.name);
      const model = candidates[entry.index ?? 0];
      const predicted = model ? model.facts.paramCount : null;
      const predictedBuffers = model && model.facts.buffers.every((b) => b.shape.every(Number.isFinite))
        ? model.facts.buffers.reduce((n, b) => n + b.shape.reduce((x, y) => x * y, 1), 0)
        : null;
      let status: Status;
      if (truth === null) status = 'no-truth';
      else if (!model) {
        status = 'missing';
        reasons.push(`no model named ${entry.name} reported (got: ${result.models.map((m) => m.facts.name).join(', ') || 'none'})`);
        for (const u of result.unknowns) reasons.push(`${u.what}: ${u.reason}`);
      } else if (predicted === null) {
        status = 'unknown';
        for (const u of model.facts.unknowns) reasons.push(`${u.what}: ${u.reason}`);
        if (model.facts.unknowns.length === 0) reasons.push('paramCount is null but no unknown names the construct');
      } else status = predicted === truth ? 'exact' : 'wrong';
      // The same construct inside a loop reports the same unknown once per iteration; keep each once.
      rows.push({ key, entry, expected: truth, predicted, status, reasons: [...new Set(reasons)], ms, expectedBuffers: truthBuffers, predictedBuffers });
    }
  }
  return { rows, falseAlarms, fileMs, torch };
}

export interface Totals { total: number; exact: number; unknown: number; missing: number; wrong: number; noTruth: number; exactShare: number; slowestFile: string; slowestMs: number }

export function totals(r: CorpusResult): Totals {
  const count = (s: Status) => r.rows.filter((x) => x.status === s).length;
  let slowestFile = '';
  let slowestMs = -1;
  for (const [f, ms] of Object.entries(r.fileMs)) if (ms > slowestMs) { slowestFile = f; slowestMs = ms; }
  const total = r.rows.length;
  const exact = count('exact');
  const noTruth = count('no-truth');
  // The share is over the models that have a truth to be exact against (issue 4's bar).
  const withTruth = total - noTruth;
  return { total, exact, unknown: count('unknown'), missing: count('missing'), wrong: count('wrong'), noTruth, exactShare: withTruth ? exact / withTruth : 0, slowestFile, slowestMs };
}

/** Keys listed as exact in baseline.json: models that must never regress. */
export function loadBaseline(): string[] {
  try {
    return (JSON.parse(readFileSync(join(CORPUS_DIR, 'baseline.json'), 'utf8')) as { exact: string[] }).exact;
  } catch {
    return [];
  }
}
