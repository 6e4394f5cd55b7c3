// Found on karpathy/nanochat's base_train.py (docs/accuracy.md), each a general construct:
// - a loop over items the analysis does not know, in a function, filling a list of an enclosing scope
//   (`for tokens in token_lists: doc_buffer.append(tokens)`): the list stayed empty and known, so the
//   `while len(doc_buffer) < n: refill()` around it repeated until the step budget ended the whole analysis;
// - `type(m).__name__` was unknown, so `if 'Float8' in type(m).__name__:` took its branch for every module;
// - `torch.cuda.get_device_capability()` was unknown, so `bfloat16 if capability >= (8, 0) else float32` was a guess;
// - `x = x.to(COMPUTE_DTYPE)` in a forward with float32 master weights: activations were sized in float32 (2×),
//   which reported a d20 training step "over by 60 GB" on an 80 GB card.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';


const MLP = `import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(256, 256) for _ in range(n)])
`;

it('a list an unrolled-nothing loop fills in a function becomes unknown: the while around it ends, the model after it is found', async () => {
  const r = await analyze(MLP + `from somewhere import tokenizer, batches

def loader():
    doc_buffer = []

    def refill_buffer():
        for tokens in tokenizer.encode(next(batches)):
            doc_buffer.append(tokens)

    while len(doc_buffer) < 1000:
        refill_buffer()
    return doc_buffer

docs = loader()
model = Net(4).cuda()
`, { device: 't4' });
  assert.ok(!r.unknowns.some((u) => /step budget/.test(u.reason)), JSON.stringify(r.unknowns));
  assert.equal(r.models.length, 1);
  assert.equal(r.models[0].facts.paramCount, 4 * (256 * 256 + 256));
});

it('a module-level list filled that way is not an empty list: a model sized from its length is unknown, never 0 layers', async () => {
  const r = await analyze(MLP + `from somewhere import items

names = []

def collect():
    for x in items():
        names.append(x)

collect()
model = Net(len(names)).cuda()
`, { device: 't4' });
  assert.equal(r.models.length, 1);
  assert.equal(r.models[0].facts.paramCount, null, 'the layer count is not known');
});

it('type(m).__name__ is the class name: a filter on it is decided', async () => {
  const r = await analyze(MLP + `
class Float8Linear(nn.Linear):
    pass

class Both(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Float8Linear(512, 512)
        self.b = nn.Linear(512, 512)

model = Both().cuda()
n = 0
for name, m in model.named_modules():
    if 'Float8' in type(m).__name__:
        n += 1
extra = Net(n).cuda()
`, { device: 't4' });
  const extra = r.models.find((m) => m.facts.name === 'Net');
  assert.equal(extra?.facts.paramCount, 256 * 256 + 256, 'one Float8 module: Net(1)');
  assert.ok(!r.models.some((m) => m.facts.unknowns.some((u) => /__name__/.test(u.what))));
});

it('torch.cuda.get_device_capability() and is_bf16_supported() are the target device\'s', async () => {
  const code = MLP + `
major, minor = torch.cuda.get_device_capability()
dtype = torch.bfloat16 if torch.cuda.get_device_capability() >= (8, 0) else torch.float32
assert torch.cuda.is_bf16_supported() == (dtype == torch.bfloat16)
model = Net(2 if major == 8 and minor == 0 else 3).to("cuda", dtype=dtype)
`;
  const bytes = (n: number, b: number) => n * (256 * 256 + 256) * b;
  const a100 = await analyze(code, { device: 'a100-80gb' });
  assert.equal(a100.models[0].facts.phases[0].events.filter((e) => e.op === 'alloc').reduce((s, e) => s + (e.op === 'alloc' ? e.tensor.shape.reduce((x, y) => x * y, 1) * (e.tensor.dtype === 'bfloat16' ? 2 : 4) : 0), 0), bytes(2, 2));
  const t4 = await analyze(code, { device: 't4' });
  assert.equal(t4.models[0].facts.paramCount, 3 * (256 * 256 + 256));
  assert.ok(t4.models[0].facts.phases[0].events.every((e) => e.op !== 'alloc' || e.tensor.dtype === 'float32'));
});

// A truth program's GPT training step (test/truth/programs/gpt_adamw.py), with nanochat's cast of the residual
// stream to a compute dtype chosen from the device's capability.
const TRUTH_GPT = readFileSync(join(__dirname, '..', 'truth', 'programs', 'gpt_adamw.py'), 'utf8');
const CAST = '        x = self.wte(idx) + self.wpe(pos)\n';
const GPT = TRUTH_GPT
  .replace('\n\nclass GPT(', '\nCOMPUTE_DTYPE = torch.bfloat16 if torch.cuda.get_device_capability() >= (8, 0) else torch.float32\n\n\nclass GPT(')
  .replace(CAST, `${CAST}        x = x.to(COMPUTE_DTYPE)\n`);

it('x = x.to(COMPUTE_DTYPE) in the forward: activations in that dtype (bfloat16 on an A100, float32 on a T4)', async () => {
  const act = async (device: string) => {
    const r = await analyze(GPT, { device });
    const t = r.models[0].facts.phases.find((p) => p.phase === 'training')!;
    const saved = t.events.flatMap((e) => (e.op === 'alloc' && e.tensor.role === 'activation' && /saved for backward/.test(e.tensor.group ?? e.tensor.label) ? [e.tensor] : []));
    return { dtypes: new Set(saved.filter((s) => s.dtype !== 'uint8' && s.dtype !== 'bool').map((s) => s.dtype)), notes: t.notes };
  };
  const a100 = await act('a100-80gb');
  assert.deepEqual([...a100.dtypes], ['bfloat16'], [...a100.dtypes].join());
  assert.ok(a100.notes.some((n) => /casts its activations to bfloat16/.test(n)), a100.notes.join('; '));
  const t4 = await act('t4');
  assert.deepEqual([...t4.dtypes], ['float32']);
});
