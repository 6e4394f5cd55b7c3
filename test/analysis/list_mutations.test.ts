// In-place list and dict changes, and math.log with a base, as real model code uses them to size layers.
// Found on public repositories (docs/accuracy.md): AntixK/PyTorch-VAE reverses `hidden_dims` in place before
// building its decoder (`hidden_dims.reverse()`): the reversal was ignored and the VAE's count was confidently
// wrong (8,442,557 for 6,076,637); rosinality/stylegan2-pytorch and SRGAN-PyTorch count blocks with
// `int(math.log(size, 2))`: the base was ignored (natural log), and the counts came out 25–40% low, "fits".
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { analyze } from '../../server/src/analysis/analyze';

const lin = (i: number, o: number) => i * o + o;

async function count(body: string): Promise<number | null> {
  const r = await analyze(`import math
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
${body.split('\n').map((l) => `        ${l}`).join('\n')}

model = Net().cuda()
`, { device: 't4' });
  assert.equal(r.models.length, 1);
  return r.models[0].facts.paramCount;
}

it('list.reverse() and list.sort() reorder in place', async () => {
  assert.equal(await count('d = [512, 256, 32]\nd.reverse()\nself.l = nn.Linear(d[-1], d[0])'), lin(512, 32));
  assert.equal(await count('d = [32, 512, 256]\nd.sort()\nself.l = nn.Linear(d[-1], d[0])'), lin(512, 32));
  assert.equal(await count('d = [32, 512, 256]\nd.sort(reverse=True)\nself.l = nn.Linear(d[0], d[-1])'), lin(512, 32));
  // A decoder built from the reversed list, as the VAE does.
  assert.equal(await count('h = [32, 64, 128]\nself.enc = nn.ModuleList([nn.Linear(a, a) for a in h])\nh.reverse()\nself.dec = nn.ModuleList([nn.Linear(h[i], h[i + 1]) for i in range(len(h) - 1)])'),
    lin(32, 32) + lin(64, 64) + lin(128, 128) + lin(128, 64) + lin(64, 32));
});

it('list.sort() by keys it cannot order leaves the items unknown, never the old order', async () => {
  assert.equal(await count('from cfg import key\nd = [32, 512, 256]\nd.sort(key=key)\nself.l = nn.Linear(d[-1], d[0])'), null);
});

it('del xs[i], del xs[a:b], del d[k]', async () => {
  assert.equal(await count('d = [1024, 32]\ndel d[0]\nself.l = nn.Linear(d[0], d[0])'), lin(32, 32));
  assert.equal(await count('d = [8, 16, 32, 64]\ndel d[1:3]\nself.l = nn.Linear(d[0], d[1])'), lin(8, 64));
  assert.equal(await count('d = [8, 16, 32, 64]\ndel d[-1]\nself.l = nn.Linear(d[-1], len(d))'), lin(32, 3));
  assert.equal(await count('c = {"h": 64, "w": 32}\ndel c["h"]\nself.l = nn.Linear(c.get("h", 8), c["w"])'), lin(8, 32));
});

it('list.clear / copy / count, dict.popitem / clear', async () => {
  assert.equal(await count('d = [4, 4, 8]\ne = d.copy()\nd.clear()\nself.l = nn.Linear(len(e), e.count(4) + len(d))'), lin(3, 2));
  assert.equal(await count('c = {"a": 16, "b": 32}\nk, v = c.popitem()\nself.l = nn.Linear(v, len(c))'), lin(32, 1));
});

it('math.log(x, base) and math.log10 (CPython: log(x) / log(base) in doubles)', async () => {
  assert.equal(await count('self.b = nn.Sequential(*[nn.Linear(64, 64) for _ in range(int(math.log(8, 2)))])'), 3 * lin(64, 64));
  assert.equal(await count('self.b = nn.Sequential(*[nn.Linear(64, 64) for _ in range(int(math.log(256, 2)) - 2)])'), 6 * lin(64, 64));
  // Python: int(math.log(1000, 10)) == 2 (2.9999999999999996), int(math.log10(1000)) == 3.
  assert.equal(await count('self.b = nn.Sequential(*[nn.Linear(64, 64) for _ in range(int(math.log(1000, 10)))])'), 2 * lin(64, 64));
  assert.equal(await count('self.b = nn.Sequential(*[nn.Linear(64, 64) for _ in range(int(math.log10(1000)))])'), 3 * lin(64, 64));
});

// clovaai/stargan-v2 (core/model.py): `self.unshared += [nn.Sequential(...)]` on an nn.ModuleList was "operator + on
// ModuleList and list", and the whole model's size unknown. ModuleList.__iadd__ extends it in place
// (torch/nn/modules/container.py); a list's `+=` extends the list every name holding it sees.
it('ModuleList += [modules] extends it; a list += is in place', async () => {
  assert.equal(await count('self.unshared = nn.ModuleList()\nfor _ in range(3):\n    self.unshared += [nn.Sequential(nn.Linear(64, 64), nn.ReLU())]'), 3 * lin(64, 64));
  assert.equal(await count('d = [16]\ne = d\ne += [32, 64]\nself.l = nn.Linear(d[-1], len(d))'), lin(64, 3));
});

// clovaai/stargan-v2 keeps its networks in a munch.Munch (a dict whose keys are attributes): `nets.generator`
// was unknown, and so was every model and step after it.
it('munch.Munch / EasyDict: keys read as attributes', async () => {
  assert.equal(await count('from munch import Munch\nnets = Munch(enc=nn.Linear(64, 32), dec=nn.Linear(32, 64))\nself.enc = nets.enc\nself.dec = nets["dec"]'), lin(64, 32) + lin(32, 64));
  assert.equal(await count('from easydict import EasyDict\ncfg = EasyDict({"width": 48})\nself.l = nn.Linear(cfg.width, 8)'), lin(48, 8));
});

// openai/improved-diffusion keeps the defaults a builder takes: `for k in res.copy().keys(): if k not in
// inspect.getfullargspec(builder)[0]: del res[k]`. With `del d[k]` followed and getfullargspec unknown, every key was
// deleted on the assumed branch and the SuperResModel's count became unknown.
it('inspect.getfullargspec(f)[0]: the names of f\'s positional-or-keyword parameters', async () => {
  assert.equal(await count(`import inspect

def build(width, depth=2, *args, scale=1, **kw):
    return None

res = {"width": 32, "depth": 3, "other": 7}
names = inspect.getfullargspec(build)[0]
for k in res.copy().keys():
    if k not in names:
        del res[k]
self.l = nn.Linear(res["width"], res["width"] * res["depth"] + len(res))`.split('\n').join('\n')), lin(32, 32 * 3 + 2));
});
