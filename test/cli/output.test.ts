// What a user of the CLI sees: the demo's text fits 100 columns and never
// prints a made-up "0 B"; the summary and exit status tell the truth about
// missing paths, empty folders, binary files, files without a model, unknown
// rule codes; SARIF validates against the official 2.1.0 schema (vendored
// from the npm package @microsoft/jest-sarif, lib/schemas/) and GitHub
// annotations follow the workflow-command syntax.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';

const root = join(__dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

function run(args: string[], cwd = root) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'oomlens-out-'));

test('npm run demo: its command exits 0 and every line is at most 100 columns, with no "0 B"', () => {
  const demo = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.demo;
  // The build step is `npm test`'s own first step; run what follows it.
  const command = demo.split('&&').slice(1).join('&&').trim();
  assert.match(command, /oomlens/);
  const out = execSync(command, { cwd: root, encoding: 'utf8' });
  const lines = out.split('\n');
  assert.ok(lines.length > 20, out);
  const long = lines.filter((l) => [...l].length > 100);
  assert.deepEqual(long, [], 'lines over 100 columns');
  assert.doesNotMatch(out, /(^|[^\d.])0 B\b/, 'an unknown size printed as 0 B');
  // One block per model, a table with a verdict column; multipliers explained.
  assert.match(out, /phase +peak\/device +budget +verdict/);
  assert.doesNotMatch(out, /\) ×\d+/, 'a bare ×N multiplier');
  // "fits on" only for a phase that does not fit.
  for (const l of lines.filter((x) => /fits on:/.test(x))) assert.match(l, /^\s+(init|load|inference|training) fits on:/);
  assert.ok(!/fits on: 1× T4/.test(out), 'fits on listed for a model that fits');
  assert.match(out, /Found \d+ findings in \d+ of \d+ files/);
});

test('a phase with an unknown size prints "≥ X" and "? unknown", never a bare figure as if known', () => {
  const r = run(['check', join(root, 'examples', 'hf_mistral_load')]);
  assert.match(r.out, /inference +≥ [\d.]+ GB +[\d.]+ GB +\? unknown/);
});

test('exit status and summary tell the truth', () => {
  const missing = run(['check', 'no/such/dir']);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no\/such\/dir: no such file or directory/);
  assert.doesNotMatch(missing.out, /All checks passed/);

  const empty = tmp();
  const e = run(['check', empty]);
  assert.equal(e.code, 2);
  assert.match(e.err, /nothing analysed: no Python files or notebooks under/);
  assert.doesNotMatch(e.out, /All checks passed/);

  const bin = tmp();
  writeFileSync(join(bin, 'blob.py'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
  const b = run(['check', bin]);
  assert.equal(b.code, 2);
  assert.match(b.out, /skipped: binary file/);
  assert.match(b.out, /Nothing analysed: 1 file skipped/);

  const plain = tmp();
  writeFileSync(join(plain, 'util.py'), 'def add(a, b):\n    return a + b\n');
  const p = run(['check', plain]);
  assert.equal(p.code, 0);
  assert.match(p.out, /No model found: 1 file analysed, 0 models found; nothing to check\./);
  assert.doesNotMatch(p.out, /All checks passed/);

  // A training step no reported model accounts for: the step is not sized, so nothing "passed".
  const step = tmp();
  writeFileSync(join(step, 'train.py'), 'import torch\nimport torch.nn as nn\na = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8)).cuda()\nb = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8)).cuda()\np = nn.Parameter(torch.zeros(8, device="cuda"))\nopt = torch.optim.AdamW([p])\nfor _ in range(3):\n    with torch.no_grad():\n        h = a(torch.randn(2, 8, device="cuda")) + b(torch.randn(2, 8, device="cuda"))\n    (h * p).sum().backward()\n    opt.step()\n');
  const st = run(['check', step]);
  assert.match(st.out, /a training step is not sized/);
  assert.doesNotMatch(st.out, /All checks passed/);

  const sel = run(['check', 'examples', '--select', 'OOM999']);
  assert.equal(sel.code, 2);
  assert.match(sel.err, /--select: unknown rule code OOM999; known codes: OOM001, /);
  assert.equal(run(['check', 'examples', '--ignore', 'XYZ']).code, 2);
  // A prefix of real codes is fine.
  assert.equal(run(['check', 'examples', '--select', 'OOM9']).code, 1);

  const model = tmp();
  writeFileSync(join(model, 'net.py'), 'import torch.nn as nn\nnet = nn.Sequential(nn.Linear(16, 16), nn.ReLU())\n');
  const ok = run(['check', model]);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /All checks passed: 1 file analysed, 1 model found, no findings\./);
  // A missing path next to a good one: exit 2 and no "All checks passed".
  const mixed = run(['check', model, join(model, 'nope.py')]);
  assert.equal(mixed.code, 2);
  assert.doesNotMatch(mixed.out, /All checks passed/);
  assert.match(mixed.out, /1 path error/);

  const zero = run(['check', 'examples', '--exit-zero']);
  assert.equal(zero.code, 0);
  assert.match(zero.out, /Found \d+ findings/);
});

