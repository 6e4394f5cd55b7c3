// A model whose layers come from a workspace text file (a Darknet-style .cfg): open().read() / readlines() of a
// workspace file, string literals' escape sequences ("\n" is a line end), str.strip / rstrip / split, list.pop(0)
// (the first item, not the last), dict.update with pairs, itertools.chain, and Sequential.add_module then s[0].
// Fixture: test/fixtures/projects/text_cfg (tower.cfg has CRLF line ends, read as "\n" in text mode).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const dir = join(__dirname, '..', 'fixtures', 'projects', 'text_cfg');

test('a network read from a text config file is counted', async () => {
  const file = join(dir, 'model.py');
  const r = await analyze(readFileSync(file, 'utf8'), { path: file, workspaceRoot: dir, device: 'a100-80gb', versions: {} });
  // Linear(3·32, 64) + Linear(64, 16) + Linear(16, 4 + 8 + 12): in·out + out each (torch/nn/modules/linear.py).
  const linear = (i: number, o: number) => i * o + o;
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount, m.facts.unknowns.map((u) => u.reason)]), [['Tower', linear(96, 64) + linear(64, 16) + linear(16, 24), []]]);
});
