// The program's own class decorators run, as Python runs them: a model registry filled by `@register_model(name=...)`
// and read by `get_model(name)` (yang-song/score_sde's models/utils.py; docs/accuracy.md "Held-out round 11") left
// the registry empty, so the program had "No model found" and no unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const registry = `import torch.nn as nn

_MODELS = {}

def register_model(cls=None, *, name=None):
    def _register(cls):
        local_name = cls.__name__ if name is None else name
        if local_name in _MODELS:
            raise ValueError(f"Already registered model with name: {local_name}")
        _MODELS[local_name] = cls
        return cls
    if cls is None:
        return _register
    return _register(cls)

def get_model(name):
    return _MODELS[name]

def traced(cls):
    cls.traced = True
    return cls

@register_model(name="wide")
class Wide(nn.Module):
    def __init__(self, width=1024):
        super().__init__()
        self.a = nn.Linear(width, width)
        self.b = nn.Linear(width, 10)

@traced
@register_model
class Narrow(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.a = nn.Linear(width, width)
        self.b = nn.Linear(width, 10)
`;

test('a registry decorator with and without arguments fills the registry a builder reads', async () => {
  const r = await analyze(`${registry}
model = get_model("wide")(width=512)
small = get_model("Narrow")()
assert Narrow.traced
`, { device: 't4', versions: {} });
  const byName = new Map(r.models.map((m) => [m.facts.name, m.facts.paramCount]));
  assert.equal(byName.get('Wide'), 512 * 512 + 512 + 512 * 10 + 10);
  assert.equal(byName.get('Narrow'), 16 * 16 + 16 + 16 * 10 + 10);
  assert.ok(!r.unknowns.some((u) => /raises here/.test(u.reason)), JSON.stringify(r.unknowns));
});

test('a decorator that returns something other than a class leaves the name bound to the class', async () => {
  const r = await analyze(`import torch.nn as nn

def opaque(cls):
    return object()

@opaque
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(64, 64)
        self.b = nn.Linear(64, 2)

model = Net()
`, { device: 't4', versions: {} });
  assert.equal(r.models[0]?.facts.paramCount, 64 * 64 + 64 + 64 * 2 + 2);
});
