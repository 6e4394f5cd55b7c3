// torchvision data sets and transforms (server/src/frameworks/torch/vision_data.ts): the batch a DataLoader yields
// over them reaches the model, so the step's activations can be traced. Each case's batch is checked against real
// torchvision: the same transforms over `datasets.FakeData` with the data set's native image size (the data sets
// themselves need files this machine does not have), first batch's bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { analyze } from '../../server/src/analysis/analyze';
import { pythonWithTorch } from '../corpus/compare';

interface Case { dataset: string; native: [number, number, number]; transform: string; batch: number }

const CASES: Case[] = [
  { dataset: 'datasets.MNIST("data", train=True, download=True, transform=tf)', native: [1, 28, 28], transform: 'transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])', batch: 64 },
  // transform passed by position (root, train, transform).
  { dataset: 'datasets.MNIST("data", True, tf)', native: [1, 28, 28], transform: 'transforms.Compose([transforms.CenterCrop(20), transforms.ToTensor()])', batch: 5 },
  { dataset: 'datasets.FashionMNIST("data", transform=tf)', native: [1, 28, 28], transform: 'transforms.Compose([transforms.Resize(32), transforms.Grayscale(3), transforms.ToTensor()])', batch: 10 },
  { dataset: 'datasets.CIFAR10(root="data", train=True, download=True, transform=tf)', native: [3, 32, 32], transform: 'transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))])', batch: 128 },
  { dataset: 'datasets.CIFAR100("data", transform=tf)', native: [3, 32, 32], transform: 'transforms.Compose([transforms.Resize((48, 40)), transforms.PILToTensor()])', batch: 8 },
  { dataset: 'datasets.STL10("data", split="train", transform=tf)', native: [3, 96, 96], transform: 'transforms.Compose([transforms.CenterCrop(64), transforms.ToTensor()])', batch: 4 },
  // An image folder: the files decide the size (any will do for torchvision); the crop fixes it.
  { dataset: 'datasets.ImageFolder("train", transform=tf)', native: [3, 375, 500], transform: 'transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor()])', batch: 32 },
  // Resize of a non-square image: the shorter side becomes 100, the longer int(100 * 500 / 375) = 133.
  { dataset: 'datasets.FakeData(size=64, image_size=(3, 375, 500), transform=tf)', native: [3, 375, 500], transform: 'transforms.Compose([transforms.Resize(100), transforms.ToTensor()])', batch: 2 },
];

const program = (c: Case) => `import torch
import torch.nn as nn
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(${c.native[0] === 1 && !/Grayscale\(3\)/.test(c.transform) ? 1 : 3}, 8, 1)

    def forward(self, x):
        return self.conv(x)


tf = ${c.transform}
ds = ${c.dataset}
loader = torch.utils.data.DataLoader(ds, batch_size=${c.batch}, shuffle=True)
model = Net().cuda()
model.eval()
with torch.no_grad():
    for x, y in loader:
        out = model(x.cuda().float())
`;

test('torchvision data sets and transforms: the batch oomlens feeds the model is the one torchvision makes', async () => {
  const py = pythonWithTorch();
  if (!py.exe) assert.fail(`no python3 with PyTorch; tried ${py.tried.join('; ')}`);
  for (const c of CASES) {
    const real = `import torch\nfrom torchvision import datasets, transforms\ntf = ${c.transform}\n` +
      `ds = datasets.FakeData(size=${c.batch}, image_size=(${c.native.join(', ')}), num_classes=10, transform=tf)\n` +
      `x, y = next(iter(torch.utils.data.DataLoader(ds, batch_size=${c.batch})))\nprint(x.numel(), str(x.dtype), list(x.shape))`;
    const r: SpawnSyncReturns<string> = spawnSync(py.exe, ['-c', real], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const [numel] = r.stdout.trim().split(' ');
    const res = await analyze(program(c), { device: 'a100-80gb' });
    const inf = res.models[0]?.estimate.phases.find((p) => p.phase === 'inference');
    assert.ok(inf, `${c.dataset}: an inference phase`);
    // The program feeds `x.cuda().float()`: float32, whatever the loader's dtype.
    const input = inf.breakdown.find((b) => b.label === 'forward input (float32)');
    assert.equal(input?.bytes, 4 * Number(numel), `${c.dataset} with ${c.transform}: ${r.stdout.trim()}; oomlens ${JSON.stringify(inf.breakdown.map((b) => [b.label, b.bytes]))}`);
    assert.equal(inf.peakIsLowerBound, false, c.dataset);
  }
});

test('an image folder with no transform that fixes the size: the batch is unknown, not a guess', async () => {
  const res = await analyze(program({ dataset: 'datasets.ImageFolder("train", transform=tf)', native: [3, 0, 0], transform: 'transforms.Compose([transforms.Resize(256), transforms.ToTensor()])', batch: 8 }), { device: 'a100-80gb' });
  const inf = res.models[0]?.estimate.phases.find((p) => p.phase === 'inference');
  assert.ok(!inf || inf.peakIsLowerBound || inf.peakBytes === null);
  assert.ok(!inf?.breakdown.some((b) => /forward input \(float32\)/.test(b.label)));
});
