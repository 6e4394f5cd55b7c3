// Latency benchmark (npm run bench; not part of npm test): opens a generated
// 2,000-line PyTorch model file in the bundled server over stdio, makes 50
// single-character edits one after another, and reports the time from each
// didChange to the publishDiagnostics for that version, p50 / p95. The
// figure includes the server's debounce delay, as a user would feel it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspClient } from '../test/lsp/harness';

function generate(lines: number): string {
  const out = ['import torch', 'import torch.nn as nn', ''];
  let i = 0;
  while (out.length < lines - 22) {
    out.push(`class Block${i}(nn.Module):`);
    out.push('    def __init__(self, d: int = 4096):');
    out.push('        super().__init__()');
    out.push('        self.q = nn.Linear(d, d, bias=False)');
    out.push('        self.k = nn.Linear(d, d, bias=False)');
    out.push('        self.up = nn.Linear(d, 4 * d)');
    out.push('        self.down = nn.Linear(4 * d, d)');
    out.push('        self.norm = nn.LayerNorm(d)');
    out.push('');
    out.push('    def forward(self, x):');
    out.push('        return self.down(torch.relu(self.up(self.norm(x)))) + x');
    out.push('');
    i++;
  }
  out.push('class Model(nn.Module):');
  out.push('    def __init__(self):');
  out.push('        super().__init__()');
  out.push(`        self.blocks = nn.ModuleList([Block${Math.max(0, i - 1)}() for _ in range(32)])`);
  out.push('        self.emb = nn.Embedding(32000, 4096)');
  out.push('');
  out.push('    def forward(self, x):');
  out.push('        return self.emb(x)');
  out.push('');
  out.push('model = Model().cuda()');
  while (out.length < lines) out.push('');
  return out.join('\n');
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

void (async () => {
  const c = new LspClient();
  // A T4 makes the generated model not fit, so every edit produces diagnostics.
  c.settings = { target: { device: 't4' } };
  await c.initialize();
  const text = generate(2000);
  const d = c.open(join(mkdtempSync(join(tmpdir(), 'oomlens-bench-')), 'model.py'), text);
  const t0 = performance.now();
  const first = await c.diagnostics(d, 60_000);
  console.log(`open → diagnostics: ${(performance.now() - t0).toFixed(0)} ms (${first.length} diagnostics, ${text.split('\n').length} lines)`);
  const samples: number[] = [];
  for (let i = 0; i < 50; i++) {
    // Alternate typing a digit into the embedding size, as a user would edit a hyperparameter.
    const next = d.text.replace(/nn\.Embedding\(32000, \d+\)/, `nn.Embedding(32000, ${4096 + (i % 2)})`);
    const t = performance.now();
    c.change(d, next);
    await c.diagnostics(d, 60_000);
    samples.push(performance.now() - t);
  }
  console.log(`edit → publishDiagnostics over ${samples.length} edits: p50 ${pct(samples, 50).toFixed(0)} ms, p95 ${pct(samples, 95).toFixed(0)} ms, max ${Math.max(...samples).toFixed(0)} ms (includes the 120 ms debounce)`);
  await c.close();
})();
