// dict() of a value oomlens cannot read is unknown, never an empty dict (which would drop every key a
// model reads from it); a dict subclass built from one stays unknown too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

const SRC = `
import sys
import torch.nn as nn

class AttrDict(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self

class Net(nn.Module):
    def __init__(self, h):
        super().__init__()
        self.fc = nn.Linear(h.get("width", 4), 2)

class Plain(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d.get("width", 4), 2)

h = AttrDict(dict(sys.modules))  # a mapping oomlens does not know the content of
model = Net(h)
plain = Plain(dict(sys.modules))
`;

test('dict() of an unknown mapping is unknown: the model that reads it has no count', async () => {
  const r = await analyze(SRC, { device: 'a100-80gb', versions: {} });
  const m = r.models.find((x) => x.facts.name === 'Net');
  assert.ok(m, r.models.map((x) => x.facts.name).join(', '));
  assert.equal(m.facts.paramCount, null, 'a default read from an unknown mapping must not give a count');
  const p = r.models.find((x) => x.facts.name === 'Plain');
  assert.ok(p, r.models.map((x) => x.facts.name).join(', '));
  assert.equal(p.facts.paramCount, null, 'dict() of an unknown mapping is not an empty dict');
});