test('--format sarif validates against the SARIF 2.1.0 schema, with rules, help URIs and fixes', () => {
  const r = run(['check', 'examples', '--format', 'sarif']);
  assert.equal(r.code, 1, r.err);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const sarif = JSON.parse(r.out) as any;
  const schema = JSON.parse(readFileSync(join(__dirname, 'schemas', 'sarif-2.1.0-rtm.5.json'), 'utf8'));
  // The published schema's `language` pattern is not valid with the u flag; validate as JSON Schema draft 4 (no u).
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  const validate = ajv.compile(schema);
  const log: unknown = sarif;
  assert.ok(validate(log), JSON.stringify(validate.errors?.slice(0, 5), null, 2));
  // Not vacuous: a broken log fails the same validator.
  assert.equal(validate({ ...sarif, runs: [{ results: [] }] }), false);

  const json = JSON.parse(run(['check', 'examples', '--format', 'json']).out) as { files: { path: string; diagnostics: { code: string; line: number; column: number; fixes: unknown[] }[] }[] };
  const diags = json.files.flatMap((f) => f.diagnostics.map((d) => ({ ...d, path: f.path })));
  const run0 = sarif.runs[0];
  assert.equal(run0.results.length, diags.length);
  for (const rule of run0.tool.driver.rules) assert.match(rule.helpUri, /^https:\/\/.+\/docs\/rules\/[a-z0-9-]+\.md$/);
  const ruleIds = run0.tool.driver.rules.map((x: { id: string }) => x.id);
  for (const [i, res] of run0.results.entries()) {
    const d = diags[i];
    assert.equal(res.ruleId, d.code);
    assert.equal(ruleIds[res.ruleIndex], d.code);
    const loc = res.locations[0].physicalLocation;
    assert.equal(loc.artifactLocation.uri, d.path);
    assert.equal(loc.region.startLine, d.line);
    assert.equal(loc.region.startColumn, d.column);
    assert.equal((res.fixes ?? []).length, d.fixes.length);
  }
  const fixed = run0.results.find((x: { ruleId: string }) => x.ruleId === 'OOM201');
  assert.match(fixed.fixes[0].artifactChanges[0].replacements[0].insertedContent.text, /torch_dtype=torch\.float16/);
});

test('--format github prints one workflow annotation per finding, escaped', () => {
  const r = run(['check', 'examples', '--format', 'github']);
  assert.equal(r.code, 1, r.err);
  const lines = r.out.trim().split('\n');
  const json = JSON.parse(run(['check', 'examples', '--format', 'json']).out) as { files: { diagnostics: unknown[] }[] };
  assert.equal(lines.length, json.files.reduce((n, f) => n + f.diagnostics.length, 0));
  for (const l of lines) assert.match(l, /^::(error|warning|notice) file=[^,:]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=OOM\d{3} [a-z0-9-]+::[^\n]+$/);
  assert.ok(lines.some((l) => /^::warning file=examples\/hf_mistral_load\/generate\.py,line=8,col=9,.*title=OOM201 /.test(l)));
});

