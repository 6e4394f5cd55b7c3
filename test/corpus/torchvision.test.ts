// Real-world PyTorch code as written upstream: the model definitions of the
// installed torchvision (read from its package directory at test time, not
// copied into this repository) are analysed with one construction line
// appended, and compared with what PyTorch builds from the same package on the
// meta device. Their relative imports (`from .._utils import ...`) cannot be
// followed, so some models are honestly unknown; none may get a wrong count,
// and architectures whose files need nothing from those imports must be exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';
import { pythonWithTorch } from './compare';

interface Case { file: string; construct: string; cls: string; mustBeExact: boolean }

// The builder functions (resnet50(), vgg16_bn(), ...) pass through `Weights.verify(weights)` and
// `_ovewrite_named_param(kwargs, ...)` from modules that are not followed, so they are honestly
// unknown; the classes themselves, constructed with the builders' arguments, must be exact.
const CASES: Case[] = [
  { file: 'resnet.py', construct: 'ResNet(Bottleneck, [3, 4, 6, 3])', cls: 'ResNet', mustBeExact: true },
  { file: 'resnet.py', construct: 'ResNet(Bottleneck, [3, 4, 6, 3], groups=32, width_per_group=4)', cls: 'ResNet', mustBeExact: true },
  { file: 'resnet.py', construct: 'resnext50_32x4d()', cls: 'ResNet', mustBeExact: false },
  { file: 'vgg.py', construct: 'VGG(make_layers(cfgs["D"], batch_norm=True))', cls: 'VGG', mustBeExact: true },
  { file: 'vgg.py', construct: 'vgg16_bn()', cls: 'VGG', mustBeExact: false },
  { file: 'alexnet.py', construct: 'AlexNet()', cls: 'AlexNet', mustBeExact: true },
  { file: 'densenet.py', construct: 'DenseNet(32, (6, 12, 24, 16), 64)', cls: 'DenseNet', mustBeExact: true },
  { file: 'squeezenet.py', construct: 'SqueezeNet("1_1")', cls: 'SqueezeNet', mustBeExact: true },
  { file: 'vision_transformer.py', construct: 'vit_b_16()', cls: 'VisionTransformer', mustBeExact: false },
  { file: 'mobilenetv2.py', construct: 'mobilenet_v2()', cls: 'MobileNetV2', mustBeExact: false },
  { file: 'convnext.py', construct: 'convnext_tiny()', cls: 'ConvNeXt', mustBeExact: false },
  { file: 'swin_transformer.py', construct: 'swin_t()', cls: 'SwinTransformer', mustBeExact: false },
  { file: 'efficientnet.py', construct: 'efficientnet_b0()', cls: 'EfficientNet', mustBeExact: false },
];

test('installed torchvision models: never a wrong parameter count; the self-contained ones exact', async (t) => {
  const py = pythonWithTorch();
  if (!py.exe) assert.fail(`no python3 with PyTorch; tried ${py.tried.join('; ')}`);
  const prog = `
import importlib, json, os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, ${JSON.stringify(__dirname)})
import torchvision
from torch_truth import meta_device
out = {"dir": os.path.join(os.path.dirname(torchvision.__file__), "models"), "version": torchvision.__version__, "counts": []}
for case in json.load(sys.stdin):
    ns = dict(vars(importlib.import_module("torchvision.models." + case["file"][:-3])))
    with meta_device():
        x = eval(case["construct"], ns)
    out["counts"].append([sum(p.numel() for p in x.parameters()), sum(b.numel() for b in x.buffers()), type(x).__name__])
print(json.dumps(out))
`;
  const r = spawnSync(py.exe!, ['-c', prog], { input: JSON.stringify(CASES), encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0 && /No module named 'torchvision'/.test(r.stderr)) assert.fail('torchvision is not installed next to torch (Debian python3-torchvision)');
  assert.equal(r.status, 0, r.stderr);
  const truth = JSON.parse(r.stdout) as { dir: string; version: string; counts: [number, number, string][] };
  for (const [i, c] of CASES.entries()) {
    await t.test(`torchvision ${truth.version} ${c.file}: ${c.construct}`, async () => {
      const [params, buffers, cls] = truth.counts[i];
      assert.equal(cls, c.cls);
      const path = join(truth.dir, c.file);
      const text = `${readFileSync(path, 'utf8')}\n\nmodel = ${c.construct}\n`;
      const res = await analyze(text, { device: 'a100-80gb', versions: {} });
      const m = res.models.find((x) => x.facts.name === c.cls);
      assert.ok(m, `no ${c.cls} reported: ${res.models.map((x) => x.facts.name).join(', ')}`);
      const predicted = m.facts.paramCount;
      if (predicted === null) {
        assert.ok(m.facts.unknowns.length > 0, 'unknown count without a reason');
        assert.ok(!c.mustBeExact, `expected exact ${params}, got unknown: ${m.facts.unknowns.slice(0, 3).map((u) => u.reason).join('; ')}`);
        return;
      }
      assert.equal(predicted, params, 'parameters');
      assert.equal(m.facts.buffers.reduce((n, b) => n + b.shape.reduce((x, y) => x * y, 1), 0), buffers, 'buffers');
    });
  }
});
