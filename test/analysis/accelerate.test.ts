// accelerate as scripts use it: Accelerator(mixed_precision, gradient accumulation) +
// prepare + accelerator.backward is the same training step as the plain torch loop with
// torch.autocast; init_empty_weights makes no memory; load_checkpoint_and_dispatch /
// infer_auto_device_map place each module as accelerate does (the placement itself is
// checked against the real accelerate in accelerate_placement.test.ts). The loop's AdamW is
// fused (updated in place), so its peak is the backward these tests are about, not the
// multi-tensor step's temporaries (shared/src/training.ts optimizerStepTemporaries).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { runPythonJson } from '../python/venv';

const LAYER = 404_766_720; // Llama-2-7B decoder layer in float16 (max_memory.test.ts)
const EMBED = 262_144_000;

const loop = (setup: string, ctx: string, backward: string, prepare: string) => `import torch
import torch.nn as nn
from accelerate import Accelerator

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4096, 4096) for _ in range(8)])
        self.head = nn.Linear(4096, 10)
    def forward(self, x):
        for l in self.layers:
            x = torch.relu(l(x))
        return self.head(x)

${setup}
model = MLP()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
${prepare}
for step in range(10):
    x = torch.randn(64, 4096, device="cuda")
    with ${ctx}:
        out = model(x)
        loss = out.sum()
        ${backward}
        optimizer.step()
        optimizer.zero_grad()
`;

async function phase(src: string, device = 'a100-40gb', phaseName = 'training') {
  const r = await analyze(src, { device, versions: { transformers: '5.0.0' } });
  return { r, p: r.models[0]?.estimate.phases.find((x) => x.phase === phaseName) };
}

