// Runs every annotated fixture under test/rules/fixtures: expected findings
// must appear (false negatives fail), nothing else may (false positives fail),
// and stated peaks must hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFixture } from './harness';

const dir = join(__dirname, 'fixtures');
for (const file of readdirSync(dir).filter((f) => f.endsWith('.py')).sort()) {
  test(`fixture ${file}`, async () => {
    const text = readFileSync(join(dir, file), 'utf8');
    const r = await runFixture(text);
    assert.deepEqual(r.falseNegatives, [], 'false negatives');
    assert.deepEqual(r.falsePositives, [], 'false positives');
    assert.deepEqual(r.peakFailures, [], 'peak assertions');
  });
}
