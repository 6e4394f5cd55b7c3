// Inputs that used to crash the analyzer (V8 out-of-memory, stack overflow)
// or lose the whole analysis as an "internal error": each must give a
// report whose unknowns name the limit that was hit, and the model defined
// after the troublesome part must still be found and counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const FIX = join(__dirname, '../fixtures/robust');
// nn.Sequential(nn.Linear(1024, 1024)) (a bare layer is no model): 1024*1024 weights + 1024 biases.
const LINEAR = 1024 * 1024 + 1024;
const TAIL = '\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(1024, 1024))\n';

async function check(src: string, expect: RegExp | undefined) {
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const reasons = r.unknowns.map((u) => u.reason);
  assert.ok(!reasons.some((x) => /internal error|call stack|Invalid (string|array) length/.test(x)), reasons.join('\n'));
  if (expect) assert.ok(reasons.some((x) => expect.test(x)), `expected an unknown matching ${expect}: ${reasons.join(' | ')}`);
  else assert.deepEqual(reasons, []);
  // The model after the troublesome part is the last Sequential (a deep Sequential itself is a model of unknown size).
  const m = r.models.filter((x) => x.facts.name === 'Sequential').at(-1);
  assert.ok(m, `the model after it was lost: ${r.models.map((x) => x.facts.name).join(', ')}`);
  assert.equal(m.facts.paramCount, LINEAR);
  return r;
}

test('list + doubling in a loop stops at the list size cap', async () => {
  await check(readFileSync(join(FIX, 'list_doubling.py'), 'utf8'), /list of \d+ items is over the analysis size cap \(100000 items\)/);
});

test('string doubling in a loop stops at the string size cap', async () => {
  await check(readFileSync(join(FIX, 'str_doubling.py'), 'utf8'), /string of \d+ characters is over the analysis size cap/);
});

test('extend, splats, tuple +, dict keys, join and repetition each stop at their cap', async () => {
  const r = await check(readFileSync(join(FIX, 'growing_values.py'), 'utf8'), /size cap/);
  const reasons = r.unknowns.map((u) => u.reason).join('\n');
  for (const re of [/list would grow past the analysis size cap/, /\*ys would take the sequence past/, /tuple of \d+ items/, /dict would grow past the analysis size cap \(10000 keys\)/, /str\.join result/, /list of 1000000000 items/]) {
    assert.match(reasons, re);
  }
});

test('a with statement split by a backslash or holding comments is followed', async () => {
  await check(readFileSync(join(FIX, 'with_backslash.py'), 'utf8'), undefined);
  await check(readFileSync(join(FIX, 'with_comment.py'), 'utf8'), undefined);
});

test('zip() over no sequences is empty, map() with no iterable ends (was an internal error)', async () => {
  await check(readFileSync(join(FIX, 'zip_no_sequences.py'), 'utf8'), undefined);
});

// The depths: 800 to 2,400.
for (const n of [800, 2400]) {
  test(`nested calls ${n} deep: the deep part is an unknown at the depth limit`, async () => {
    await check(`def f(x):\n    return x\ny = ${'f('.repeat(n)}1${')'.repeat(n)}\n${TAIL}`, /nested deeper than 400 levels .*depth limit/);
  });
  test(`nn.Sequential nested ${n} deep`, async () => {
    await check(`import torch.nn as nn\nm = ${'nn.Sequential('.repeat(n)}nn.ReLU()${')'.repeat(n)}\n${TAIL}`, /depth limit/);
  });
  test(`parentheses ${n} deep`, async () => {
    await check(`y = ${'('.repeat(n)}1${')'.repeat(n)}\n${TAIL}`, /depth limit/);
  });
  test(`a sum of ${n} terms`, async () => {
    await check(`a = 1\ny = ${Array(n).fill('a').join(' + ')}\n${TAIL}`, /depth limit/);
  });
}

test('a shallow nesting is followed exactly (the guard does not cut normal code)', async () => {
  const r = await analyze(`a = 1\ny = ${Array(200).fill('a').join(' + ')}\nassert y == 200\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(y, y))\n`, { device: 'a100-80gb', versions: {} });
  assert.deepEqual(r.unknowns, []);
  assert.equal(r.models[0]?.facts.paramCount, 200 * 200 + 200);
});

