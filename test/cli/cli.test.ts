// The CLI as a user runs it: the built bundle (dist/cli.js, made by
// `npm run build`, which `npm test` runs first) in a child process, on copies
// of the five scenarios and the examples. Checks exit codes, text and JSON
// output, and that `fix --unsafe-fixes` rewrites each scenario so its
// diagnostic is gone and the predicted peak falls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const scenarios = join(root, 'test', 'fixtures', 'scenarios');

function run(args: string[], cwd = root) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

interface JsonReport {
  files: {
    path: string; device: string; skipped?: string; unknowns: { reason: string }[];
    diagnostics: { code: string; line: number; message: string; fixes: unknown[] }[];
    models: { name: string; params: number | null; phases: { name: string; peakBytes: number | null; budgetBytes: number; fits: boolean | null }[] }[];
  }[];
}

function json(args: string[], cwd = root): JsonReport {
  const r = run([...args, '--format', 'json'], cwd);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  return JSON.parse(r.out) as JsonReport;
}

const CASES = [
  { dir: 's1_equinox_mistral', device: 'a100-40gb', code: 'OOM101', phase: 'init' },
  { dir: 's2_flax_sharded_dense', device: '8xh100-80gb', code: 'OOM103', phase: 'init' },
  { dir: 's3_haiku_pair_init', device: 'a100-80gb', code: 'OOM104', phase: 'init' },
  { dir: 's4_equinox_mlp_prealloc', device: 't4', code: 'OOM901', phase: 'init' },
  { dir: 's5_hf_llama_edit', device: '2xv100-32gb', code: 'OOM201', phase: 'load' },
];

function worstPeak(r: JsonReport, phase: string): number {
  let peak = 0;
  for (const f of r.files) for (const m of f.models) for (const p of m.phases) if (p.name === phase) peak = Math.max(peak, p.peakBytes ?? 0);
  return peak;
}

for (const c of CASES) {
  test(`check then fix --unsafe-fixes: ${c.dir} on ${c.device} loses ${c.code} and its peak does not rise`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'oomlens-cli-'));
    cpSync(join(scenarios, c.dir), dir, { recursive: true });
    const before = json(['check', dir, '--device', c.device]);
    const codes = before.files.flatMap((f) => f.diagnostics.map((d) => d.code));
    assert.ok(codes.includes(c.code), `expected ${c.code} before the fix, got ${codes.join(', ')}`);
    const peakBefore = worstPeak(before, c.phase);

    const fixed = run(['fix', dir, '--unsafe-fixes', '--device', c.device]);
    assert.match(fixed.out, new RegExp(`fixed ${c.code}`));

    const after = json(['check', dir, '--device', c.device]);
    const codesAfter = after.files.flatMap((f) => f.diagnostics.map((d) => d.code));
    assert.ok(!codesAfter.includes(c.code), `${c.code} still reported after the fix: ${codesAfter.join(', ')}`);
    assert.ok(!codesAfter.includes('OOM001'), `still does not fit after the fix: ${JSON.stringify(after.files[0].models[0]?.phases)}`);
    const peakAfter = worstPeak(after, c.phase);
    assert.ok(peakAfter <= peakBefore, `peak rose from ${peakBefore} to ${peakAfter}`);
  });
}

test('check examples: exit 1, every example file reported with its device, findings as path:line:col CODE', () => {
  const r = run(['check', 'examples']);
  assert.equal(r.code, 1, r.err);
  for (const code of ['OOM001', 'OOM101', 'OOM103', 'OOM104', 'OOM201', 'OOM901']) assert.match(r.out, new RegExp(`:\\d+:\\d+: ${code} `));
  assert.match(r.out, /Units: GB = 10\^9 bytes/);
  const exampleFiles = readdirSync(join(root, 'examples'), { recursive: true }).filter((f) => String(f).endsWith('.py')).length;
  assert.match(r.out, new RegExp(`Found \\d+ findings in \\d+ of ${exampleFiles} files`));
});

test('--units GiB prints binary units and says so', () => {
  const r = run(['check', join(scenarios, 's2_flax_sharded_dense'), '--device', '8xh100-80gb', '--units', 'GiB']);
  assert.match(r.out, /Units: GiB = 2\^30 bytes/);
  assert.match(r.out, /100\.0 GiB/);
});

test('a clean file exits 0; --select and --ignore filter by code prefix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-cli-'));
  writeFileSync(join(dir, 'small.py'), 'import torch.nn as nn\nnet = nn.Sequential(nn.Linear(16, 16), nn.ReLU())\n');
  assert.equal(run(['check', dir]).code, 0);
  const s4 = join(scenarios, 's4_equinox_mlp_prealloc');
  const only = json(['check', s4, '--device', 't4', '--select', 'OOM901']);
  assert.deepEqual(only.files[0].diagnostics.map((d) => d.code), ['OOM901']);
  const none = run(['check', s4, '--device', 't4', '--ignore', 'OOM9']);
  assert.equal(none.code, 0, none.out);
});

