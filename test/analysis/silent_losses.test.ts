// Three ways a part of a model used to vanish without an unknown, each giving a confident "fits" for a model that
// is larger (found on rasbt/LLMs-from-scratch and facebookresearch/DiT, docs/accuracy.md "Held-out round 9").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const phase = (r: Awaited<ReturnType<typeof analyze>>, name: string) => r.models[0].estimate.phases.find((p) => p.phase === name)!;

// `module.weight = nn.Parameter(torch.tensor(arr))` with weights read at run time (load_weights_into_gpt): the
// parameter it replaces is gone and its replacement has a shape oomlens cannot read.
test('a parameter replaced by one of unknown shape makes the size unknown, not smaller', async () => {
  const r = await analyze(`import json
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50257, 1024)
        self.body = nn.Linear(1024, 1024)

params = json.load(open("weights.json"))
model = Net()
model.emb.weight = nn.Parameter(torch.tensor(params["wte"]))
model.to("cuda")
`, { device: 't4', versions: {} });
  assert.equal(r.models[0].facts.paramCount, null);
  const load = phase(r, 'load');
  assert.equal(load.fits, null);
  assert.ok(load.peakIsLowerBound);
  assert.ok(r.models[0].facts.unknowns.some((u) => /nn\.Parameter of .*shape is not known/.test(u.reason)), JSON.stringify(r.models[0].facts.unknowns));
});

// `nn.Sequential(*[Block() for _ in range(n)])` with n not known: the comprehension is unknown, not an empty list.
test('a comprehension over a range that is not known is unknown when expanded into a container', async () => {
  const r = await analyze(`import sys
import torch.nn as nn
n = int(sys.argv[1])
model = nn.Sequential(*[nn.Linear(1024, 1024) for _ in range(n)], nn.Linear(1024, 10)).cuda()
`, { device: 't4', versions: {} });
  assert.equal(r.models[0].facts.paramCount, null);
  assert.equal(phase(r, 'load').fits, null);
});

// An int device ordinal (`device = rank % torch.cuda.device_count()`, `.to(0)`) is a CUDA device (Module.to): a second
// network moved with it is on the device during the step, as with "cuda".
test('.to(<int>) moves a module to that CUDA device, like .to("cuda:<int>")', async () => {
  const program = (device: string) => `import torch
import torch.nn as nn
device = ${device}
model = nn.Sequential(nn.Linear(4096, 4096), nn.Linear(4096, 4096))
ema = nn.Sequential(nn.Linear(4096, 4096), nn.Linear(4096, 4096)).to(device)
model = model.to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(64, 4096, device=device)
for step in range(10):
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
`;
  const other = async (device: string) => phase(await analyze(program(device), { device: 't4', versions: {} }), 'training').breakdown
    .filter((b) => /^another module on the device/.test(b.label)).reduce((a, b) => a + b.bytes, 0);
  const byName = await other('"cuda:0"');
  assert.equal(byName, 2 * (4096 * 4096 + 4096) * 4);
  assert.equal(await other('0'), byName);
});

// `model = build(cfg)` from code oomlens does not follow, then trained: "no model found" alone was the whole answer.
test('a program that trains a model oomlens cannot resolve says so at file level', async () => {
  const r = await analyze(`import torch
from mylib import build

model = build("resnet").cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
`, { device: 't4', versions: {} });
  assert.equal(r.models.length, 0);
  assert.ok(r.unknowns.some((u) => u.what === 'model' && /torch\.optim\.Adam trains parameters oomlens could not resolve/.test(u.reason) && /mylib\.build/.test(u.reason)), JSON.stringify(r.unknowns));
});

// `for key in self.state_dict(): init.kaiming_normal_(self.state_dict()[key])`: state_dict() was not modelled, the loop
// was not followed and the whole module became unknown. Its entries are the module's parameters and buffers.
test('a loop over self.state_dict() that initialises in place: the count PyTorch gives', async () => {
  const { countedBoth } = await import('../python/venv');
  const { join } = await import('node:path');
  const { oomlens, framework } = await countedBoth(join(__dirname, '..', 'fixtures', 'robust', 'state_dict_init.py'));
  assert.deepEqual(oomlens, [['Net', framework, 0]]);
});

// `if somelib.flag == "gpu": ... else: raise` (whisper-jax's default_mesh on `jax.devices()[-1].platform`): a library
// value oomlens does not model compared with a string was False for certain, so the program "raised here" and stopped.
test('a library value compared with a string is undecided, not False: the guarded branch runs, nothing raises', async () => {
  const r = await analyze(`import torch.nn as nn
import somelib

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(64, 64)

if somelib.flag == "gpu":
    model = Net().cuda()
else:
    raise ValueError("not gpu")
`, { device: 't4', versions: {} });
  assert.deepEqual(r.models.map((m) => m.facts.paramCount), [64 * 64 + 64]);
  assert.ok(!r.unknowns.some((u) => /raises here/.test(u.reason)), JSON.stringify(r.unknowns));
});

