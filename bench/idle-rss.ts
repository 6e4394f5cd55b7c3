// Idle-RSS probe (npm run bench:idle-rss [-- N]; not part of npm test): starts the built server
// (dist/server.js) as the extension does, analyses a small document, then one that builds N models
// (default 13,000, past the analysis's model cap), closes it, and prints the server's RSS at idle
// before and twice after, with the worker replacements the server logged. OOMLENS_IDLE_RSS_SMAPS=dir
// writes /proc/<pid>/smaps at each point; OOMLENS_IDLE_RSS_TRIM=1 then calls malloc_trim(0) in the
// server through gdb (when installed) and prints RSS again: memory that call returns was freed but
// kept resident by malloc (docs/performance.md).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspClient, ROOT, treeRssMb } from '../test/lsp/harness';

const n = Number(process.argv[2] ?? 13000);
const smaps = process.env.OOMLENS_IDLE_RSS_SMAPS;
void (async () => {
  const c = new LspClient();
  await c.initialize();
  const rss = () => treeRssMb(c.proc.pid!);
  const idle = async (label: string) => {
    await new Promise((r) => setTimeout(r, 5000));
    console.log(`${label}: RSS ${rss().toFixed(0)} MB`);
    if (smaps) writeFileSync(join(smaps, `smaps-${label}.txt`), readFileSync(`/proc/${c.proc.pid}/smaps`, 'utf8'));
  };
  const small = c.open(join(tmpdir(), 'oomlens-idle-rss-small.py'), readFileSync(join(ROOT, 'examples/gpt2_train/train.py'), 'utf8'));
  await c.diagnostics(small, 30_000);
  c.closeDocument(small);
  await idle('start');
  const lines = ['import torch.nn as nn', 'class Classifier(nn.Module):', '    def __init__(self):', '        super().__init__()', '        self.fc = nn.Linear(128, 10)', '    def forward(self, x):', '        return self.fc(x)'];
  for (let i = 0; i < n; i++) lines.push(`m${i} = Classifier()`);
  const t = Date.now();
  const big = c.open(join(tmpdir(), 'oomlens-idle-rss-big.py'), lines.join('\n') + '\n');
  await c.diagnostics(big, 120_000);
  console.log(`${n} models analysed in ${Date.now() - t} ms`);
  c.closeDocument(big);
  await idle('after');
  await idle('after-10s');
  if (process.env.OOMLENS_IDLE_RSS_TRIM) {
    spawnSync('gdb', ['-p', String(c.proc.pid), '-batch', '-ex', 'call (int)malloc_trim(0)'], { encoding: 'utf8' });
    await idle('after-malloc_trim');
  }
  console.log(c.log.split('\n').filter((l) => /worker replaced|did not stop/.test(l)).join('\n'));
  await c.close();
  process.exit(0);
})();
