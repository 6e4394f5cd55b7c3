// Generated Python for the benchmarks and the fuzzer: a PyTorch model file
// of about `lines` lines (blocks with a forward, helper functions with
// loops, an evaluation loop and a training loop at the end, so every phase
// runs), and a list literal of `items` integers.

export function modelFile(lines: number): string {
  const out = ['import torch', 'import torch.nn as nn', ''];
  let i = 0;
  const tail = 34;
  while (out.length < lines - tail) {
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
    out.push(`def helper${i}(xs):`);
    out.push('    total = 0');
    out.push('    for x in xs:');
    out.push('        total = total + x * 2');
    out.push('    return total');
    out.push('');
    i++;
  }
  out.push('class Model(nn.Module):');
  out.push('    def __init__(self):');
  out.push('        super().__init__()');
  out.push(`        self.blocks = nn.ModuleList([Block${Math.max(0, i - 1)}() for _ in range(32)])`);
  out.push('        self.emb = nn.Embedding(32000, 4096)');
  out.push('        self.head = nn.Linear(4096, 32000, bias=False)');
  out.push('');
  out.push('    def forward(self, x):');
  out.push('        h = self.emb(x)');
  out.push('        for b in self.blocks:');
  out.push('            h = b(h)');
  out.push('        return self.head(h)');
  out.push('');
  out.push('model = Model().cuda()');
  out.push('opt = torch.optim.AdamW(model.parameters(), lr=1e-4)');
  out.push('x = torch.randint(0, 32000, (8, 512), device="cuda")');
  out.push('');
  out.push('with torch.no_grad():');
  out.push('    for _ in range(4):');
  out.push('        logits = model(x)');
  out.push('');
  out.push('for step in range(1000):');
  out.push('    logits = model(x)');
  out.push('    loss = torch.nn.functional.cross_entropy(logits.view(-1, 32000), x.view(-1))');
  out.push('    loss.backward()');
  out.push('    opt.step()');
  out.push('    opt.zero_grad()');
  while (out.length < lines) out.push('');
  return out.join('\n');
}

export function bigList(items: number): string {
  return `xs = [${Array.from({ length: items }, (_, i) => String(i)).join(', ')}]\n`;
}
