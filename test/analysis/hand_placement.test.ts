// Parts of one model moved to devices by hand (a naive pipeline: `layer.to(f"cuda:{i}")`), and the parts of a loaded
// transformers model a program reaches through its module tree (`model.model.layers[3]`, `model.lm_head`,
// `model.config`). Module.to moves the module's own tensors and its children's (torch/nn/modules/module.py _apply):
// spread over N devices, the busiest holds at least the average, so the phases are even splits marked "≥", never a
// verdict on one device holding everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const NET = `import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096))
        self.dec = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))

    def forward(self, x):
        return self.dec(self.enc(x))


model = Net()
PLACE
opt = torch.optim.Adam(model.parameters())
x = torch.randn(64, 4096, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for _ in range(10):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
`;

async function training(place: string, device = '2xa100-80gb') {
  const r = await analyze(NET.replace('PLACE', place), { device, versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.name), ['Net'], place);
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training');
  assert.ok(p, `${place}: a training phase`);
  return { p, r };
}

test('parts of one model on two devices: every phase is the even split, a lower bound with the placement unknown', async () => {
  const whole = await training('model.to("cuda:0")');
  assert.equal(whole.p.peakIsLowerBound, false, JSON.stringify(whole.p.unknowns));
  const split = await training('model.enc.to("cuda:0")\nmodel.dec.to(torch.device("cuda:1"))');
  assert.equal(split.p.peakIsLowerBound, true);
  assert.ok(split.p.unknowns.some((u) => u.what === 'placement' && /cuda:0, cuda:1/.test(u.reason) && /even split over 2 devices/.test(u.reason)), JSON.stringify(split.p.unknowns));
  // Every term divided by two: the busiest device holds at least half of what one device would.
  assert.ok(Math.abs(split.p.peakBytes! - whole.p.peakBytes! / 2) <= whole.p.peakBytes! * 0.001, `${split.p.peakBytes} vs ${whole.p.peakBytes} / 2`);
  for (const ph of split.r.models[0].estimate.phases) assert.ok(ph.unknowns.some((u) => u.what === 'placement'), ph.phase);
});

test('a device ordinal as an int, and .cuda(i), name devices too', async () => {
  const split = await training('model.enc.cuda(0)\nmodel.dec.to(1)');
  assert.ok(split.p.unknowns.some((u) => u.what === 'placement' && /cuda:0, cuda:1/.test(u.reason)), JSON.stringify(split.p.unknowns));
});

test('parts moved to the one device, or the whole model moved last, are not a split', async () => {
  for (const place of ['model.enc.to("cuda")\nmodel.dec.to("cuda:0")', 'model.enc.to("cuda:1")\nmodel.to("cuda:0")', 'model.enc.to("cpu")\nmodel.dec.to("cuda")']) {
    const { p } = await training(place);
    assert.ok(!p.unknowns.some((u) => u.what === 'placement'), `${place}: ${JSON.stringify(p.unknowns)}`);
  }
});

// minimal-llama's naive pipeline (README: "about 30-35GB of RAM per GPU across 8 GPUs"): the decoder layers of a
// transformers Llama zipped with a sorted list of devices, the embedding on the first, norm and head on the last.
const LLAMA = `import math
import torch
import torch.nn.functional as F
import transformers

def get_devices():
    return [torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]

model = transformers.LlamaForCausalLM.from_pretrained("huggyllama/llama-7b", torch_dtype=torch.float16)
devices = get_devices()
allocations = [devices[i] for i in
               sorted(list(range(len(devices))) * math.ceil(model.config.num_hidden_layers / len(devices)))]
layer_device_tuples = [(model.model.embed_tokens, devices[0])] \\
    + list(zip(model.model.layers, allocations)) \\
    + [(model.model.norm, devices[-1]), (model.lm_head, devices[-1])]
for layer, device in layer_device_tuples:
    layer.to(device)

opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
input_ids = torch.randint(0, 32000, (4, 512))
logits = model(input_ids.to(devices[0])).logits
loss = F.cross_entropy(logits.view(-1, 32000), input_ids.view(-1).to(logits.device))
loss.backward()
opt.step()
`;

test('a transformers Llama placed layer by layer on 8 GPUs: no OOM001 for the whole model on device 0', async () => {
  const r = await analyze(LLAMA, { device: '8xa100-40gb', versions: {} });
  assert.equal(r.models.length, 1);
  assert.equal(r.models[0].facts.paramCount, 6_738_415_616);
  assert.deepEqual(r.findings.filter((f) => f.code === 'OOM001'), [], 'no out-of-memory verdict');
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  assert.equal(p.peakIsLowerBound, true);
  const u = p.unknowns.find((x) => x.what === 'placement');
  assert.ok(u && /even split over 8 devices/.test(u.reason), JSON.stringify(p.unknowns));
  // Parameters, gradients, AdamW state (float16 here) and the step's temporaries: 5 × 13.5 GB over 8 devices, at least.
  assert.ok(p.peakBytes! >= (5 * 2 * 6_738_415_616) / 8 && p.peakBytes! < 10e9, String(p.peakBytes));
});

test('a loaded model\'s parts and config: model.config reads the checkpoint\'s config; freezing a slice of its layers', async () => {
  const src = `import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("gpt2")
for p in model.transformer.h[:6].parameters():
    p.requires_grad = False


class Head(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = torch.nn.Linear(width, 2)


head = Head(model.config.n_embd * len(model.transformer.h))
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const head = r.models.find((m) => m.facts.name === 'Head');
  // nn.Linear(768 * 12, 2): 9216·2 + 2 (torch/nn/modules/linear.py).
  assert.equal(head?.facts.paramCount, 768 * 12 * 2 + 2, JSON.stringify(r.models.map((m) => [m.facts.name, m.facts.paramCount])));
});

test('outputs.loss of a transformers forward with labels is the step\'s loss: the training step is followed', async () => {
  const src = `import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("gpt2")
for p in model.transformer.h[:6].parameters():
    p.requires_grad = False
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
ids = torch.randint(0, 50257, (2, 128))
loss = model(ids, labels=ids).loss
loss.backward()
opt.step()
`;
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  assert.ok(!p.unknowns.some((u) => u.what === 'training step'), JSON.stringify(p.unknowns));
  // GPT-2 small: 124,439,808 parameters; six blocks of 7,087,872 frozen → 81,912,576 take a float32 gradient.
  const grads = r.models[0].estimate.phases.find((x) => x.phase === 'training')!;
  const g = grads.breakdown.find((b) => /^gradients/.test(b.label));
  assert.equal(g?.bytes, 81_912_576 * 4, JSON.stringify(grads.breakdown.map((b) => [b.label, b.bytes])));
});