test('the step and time budgets end the run with an unknown, keeping what was found before', async () => {
  const src = `import torch.nn as nn\nmodel = nn.Sequential(nn.Linear(1024, 1024))\ni = 0\nwhile i >= 0:\n    i = i + 1\n`;
  const steps = await analyze(src, { device: 'a100-80gb', versions: {}, stepBudget: 50_000 });
  assert.ok(steps.unknowns.some((u) => /step budget \(50000\) exhausted/.test(u.reason)), JSON.stringify(steps.unknowns));
  const time = await analyze(`import torch.nn as nn\nmodel = nn.Sequential(nn.Linear(1024, 1024))\nx = 0\nfor i in range(100000):\n    for j in range(100000):\n        x = x + 1\n`, { device: 'a100-80gb', versions: {}, stepBudget: 1e12, timeBudgetMs: 50 });
  assert.ok(time.unknowns.some((u) => /time budget exhausted/.test(u.reason)), JSON.stringify(time.unknowns));
  assert.equal(time.models[0]?.facts.paramCount, LINEAR);
});

test('a `while True:` that never breaks (an inner loop on an undecidable condition) ends after 1,000 iterations, not at the step budget', async () => {
  // As nanochat's data loader: the inner loop's condition reads a listing the analysis cannot make, so it returns at
  // once, and the outer loop repeated it until the step budget ended the whole analysis (the training loop after it
  // was never reached).
  const src = `import os
import torch.nn as nn
files = os.listdir("data")


def batches():
    while True:
        i = 0
        shard = [k * 2 for k in range(10)]
        while i < len(files):
            yield files[i]
            i += 1


model = nn.Sequential(nn.Linear(1024, 1024))
b = next(batches())
after = nn.Sequential(nn.Linear(512, 512))
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  assert.ok(!r.unknowns.some((u) => /budget/.test(u.reason)), JSON.stringify(r.unknowns));
  assert.deepEqual(r.models.map((m) => m.facts.paramCount), [LINEAR, 512 * 512 + 512]);
});

test('a list literal of 100,000 items is followed (no argument spread over its items)', async () => {
  const r = await analyze(`xs = [${Array.from({ length: 100_000 }, (_, i) => i).join(', ')}]\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(1024, 1024))\ny = model\n`, { device: 'a100-80gb', versions: {} });
  assert.ok(!r.unknowns.some((u) => /internal|call stack/.test(u.reason)), JSON.stringify(r.unknowns));
  assert.equal(r.models[0]?.facts.paramCount, LINEAR);
});

test('absurd layer, block, dimension and batch counts are unknowns at the size cap, not a billion entries', async () => {
  const src = readFileSync(join(FIX, 'absurd_counts.py'), 'utf8');
  const r = await check(src + TAIL, /size cap/);
  const all = JSON.stringify([r.unknowns, r.models.map((m) => [m.facts.name, m.facts.paramCount, m.facts.unknowns])]);
  for (const what of ['depth', 'num_spatial_dims', 'num_layers', 'n_layer', 'num_hidden_layers']) {
    assert.match(all, new RegExp(`${what} = 1,000,000,000 is past the analyzer's size cap`), what);
  }
  // None of the models made with an absurd count has a number.
  for (const m of r.models.filter((x) => x.facts.name !== 'Sequential')) assert.equal(m.facts.paramCount, null, m.facts.name);
});

test('a container holding a module that could not be followed has an unknown count, never 0', async () => {
  const r = await analyze(readFileSync(join(FIX, 'container_unknown_item.py'), 'utf8'), { device: 'a100-80gb', versions: {} });
  const bag = r.models.find((m) => m.facts.name === 'Detector');
  assert.ok(bag, r.models.map((m) => m.facts.name).join(', '));
  assert.equal(bag.facts.paramCount, null);
  assert.ok(bag.facts.unknowns.some((u) => /^module members\.0: /.test(u.reason)), JSON.stringify(bag.facts.unknowns));
});

test('a container changed in a loop that could not be followed has an unknown count, never its count before the loop', async () => {
  const r = await analyze(readFileSync(join(FIX, 'container_unknown_item.py'), 'utf8'), { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Ensemble');
  assert.ok(m, r.models.map((x) => x.facts.name).join(', '));
  assert.equal(m.facts.paramCount, null);
  assert.ok(m.facts.unknowns.some((u) => /may have been changed by a loop that was not followed/.test(u.reason)), JSON.stringify(m.facts.unknowns));
});
