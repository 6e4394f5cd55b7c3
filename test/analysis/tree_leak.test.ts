// Each analysis parses a tree-sitter tree in wasm memory, which JavaScript's
// collector does not see: analyze() must delete it. Without the delete, the
// 100 analyses below keep ~100 trees of a 6,000-line file (over 150 MB of
// RSS); with it the growth stays within allocator noise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';

test('repeated analyses do not keep their parse trees', async () => {
  const text = Array.from({ length: 6000 }, (_, i) => `x${i} = (${i}, [${i}, ${i} + 1], {"k": ${i}})`).join('\n');
  const run = async (n: number) => { for (let i = 0; i < n; i++) await analyze(`${text}\n# ${i}\n`, { device: 'a100-80gb', versions: {} }); };
  await run(10); // warm up: the wasm heap grows once to hold one tree
  const before = process.memoryUsage().rss;
  await run(100);
  const grewMb = (process.memoryUsage().rss - before) / 2 ** 20;
  assert.ok(grewMb < 60, `RSS grew ${grewMb.toFixed(0)} MiB over 100 analyses`);
});
