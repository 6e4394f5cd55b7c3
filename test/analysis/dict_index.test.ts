// dictIndexOf (the lazily built key index of big dicts) must agree with a linear keyEq scan
// through appends, removals (splice), and keys of every kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dictIndexOf, keyEq } from '../../server/src/interp/interp';
import type { Value } from '../../server/src/interp/values';

const int = (v: number): Value => ({ t: 'int', v } as Value);
const s = (v: string): Value => ({ t: 'str', v } as Value);

test('dictIndexOf agrees with a linear scan through pushes, and splices', () => {
  const keys: Value[] = [];
  const check = (k: Value) => assert.equal(dictIndexOf(keys, k), keys.findIndex((x) => keyEq(x, k)), JSON.stringify(k));
  for (let i = 0; i < 200; i++) { keys.push(i % 3 ? int(i) : s(`k${i}`)); check(int(i)); check(s(`k${i}`)); }
  check({ t: 'none' } as Value);
  check({ t: 'float', v: 10 } as Value); // 10.0 == 10
  check({ t: 'bool', v: true } as Value); // True == 1
  keys.splice(50, 1);
  for (let i = 0; i < 200; i++) { check(int(i)); check(s(`k${i}`)); }
  keys.splice(10, 1);
  keys.push(int(1000));
  for (let i = 0; i < 200; i++) { check(int(i)); check(s(`k${i}`)); }
  check(int(1000));
  keys.splice(0, keys.length, int(7), s('a')); // emptied and refilled (same object count as before is not needed)
  for (let i = 0; i < 200; i++) check(int(i));
  check(s('a'));
});

test('a 10,000-key dict filled in a loop is read back by key', async () => {
  const { analyze } = await import('../../server/src/analysis/analyze');
  const r = await analyze('import torch\nd = {}\nfor i in range(10000):\n    d[i] = i * 2\nx = torch.zeros((d[9999], 2))\n', { device: 'a100-80gb', versions: {} });
  assert.ok(!r.unknowns.some((u) => /internal error/.test(u.reason)), JSON.stringify(r.unknowns));
});