test('Accelerator(mixed_precision="bf16") + prepare + accelerator.backward: the torch.autocast training step', async () => {
  const acc = (await phase(loop('accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_steps=4)', 'accelerator.accumulate(model)', 'accelerator.backward(loss)', 'model, optimizer = accelerator.prepare(model, optimizer)'))).p;
  const plain = (await phase(loop('', 'torch.autocast("cuda", dtype=torch.bfloat16)', 'loss.backward()', 'model = model.cuda()'))).p;
  assert.ok(acc && plain, 'training phases');
  // 8 × (4096² + 4096) + 4096·10 + 10 = 134,291,466 float32 parameters: AdamW keeps two float32 states.
  const P = 8 * (4096 * 4096 + 4096) + 4096 * 10 + 10;
  const part = (p: typeof acc, re: RegExp) => p!.breakdown.filter((c) => re.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  assert.equal(part(acc, /^optimizer state/), 2 * P * 4);
  assert.equal(part(acc, /^gradients/), P * 4);
  // gradient_accumulation_steps=4 keeps .grad through every micro-step's backward, so the backward's activation
  // gradients sit on top of it and of everything saved: at the last ReLU, the gradient of its output and of its
  // input (the Linear's output), 2 × 64 × 4096 × 4 B.
  assert.equal(part(acc, /^activations: backward/), 2 * 64 * 4096 * 4);
  // The plain loop's zero_grad() frees .grad first: the gradients appear during the backward as the saved tensors
  // go, so its peak is the first layer's backward: every gradient made, nothing of the forward saved any more (the
  // first Linear saves the program's own input) and the gradient of that layer's output (64 × 4096 × 4 B).
  assert.ok(plain!.peakBytes !== null, 'plain loop peak known');
  assert.equal(part(plain, /^gradients/), P * 4);
  assert.equal(part(plain, /^activations: backward/), 64 * 4096 * 4);
  assert.equal(part(plain, /^activations: (saved|still saved)/), 0);
  const saved = part(acc, /^activations: saved for the backward/);
  assert.ok(saved > 0, 'the accumulating loop counts the saved activations at its peak');
  assert.equal(acc!.peakBytes, plain!.peakBytes! + saved + 2 * 64 * 4096 * 4 - 64 * 4096 * 4);
  const rest = (p: typeof acc) => p!.breakdown.filter((c) => !/^(activations: (backward|saved|still saved)|gradients)/.test(c.label)).map((c) => [c.label, c.bytes]);
  assert.deepEqual(rest(acc), rest(plain));
});

test('Accelerator with a DeepSpeed ZeRO-3 plugin divides the optimizer state over the devices', async () => {
  const src = loop('from accelerate import DeepSpeedPlugin\naccelerator = Accelerator(mixed_precision="bf16", deepspeed_plugin=DeepSpeedPlugin(zero_stage=3))', 'accelerator.accumulate(model)', 'accelerator.backward(loss)', 'model, optimizer = accelerator.prepare(model, optimizer)');
  const one = (await phase(src, 'a100-40gb')).p!;
  const eight = (await phase(src, '8xa100-40gb')).p!;
  const opt = (p: typeof one) => p.breakdown.filter((c) => /^optimizer state/.test(c.label)).reduce((a, c) => a + c.bytes, 0);
  assert.equal(opt(eight), opt(one) / 8);
});

const HF = (tail: string) => `import torch
from accelerate import init_empty_weights, load_checkpoint_and_dispatch, infer_auto_device_map
from transformers import AutoConfig, AutoModelForCausalLM
config = AutoConfig.from_pretrained("meta-llama/Llama-2-7b-hf")
with init_empty_weights():
    model = AutoModelForCausalLM.from_config(config)
${tail}`;

test('init_empty_weights: a model on the meta device takes no memory', async () => {
  const r = await analyze(HF(''), { device: 'a100-40gb', versions: { transformers: '5.0.0' } });
  const bytes = r.models.flatMap((m) => m.estimate.phases).reduce((a, p) => a + (p.peakBytes ?? NaN), 0);
  assert.equal(bytes, 0);
});

test('load_checkpoint_and_dispatch(device_map="auto", max_memory=...) loads each module where accelerate puts it', async () => {
  const { p } = await phase(HF('model = load_checkpoint_and_dispatch(model, "ckpt", device_map="auto", max_memory={0: "6GiB", 1: "30GiB"}, no_split_module_classes=["LlamaDecoderLayer"], dtype=torch.float16)\n'), '2xa100-40gb', 'load');
  assert.ok(p, 'load phase');
  // As accelerate v1.15 computes for the same model on the meta device: embed_tokens and 14 layers on GPU 0.
  assert.equal(p.perDeviceBytes[0], EMBED + 14 * LAYER);
  assert.equal(p.perDeviceBytes[1], 18 * LAYER + 8192 + EMBED);
});

test('infer_auto_device_map then dispatch with the map: the same placement; a CPU entry keeps modules off the GPUs', async () => {
  const { p } = await phase(HF('dm = infer_auto_device_map(model, max_memory={0: "4GiB", "cpu": "64GiB"}, no_split_module_classes=["LlamaDecoderLayer"], dtype=torch.float16)\nmodel = load_checkpoint_and_dispatch(model, "ckpt", device_map=dm, dtype=torch.float16)\n'), 'a100-40gb', 'load');
  assert.ok(p, 'load phase');
  // GPU 0: 4 GiB less the largest layer (404,766,720 B) = 3,890,216,192 B: embed_tokens + 8 layers
  // (3,500,281,760 B); the 9th would make 3,905,048,480 B. The rest is in CPU RAM.
  assert.equal(p.perDeviceBytes[0], EMBED + 8 * LAYER);
});

test('a max_memory that is not a literal leaves the placement unknown, never zero', async () => {
  const r = await analyze(HF('mm = get_mm()\nmodel = load_checkpoint_and_dispatch(model, "ckpt", device_map="auto", max_memory=mm, dtype=torch.float16)\n'), { device: '2xa100-40gb', versions: { transformers: '5.0.0' } });
  const reasons = r.models.flatMap((m) => m.facts.unknowns.map((u) => u.reason)).concat(r.unknowns?.map((u) => u.reason) ?? []);
  assert.ok(reasons.some((u) => /max_memory/.test(u)), reasons.join('; '));
  for (const m of r.models) for (const p of m.estimate.phases) assert.notEqual(p.fits, true);
});

const USER = `import torch
import torch.nn as nn
from accelerate import init_empty_weights, infer_auto_device_map, load_checkpoint_and_dispatch

class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

class Net(nn.Module):
    def __init__(self, d=1024, n=12, vocab=50000):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = nn.Linear(d, vocab, bias=False)

with init_empty_weights():
    model = Net()
dm = infer_auto_device_map(model, max_memory={0: "600MB", 1: "400MB", "cpu": "1GB"}, no_split_module_classes=["Block"])
`;

test('a torch module made under init_empty_weights: infer_auto_device_map equals the real accelerate\'s, and dispatch loads by it', async () => {
  const [truth] = runPythonJson<({ device_map: Record<string, number | string> } | { error: string })[]>('hf_device_map.py', [{ source: USER }]);
  assert.ok('device_map' in truth, JSON.stringify(truth));
  const r = await analyze(`${USER}model = load_checkpoint_and_dispatch(model, "ckpt", device_map=dm)\n`, { device: '2xa100-40gb', versions: {} });
  assert.equal(r.models.length, 1, 'the meta-device construction is not a second model');
  const p = r.models[0].estimate.phases.find((x) => x.phase === 'load')!;
  // Bytes per device from the real map: embed 50000·1024·4 B, each Block (2·1024 + 2·(1024·4096) + 4096 + 1024)·4 B, head 50000·1024·4 B.
  const EMB = 50000 * 1024 * 4;
  const BLOCK = (2 * 1024 + 1024 * 4096 + 4096 + 4096 * 1024 + 1024) * 4;
  const size = (k: string) => (k === 'embed' || k === 'head' ? EMB : k === 'blocks' ? 12 * BLOCK : BLOCK);
  const on = (d: number) => Object.entries(truth.device_map).filter(([, v]) => v === d).reduce((a, [k]) => a + size(k), 0);
  assert.ok(on(0) > 0 && on(1) > 0 && Object.values(truth.device_map).includes('cpu'), JSON.stringify(truth.device_map));
  assert.equal(p.perDeviceBytes[0], on(0));
  assert.equal(p.perDeviceBytes[1], on(1));
});

test('get_balanced_memory then infer_auto_device_map: the caps and the map load_checkpoint_and_dispatch would compute', async () => {
  // The same as device_map="auto" with that max_memory (accelerate's big_modeling.py does exactly these two calls).
  const src = HF('from accelerate.utils import get_balanced_memory\nmm = get_balanced_memory(model, max_memory={0: "6GiB", 1: "30GiB"}, no_split_module_classes=["LlamaDecoderLayer"], dtype=torch.float16)\ndm = infer_auto_device_map(model, max_memory=mm, no_split_module_classes=["LlamaDecoderLayer"], dtype=torch.float16)\nmodel = load_checkpoint_and_dispatch(model, "ckpt", device_map=dm, dtype=torch.float16)\n');
  const { p } = await phase(src, '2xa100-40gb', 'load');
  assert.ok(p, 'load phase');
  assert.equal(p.perDeviceBytes[0], EMBED + 14 * LAYER);
  assert.equal(p.perDeviceBytes[1], 18 * LAYER + 8192 + EMBED);
});

test('device_map="auto" without max_memory on one GPU too small for the model: the rest is offloaded to CPU RAM, not an out-of-memory', async () => {
  // Llama-2-13B in float16 (26.0 GB) on an RTX 4090: GPU 0 offers 90% of (24 GiB − 400 MiB of CUDA context), less one
  // decoder layer kept free; the CPU (get_max_memory lists its free RAM) takes the layers that do not fit.
  const r = await analyze(`import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf", torch_dtype=torch.float16, device_map="auto")
`, { device: 'rtx-4090', versions: { transformers: '4.45.0' } });
  const m = r.models[0];
  const load = m.estimate.phases.find((p) => p.phase === 'load')!;
  const cap = 0.9 * (24 * 2 ** 30 - 400 * 2 ** 20);
  assert.ok(load.perDeviceBytes[0] > 0.8 * cap && load.perDeviceBytes[0] <= cap, String(load.perDeviceBytes[0]));
  assert.equal(load.fits, true);
  assert.ok(load.notes.some((n) => /CPU RAM/.test(n)), JSON.stringify(load.notes));
});

test('Accelerator(mixed_precision=None) — an argparse default — reads accelerate launch\'s setting, and accelerator.mixed_precision says it', async () => {
  // accelerator.py __init__: mixed_precision None → parse_choice_from_env("ACCELERATE_MIXED_PRECISION", "no").
  const src = (mp: string) => loop(`accelerator = Accelerator(mixed_precision=${mp})\nweight_dtype = torch.float16 if accelerator.mixed_precision == "fp16" else torch.float32\nside = torch.zeros(1000, 1000, device="cuda", dtype=weight_dtype)`, 'accelerator.accumulate(model)', 'accelerator.backward(loss)', 'model, optimizer = accelerator.prepare(model, optimizer)');
  const none = await phase(src('None'));
  const fp16 = await phase(src('"fp16"'));
  const side = (p: typeof none.p) => p!.breakdown.filter((b) => /float16/.test(b.label) && b.bytes === 2_000_000).length;
  assert.equal(side(fp16.p), 1, 'the fp16 accelerator makes the float16 side tensor');
  assert.equal(side(none.p), 0, 'None without accelerate launch is "no": float32');
});
