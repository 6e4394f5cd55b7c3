// flax.linen.merge_param (flax/linen/module.py): the one of the attribute and the call argument that is set. A
// branch on it decides which layers exist; the count is checked against flax (test/python/build_count.py).
// Fixture: test/fixtures/robust/flax_merge_param.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { countedBoth } from '../python/venv';

const file = join(__dirname, '..', 'fixtures', 'robust', 'flax_merge_param.py');

test('merge_param picks the value that is set: the branch it decides is followed, count as flax gives it', async () => {
  const { oomlens, framework } = await countedBoth(file);
  assert.deepEqual(oomlens, [['Block', framework, 0]]);
});
