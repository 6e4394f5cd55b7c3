// `**vars(args)` and `**args.__dict__` of an argparse Namespace expand to its attributes (argparse.py: the
// Namespace's __dict__ holds exactly the parser's destinations and set_defaults keys; vars() returns it).
// Once vars(args) is handed out alone, the program may change it through that dict: the next expansion is
// unknown, never the stale values. Fixture: test/fixtures/projects/argparse_vars/main.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const file = join(__dirname, '..', 'fixtures', 'projects', 'argparse_vars', 'main.py');

test('Net(**vars(args)) and Net(**args.__dict__) take the command-line defaults; after vars(args) is handed out, unknown', async () => {
  const r = await analyze(readFileSync(file, 'utf8'), { path: file, device: 'a100-80gb', versions: {} });
  // depth 2 + 1 = 3 × Linear(256, 256): 3 × (256·256 weight + 256 bias) (torch/nn/modules/linear.py).
  const n = 3 * (256 * 256 + 256);
  assert.deepEqual(r.models.map((m) => [m.facts.name, m.facts.paramCount]), [['Net', n], ['Net', n], ['Net', null]]);
});