test('bad usage and bad input: exit 2 with a clear message, never a stack trace', () => {
  const dev = run(['check', 'examples', '--device', 'quantum-9000']);
  assert.equal(dev.code, 2);
  assert.match(dev.err, /quantum-9000/);
  assert.match(dev.err, /a100-40gb/);
  const missing = run(['check', 'no/such/path.py']);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no\/such\/path\.py/);
  const flag = run(['check', '--bogus']);
  assert.equal(flag.code, 2);
  assert.match(flag.err, /--bogus/);
  for (const r of [dev, missing, flag]) assert.doesNotMatch(r.err, /\n\s+at /);
});

test('binary and half-typed files: a partial result or a clear skip, no crash', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-cli-'));
  writeFileSync(join(dir, 'blob.py'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
  writeFileSync(join(dir, 'half.py'), 'import torch.nn as nn\nlin = nn.Sequential(nn.Linear(10, 10))\nclass X(\n  def f(self\n');
  const r = run(['check', dir, '--format', 'json']);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  const rep = JSON.parse(r.out) as JsonReport;
  const half = rep.files.find((f) => f.path.endsWith('half.py'))!;
  assert.equal(half.models.find((m) => m.name === 'Sequential')?.params, 110);
  const blob = rep.files.find((f) => f.path.endsWith('blob.py'));
  assert.ok(blob, 'the binary file is listed');
  assert.match(blob.skipped ?? blob.unknowns.map((u) => u.reason).join(' '), /binary/);
  assert.ok(half.unknowns.some((u) => /syntax/.test(u.reason)));
});

test('pyproject [tool.oomlens] device applies, and --device wins over it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-cli-'));
  cpSync(join(scenarios, 's4_equinox_mlp_prealloc'), dir, { recursive: true });
  writeFileSync(join(dir, 'pyproject.toml'), '[tool.oomlens]\ndevice = "t4"\n');
  assert.equal(json(['check', dir]).files[0].device, 't4');
  assert.equal(json(['check', dir, '--device', 'h100-80gb']).files[0].device, 'h100-80gb');
  const text = readFileSync(join(dir, 'infer.py'), 'utf8');
  assert.ok(text.length > 0);
});

test('check --run CMD: the script the command runs, with its words and the launcher\'s process count', () => {
  const dir = join(root, 'test', 'fixtures', 'projects', 'launch_torchrun');
  // model.py's Net(vocab, d_model, n_layer, d_ff): 2·vocab·d + n_layer·(2d + 2·d·ff + ff + d).
  const r = json(['check', '--run', 'torchrun --nproc_per_node 2 train.py --d_model 64 --n_layer 2 --vocab-size 100', '--format', 'json'], dir);
  const m = r.files[0].models[0] as { params: number | null; run?: string };
  assert.equal(m.params, 2 * 100 * 64 + 2 * (2 * 64 + 2 * 64 * 256 + 256 + 64));
  assert.equal(m.run, 'args from --run, torchrun ×2');
  const bad = run(['check', '--run', 'echo hello'], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--run: no Python script/);
});

// READMEs say `cd examples/mnist && python main.py ...`: from that sub-folder of a git checkout, --run's script is
// main.py next to where oomlens runs, as the shell would take it, not the workspace root's (which was "no Python
// script of this workspace is run by ..." when the root has no main.py, and the wrong script when it has one).
test('check --run CMD from a sub-folder of the workspace: the script is relative to the current folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-runsub-'));
  mkdirSync(join(dir, '.git'));
  const sub = join(dir, 'examples', 'mnist');
  mkdirSync(sub, { recursive: true });
  const script = (width: string) => [
    'import argparse', 'import torch.nn as nn', '', 'parser = argparse.ArgumentParser()',
    'parser.add_argument("--depth", type=int, default=1)', 'args = parser.parse_args()',
    `model = nn.Sequential(*[nn.Linear(${width}, ${width}) for _ in range(args.depth)]).cuda()`, '',
  ].join('\n');
  writeFileSync(join(sub, 'main.py'), script('64'));
  const expected = 3 * (64 * 64 + 64);
  for (const paths of [[], ['main.py']]) {
    const r = json(['check', '--run', 'python main.py --depth 3', ...paths, '--device', 't4'], sub);
    assert.deepEqual(r.files.map((f) => f.models.map((m) => m.params)), [[expected]], `with PATH ${paths.join(' ') || 'none'}`);
  }
  // A main.py at the root too: the shell runs the one in the current folder.
  writeFileSync(join(dir, 'main.py'), script('32'));
  assert.deepEqual(json(['check', '--run', 'python main.py --depth 3', '--device', 't4'], sub).files[0].models.map((m) => m.params), [expected]);
  // From the root, the path from the root names the same script.
  assert.deepEqual(json(['check', '--run', 'python examples/mnist/main.py --depth 3', '--device', 't4'], dir).files[0].models.map((m) => m.params), [expected]);
});

