// Two patterns of research training scripts, each with a fixture written for it:
// - a config held in a program's own dict subclass with attribute access (`class CfgNode(dict)` with
//   `__getattr__` returning `self[name]`, `AttrDict` with `__getattr__ = dict.__getitem__`): its values were unknown,
//   so every layer sized from the config was;
// - the training run started with `torch.multiprocessing.spawn(main_worker, nprocs=N, args=(…))`, which calls
//   `main_worker(i, *args)` in each process (torch/multiprocessing/spawn.py): it was not followed, "no model found".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

async function model(src: string, name: string) {
  const r = await analyze(src, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === name);
  assert.ok(m, `model ${name} not found; unknowns ${JSON.stringify(r.unknowns)}`);
  return m;
}

const CFG = `import torch
import torch.nn as nn


class CfgNode(dict):
    def __init__(self, init_dict=None, key_list=None):
        init_dict = {} if init_dict is None else init_dict
        for k, v in init_dict.items():
            if type(v) is dict:
                init_dict[k] = CfgNode(v)
        super(CfgNode, self).__init__(init_dict)

    def __getattr__(self, name):
        if name in self:
            return self[name]
        else:
            raise AttributeError(name)

    def __setattr__(self, name, value):
        self[name] = value


class AttrDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def load():
    raw = {"TRAIN": {"classes": 150, "width": 512}, "resume": None}
    cfg = {}
    for key in raw:
        cfg[key] = raw[key]
    return CfgNode(cfg)
`;

test('a dict subclass with attribute access gives its values', async () => {
  // Linear(512, 150) + Linear(150, 64) = 512·150 + 150 + 150·64 + 64 = 86,614 parameters.
  const m = await model(`${CFG}

cfg = load()
extra = AttrDict(hidden=64)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(cfg.TRAIN.width, cfg["TRAIN"]["classes"])
        self.b = nn.Linear(cfg.TRAIN.classes, extra.hidden)
        if cfg.resume:
            self.c = nn.Linear(1000, 1000)
        if "TRAIN" in cfg and extra.hidden == 64:
            self.d = nn.Identity()

net = Net()
`, 'Net');
  assert.equal(m.facts.paramCount, 86_614);
  assert.ok(!(m.estimate.unknowns ?? []).length, JSON.stringify(m.estimate.unknowns));
});

test('a key the dict subclass does not hold is not made up', async () => {
  const m = await model(`${CFG}

cfg = load()
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(cfg.missing, 10)

net = Net()
`, 'Net');
  assert.equal(m.facts.paramCount, null);
});

const SPAWN = `import torch
import torch.nn as nn
import torch.multiprocessing as mp


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return self.fc(x)


def main_worker(gpu, ngpus, width):
    torch.cuda.set_device(gpu)
    model = Net(width).cuda(gpu)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(10):
        x = torch.randn(32, width, device="cuda")
        loss = model(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    ngpus = 8
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, 1024))


main()
`;

test('torch.multiprocessing.spawn runs the worker of process 0 with its args', async () => {
  const m = await model(SPAWN, 'Net');
  // Linear(1024, 1024): 1024·1024 + 1024 parameters.
  assert.equal(m.facts.paramCount, 1024 * 1024 + 1024);
  assert.ok(m.estimate.phases.some((p) => p.phase === 'training'));
});
