// The variant suite (issue 13): every rule with a fix, written the other ways
// people write it; each variant must fire (or stay quiet), and its fix must
// apply, parse, remove the finding and not raise the predicted peak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkVariant, type Family } from './check';
import { oom101 } from './oom101';
import { oom104 } from './oom104';
import { oom201 } from './oom201';
import { oom401 } from './oom401';
import { oom901 } from './oom901';
import { oom302 } from './oom302';
import { oom402 } from './oom402';
import { oom301 } from './oom301';
import { oom303 } from './oom303';
import { oom103 } from './oom103';
import { oom902 } from './oom902';

const FAMILIES: Family[] = [oom101(), oom103(), oom104(), oom201(), oom301(), oom302(), oom303(), oom401(), oom402(), oom901(), oom902()];

for (const f of FAMILIES) {
  test(`${f.code}: at least 20 variants`, () => {
    // Spellings marked as gaps run as todo tests and do not count.
    assert.ok(f.variants.filter((v) => v.fires && !v.gap).length >= 20, `${f.variants.filter((v) => v.fires && !v.gap).length} firing variants without gaps`);
    assert.equal(new Set(f.variants.map((v) => v.text)).size, f.variants.length, 'variants are distinct programs');
  });
  for (const v of f.variants) {
    test(`${f.code} ${v.fires ? 'fires' : 'quiet'}: ${v.name}`, { todo: v.gap }, async () => {
      assert.deepEqual(await checkVariant(f, v), []);
    });
  }
}