test('PyTorch on a GPU: the report shows tensors + runtime = what CUDA reports for the card, and the JSON names the runtime parts', () => {
  const r = run(['check', join(root, 'examples', 'gpt2_train', 'train.py'), '--device', 'a100-40gb']);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  const out = r.out.replace(/\s*\n\s*/g, ' ');
  assert.match(out, /less its runtime, CUDA context ≈ 419\.4 MB, cuBLAS workspace 8\.5 MB, cuBLASLt workspace 1\.0 MB/);
  // Against what CUDA reports for an A100 40GB, 42,298,834,944 B = 42.3 GB (devices.ts), with nvidia-smi's
  // 40,960 MiB = 42.9 GB named beside it.
  assert.match(out, /PyTorch can use the A100 40GB's 42\.3 GB usable \(CUDA's total; nvidia-smi shows 42\.9 GB\) less its runtime/);
  assert.match(out, /on the device at the training peak: tensors [\d.]+ GB \+ runtime 429\.0 MB = [\d.]+ GB of 42\.3 GB usable/);
  const j = JSON.parse(run(['check', join(root, 'examples', 'gpt2_train', 'train.py'), '--device', 'a100-40gb', '--format', 'json']).out) as {
    files: { models: { capacity: { capacityBytes: number; nominalBytes: number; capacityKnown: boolean }; runtime?: { capacityBytes: number; parts: { bytes: number }[] }; phases: { budgetBytes: number }[] }[] }[];
  };
  const m = j.files[0].models[0];
  assert.deepEqual(m.capacity, { capacityBytes: 42_298_834_944, nominalBytes: 40960 * 2 ** 20, capacityKnown: true });
  assert.ok(m.runtime, 'runtime present for PyTorch on a GPU');
  assert.equal(m.runtime.capacityBytes, m.capacity.capacityBytes);
  assert.equal(m.runtime.capacityBytes - m.runtime.parts.reduce((s, p) => s + p.bytes, 0), m.phases[0].budgetBytes);
  // JAX on the same card: a pool fraction, no runtime parts.
  const jaxOut = run(['check', join(root, 'examples', 'equinox_late_env', 'predict.py'), '--device', 'a100-40gb']).out;
  assert.doesNotMatch(jaxOut, /on the device at the/);
});

test('devices: each card with its nominal size and the usable figure budgets are taken from', () => {
  const r = run(['devices']);
  assert.equal(r.code, 0, r.err);
  // A100 80GB: nvidia-smi's 81,920 MiB = 80.0 GiB = 85.9 GB; CUDA reports 79.14 GiB (devices.ts).
  assert.match(r.out, /^a100-80gb\s+A100 80GB\s+80\.0 GiB\s+85\.9 GB\s+usable 79\.14 GiB$/m);
  // L4: no public figure for what CUDA reports: the nominal size (23,034 MiB) is what budgets use, and the line says so.
  assert.match(r.out, /^l4\s+L4\s+22\.5 GiB\s+24\.2 GB\s+usable not known \(budgets use the nominal size\)$/m);
});

// A checkout without a project marker (an archive, a copied folder) checked from its top folder: that folder is the
// workspace, so `sys.path.insert(0, "../src")` in scripts/train.py reaches src/ (runa91/barc_release, replayed in
// docs/accuracy.md: "No model found" before).
test('check scripts/x.py from a folder with no project marker: the folder is the workspace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-nomarker-'));
  mkdirSync(join(dir, 'src', 'mypkg'), { recursive: true });
  mkdirSync(join(dir, 'scripts'));
  writeFileSync(join(dir, 'src', 'mypkg', '__init__.py'), '');
  writeFileSync(join(dir, 'src', 'mypkg', 'model.py'), 'import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(1024, 1024)\n');
  writeFileSync(join(dir, 'scripts', 'train.py'), "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '../', 'src'))\nfrom mypkg.model import Net\n\nmodel = Net().cuda()\n");
  const r = run(['check', 'scripts/train.py', '--format', 'json', '--device', 't4'], dir);
  const out = JSON.parse(r.out) as { files: { models: { name: string; params: number }[] }[] };
  assert.deepEqual(out.files[0].models.map((m) => [m.name, m.params]), [['Net', 1024 * 1024 + 1024]]);
});
