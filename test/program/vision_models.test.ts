// torchvision.models' ResNet and VGG families (server/src/frameworks/torch/vision_models.ts): each builder's
// parameters and buffers, as programs call them (positional `pretrained`, `weights=`, `num_classes=`, a replaced
// head), against torchvision itself (built on the CPU).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { analyze } from '../../server/src/analysis/analyze';
import { pythonWithTorch } from '../corpus/compare';

const CALLS = [
  'models.resnet18(pretrained=True)', 'models.resnet34()', 'models.resnet50(weights=None)', 'models.resnet101(num_classes=10)',
  'models.resnet152()', 'models.resnext50_32x4d()', 'models.resnext101_32x8d()', 'models.wide_resnet50_2()',
  'models.vgg11()', 'models.vgg16_bn(num_classes=100)', 'models.vgg19(dropout=0.2)', 'models.resnet.resnet18(False)',
  'models.alexnet(num_classes=10)', 'models.mobilenet_v2()', 'models.mobilenet_v2(width_mult=0.5, num_classes=100)',
];

test('ResNet / ResNeXt / wide ResNet / VGG / AlexNet / MobileNetV2 builders: parameters and buffers as torchvision builds them', async () => {
  const py = pythonWithTorch();
  if (!py.exe) assert.fail(`no python3 with PyTorch; tried ${py.tried.join('; ')}`);
  const real = `import torch, json\nfrom torchvision import models\nout = []\n` + CALLS.map((c) =>
    `m = ${c.replace('pretrained=True', 'pretrained=False')}\nout.append([sum(p.numel() for p in m.parameters()), sum(b.numel() * b.element_size() for b in m.buffers())])\n`).join('') + 'print(json.dumps(out))\n';
  const r = spawnSync(py.exe, ['-W', 'ignore', '-c', real], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const truth = JSON.parse(r.stdout.trim().split('\n').pop()!) as [number, number][];
  for (const [i, c] of CALLS.entries()) {
    const res = await analyze(`import torch\nfrom torchvision import models\nmodel = ${c}.cuda()\n`, { device: 'a100-80gb' });
    const m = res.models[0];
    assert.ok(m, `${c}: a model`);
    const buffers = m.facts.buffers.reduce((s, b) => s + b.shape.reduce((x, y) => x * y, 1) * (b.dtype === 'int64' ? 8 : 4), 0);
    assert.deepEqual([m.facts.paramCount, buffers], truth[i], c);
  }
});

test('a replaced head reads model.fc.in_features; a model trained on a batch gets op-level activations, not "?"', async () => {
  const res = await analyze(`import torch
import torch.nn as nn
from torchvision import models

model = models.resnet18(pretrained=True)
model.fc = nn.Linear(model.fc.in_features, 10)
model = model.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(32, 3, 224, 224, device="cuda")
y = torch.randint(0, 10, (32,), device="cuda")
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
`, { device: 't4' });
  const m = res.models[0];
  assert.equal(m.facts.paramCount, 11_181_642); // torchvision resnet18 with a 10-class head (512·10 + 10)
  const t = m.estimate.phases.find((p) => p.phase === 'training')!;
  assert.equal(t.peakIsLowerBound, false, JSON.stringify(m.facts.unknowns));
  assert.ok(t.breakdown.some((c) => /saved for the backward, op by op/.test(c.label)));
});

// pytorch/examples imagenet/main.py: `model_names = sorted(name for name in models.__dict__ if name.islower() ...)`
// and `models.__dict__[args.arch]()`: "No model found" before.
test('models.__dict__[arch]() builds the named model; a name not modelled is an unknown, never another model', async () => {
  const prog = (arch: string) => `import torch
import torchvision.models as models

model_names = sorted(name for name in models.__dict__ if name.islower() and not name.startswith("__") and callable(models.__dict__[name]))
arch = "${arch}"
model = models.__dict__[arch]().cuda()
`;
  const r = await analyze(prog('resnet18'), { device: 't4' });
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['ResNet', 11_689_512]]);
  const other = await analyze(prog('efficientnet_b0'), { device: 't4' });
  assert.ok(other.models.every((m) => m.facts.paramCount === null));
});

// DETR-style backbones (facebookresearch/detr models/backbone.py): `IntermediateLayerGetter(getattr(torchvision.models,
// name)(...), return_layers)` keeps the children up to the last returned layer. "Not modelled" before: the whole
// backbone was missing from DETR's count.
test('IntermediateLayerGetter keeps the children up to the last returned layer', async () => {
  const code = `import torch
import torchvision
from torchvision.models._utils import IntermediateLayerGetter

backbone = getattr(torchvision.models, "resnet50")(replace_stride_with_dilation=[False, False, True])
body = IntermediateLayerGetter(backbone, return_layers={"layer2": "0", "layer3": "1"})
`;
  const py = pythonWithTorch();
  if (!py.exe) assert.fail(`no python3 with PyTorch; tried ${py.tried.join('; ')}`);
  const r = spawnSync(py.exe, ['-W', 'ignore', '-c', `${code}print(sum(p.numel() for p in body.parameters()))\n`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const res = await analyze(code, { device: 't4' });
  const body = res.models.find((m) => m.facts.name === 'IntermediateLayerGetter');
  assert.equal(body?.facts.paramCount, Number(r.stdout.trim()));
});

// Measured with the truth tracker (system python3 test/truth/run.py, torch 2.14 + torchvision 0.29, one 224² batch of
// 32, SGD momentum 0.9 with weight_decay 1e-4; CUDA's multi-tensor SGD step swapped in for AlexNet, whose peak is the
// step): MobileNetV2 2,553,029,508 B (ReLU6 in place: autograd keeps a copy of its input), AlexNet 997,009,284 B (the
// step's decayed copy of every gradient). Each within 0.01% here; the test keeps the two rules from regressing.
test('MobileNetV2 and AlexNet training peaks as measured', async () => {
  const prog = (arch: string) => `import torch
import torch.nn as nn
import torchvision.models as models

model = models.${arch}().cuda()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=1e-4)
images = torch.randn(32, 3, 224, 224, device="cuda")
target = torch.randint(0, 1000, (32,), device="cuda")
for i in range(2):
    output = model(images)
    loss = criterion(output, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
`;
  for (const [arch, measured] of [['mobilenet_v2', 2_553_029_508], ['alexnet', 997_009_284]] as const) {
    const r = await analyze(prog(arch), { device: 'a100-40gb' });
    const t = r.models[0].estimate.phases.find((p) => p.phase === 'training')!;
    assert.equal(t.peakIsLowerBound, false, arch);
    assert.ok(Math.abs(t.peakBytes! - measured) / measured < 0.001, `${arch}: ${t.peakBytes} vs ${measured}`);
  }
});
