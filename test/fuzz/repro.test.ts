// Replays every reproduction the fuzzer kept (test/fuzz/repro/*.py): each
// must analyse without an internal error, within the analyzer's own budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../server/src/analysis/analyze';

const dir = join(__dirname, 'repro');
for (const f of readdirSync(dir).filter((x) => x.endsWith('.py')).sort()) {
  test(`fuzz reproduction ${f}`, async () => {
    const r = await analyze(readFileSync(join(dir, f), 'utf8'), { device: 'a100-80gb', versions: {} });
    assert.ok(!r.unknowns.some((u) => /internal error|call stack/.test(u.reason)), JSON.stringify(r.unknowns));
  });
}