test('notebooks: code cells analysed in order, findings at cell-relative positions', () => {
  const dir = tmp();
  mkdirSync(join(dir, 'nb'));
  const cell = (type: string, src: string[]) => ({ cell_type: type, metadata: {}, source: src, ...(type === 'code' ? { outputs: [], execution_count: null } : {}) });
  writeFileSync(join(dir, 'nb', 'load.ipynb'), JSON.stringify({
    nbformat: 4, nbformat_minor: 5, metadata: {},
    cells: [
      cell('markdown', ['# Load Mistral\n', 'in full precision']),
      cell('code', ['from transformers import AutoModelForCausalLM\n']),
      cell('code', ['%pip install transformers\n', '\n', 'model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")\n']),
    ],
  }));
  const r = run(['check', dir, '--device', 'a100-40gb']);
  assert.equal(r.code, 1, r.out + r.err);
  // The finding is in the third cell (the second code cell), on its third line.
  assert.match(r.out, /nb\/load\.ipynb:cell 3:3:\d+: OOM201 /);
  const j = JSON.parse(run(['check', dir, '--device', 'a100-40gb', '--format', 'json']).out);
  const d = j.files[0].diagnostics.find((x: { code: string }) => x.code === 'OOM201');
  assert.deepEqual({ cell: d.cell, line: d.line }, { cell: 3, line: 3 });
  assert.equal(j.files[0].models[0].name, 'mistralai/Mistral-7B-v0.1');
});

test('a model kept on the host only is listed with its size, no verdict, in text and JSON', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'host.py'), 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("gpt2", device_map="cpu")\n');
  const text = run(['check', join(dir, 'host.py'), '--device', 'a100-80gb']);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /gpt2 · transformers · line 2 · 124,439,808 parameters = 497\.8 MB on the host, not on the\s+accelerator/);
  assert.doesNotMatch(text.out, /fits/);
  assert.match(text.out, /No device model: .*1 model kept on the host only/s);
  const json = JSON.parse(run(['check', join(dir, 'host.py'), '--device', 'a100-80gb', '--format', 'json']).out) as { files: { models: unknown[]; host?: { name: string; bytes: number; line: number }[] }[] };
  assert.equal(json.files[0].models.length, 0);
  assert.deepEqual(json.files[0].host?.map((h) => [h.name, h.bytes, h.line]), [['gpt2', 124439808 * 4, 2]]);
});

// A batch read from sys.argv with no launch command: the inference phase is "≥ X" because its activations are not
// sized. The JSON listed only the model's own unknowns, so CI and the editor got a "≥" with no reason while the text
// named three (and said "--format json lists them").
test('--format json lists every unknown the text shows, and each phase carries its own', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'infer.py'), [
    'import sys', 'import torch', 'import torch.nn as nn', '',
    'model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).cuda()',
    'x = torch.randn(int(sys.argv[1]), 1024, device="cuda")', 'with torch.no_grad():', '    y = model(x)', '',
  ].join('\n'));
  const text = run(['check', join(dir, 'infer.py'), '--device', 't4']);
  assert.equal(text.code, 0, text.err);
  const shown = [...text.out.replace(/\n {6}(?! )/g, ' ').matchAll(/^ +unknown: (.+?): (.+?)(?: \(line (\d+)\))?$/gm)]
    .map(([, what, reason, line]) => `${what}|${reason}|${line ?? null}`);
  assert.ok(shown.length >= 2, text.out);
  type U = { what: string; reason: string; line: number | null };
  const j = JSON.parse(run(['check', join(dir, 'infer.py'), '--device', 't4', '--format', 'json']).out) as {
    files: { models: { unknowns: U[]; phases: { name: string; peakIsLowerBound: boolean; unknowns: U[] }[] }[] }[];
  };
  const m = j.files[0].models[0];
  const key = (u: U) => `${u.what}|${u.reason}|${u.line}`;
  assert.deepEqual(m.unknowns.map(key), shown);
  const inference = m.phases.find((p) => p.name === 'inference');
  assert.ok(inference?.peakIsLowerBound);
  assert.ok(inference.unknowns.length > 0, 'a "≥" phase with no reason');
  for (const p of m.phases) {
    assert.equal(p.unknowns.length > 0, p.peakIsLowerBound, `${p.name}: unknowns iff a lower bound`);
    for (const u of p.unknowns) assert.ok(m.unknowns.some((x) => key(x) === key(u)), `${p.name}'s ${key(u)} missing from the model's`);
  }
});