// Two models on the device and an optimizer over parameters a library call made (diffusers' LoRA attention processors
// installed with `unet.set_attn_processor`): no training phase was shown for either, "All checks passed"
// (huggingface/diffusers#4872). The model whose forward the step backpropagates through has one, its optimizer state
// an unknown.
test('an optimizer over parameters oomlens cannot resolve, with several models: the one run in the step has a training phase', async () => {
  const r = await analyze(`import torch
import torch.nn as nn
from somelib import make_adapters

class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(256, 256)

    def forward(self, x):
        return self.l(x)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(512, 512)

    def forward(self, x):
        return self.l(x)

enc = Enc().cuda()
net = Net().cuda()
net.requires_grad_(False)
adapters = make_adapters(net)
opt = torch.optim.AdamW(adapters, lr=1e-4)
for step in range(10):
    loss = net(torch.randn(8, 512, device="cuda")).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
`, { device: 't4', versions: {} });
  const net = r.models.find((m) => m.facts.name === 'Net')!;
  const tr = net.estimate.phases.find((p) => p.phase === 'training');
  assert.ok(tr, 'a training phase for the model the step runs');
  assert.equal(tr!.fits, null);
  assert.ok(tr!.unknowns.some((u) => /could not resolve/.test(u.reason)), JSON.stringify(tr!.unknowns));
  assert.ok(!r.models.find((m) => m.facts.name === 'Enc')!.estimate.phases.some((p) => p.phase === 'training'), 'the model not run in the step is not trained');
});

// A model built under a torch mode of the program (lit-llama's EmptyInitOnDevice(device, dtype=torch.bfloat16)): the
// mode may change every factory's dtype and device. It was sized in float32, "over by" on a card it fits (lit-llama
// PR #100). Now the mode's own `dtype` sizes it, as a lower bound with the mode an unknown.
test("a model built under a TorchFunctionMode: sized in the mode's dtype, never a confident float32 verdict", async () => {
  const r = await analyze(`import torch
from torch.overrides import TorchFunctionMode

class BuildIn(TorchFunctionMode):
    def __init__(self, device, dtype):
        super().__init__()
        self.device, self.dtype = device, dtype

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        kwargs["dtype"] = self.dtype
        return func(*args, **kwargs)

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(4096, 4096, bias=False) for _ in range(4))

with BuildIn(device=torch.device("cuda"), dtype=torch.bfloat16):
    model = Net()
`, { device: 't4', versions: {} });
  const load = r.models[0].estimate.phases.find((p) => p.phase === 'load')!;
  assert.equal(load.fits, null);
  assert.equal(load.peakIsLowerBound, true);
  assert.equal(r.models[0].estimate.bytesByDtype.bfloat16, 4 * 4096 * 4096 * 2);
  // The dtype is what the mode leaves unknown, not the count.
  assert.equal(r.models[0].facts.paramCount, 4 * 4096 * 4096);
});

// Libraries that build the model themselves from a name or a config (stable-baselines3, detectron2, ultralytics):
// "No model found" with no unknown was the whole answer. The file says a model is built there, not sized.
test('a model built by a library oomlens does not model is said at file level', async () => {
  for (const [src, lib] of [
    ['from stable_baselines3 import PPO\nmodel = PPO("MlpPolicy", "CartPole-v1")\nmodel.learn(10000)\n', 'stable-baselines3'],
    ['from detectron2.engine import DefaultTrainer\ntrainer = DefaultTrainer(cfg)\ntrainer.train()\n', 'detectron2'],
    ['from ultralytics import YOLO\nmodel = YOLO("yolov8n.pt")\nmodel.train(data="coco8.yaml")\n', 'ultralytics'],
    // absl's app.run of a partial of jaxline's platform.main (jax_privacy's experiments).
    ['import functools\nfrom absl import app\nfrom jaxline import experiment, platform\nclass Experiment(experiment.AbstractExperiment):\n    pass\nif __name__ == "__main__":\n    app.run(functools.partial(platform.main, Experiment))\n', 'jaxline'],
  ]) {
    const r = await analyze(src, { device: 't4', versions: {} });
    assert.equal(r.models.length, 0);
    assert.ok(r.unknowns.some((u) => u.what === 'model' && u.reason.includes(`built by ${lib}`)), `${lib}: ${JSON.stringify(r.unknowns)}`);
  }
});

// A training step whose parameters belong to no reported model (kohya-ss/sd-scripts' LoRA network, attached by
// replacing the forwards of the pipeline's layers; docs/accuracy.md "Nine more reports replayed"; here a prompt
// embedding trained against two frozen models, as textual inversion does): the models were "load fits" and the file
// "All checks passed", for a run that ran out of memory in that step.
test('a training step no reported model accounts for is a file-level unknown, not "all checks passed"', async () => {
  const r = await analyze(`import torch
import torch.nn as nn

vae = nn.Sequential(nn.Linear(512, 512), nn.Linear(512, 512)).cuda()
text = nn.Sequential(nn.Linear(256, 256), nn.Linear(256, 512)).cuda()
prompt = nn.Parameter(torch.zeros(8, 512, device="cuda"))
opt = torch.optim.AdamW([prompt], lr=1e-4)
for step in range(10):
    with torch.no_grad():
        latents = vae(torch.randn(8, 512, device="cuda"))
        cond = text(torch.randn(8, 256, device="cuda"))
    loss = ((latents + cond) * prompt).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
`, { device: 't4', versions: {} });
  assert.equal(r.models.length, 2);
  assert.ok(!r.models.some((m) => m.estimate.phases.some((p) => p.phase === 'training')));
  assert.ok(r.unknowns.some((u) => u.what === 'training step' && /torch\.optim\.AdamW trains parameters that belong to no model/.test(u.reason)), JSON.stringify(r.unknowns));
});
