// Each analysis parses a tree-sitter tree in wasm memory, which JavaScript's
// collector does not see (the wasm memory only grows): analyze() must delete
// every tree it parses. Counted directly: trees made by the parser against
// trees deleted, over analyses of valid, broken and over-size files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Parser, Tree } from 'web-tree-sitter';
import { analyze } from '../../server/src/analysis/analyze';

test('analyze() deletes every tree it parses', async () => {
  let made = 0, deleted = 0;
  const parse = Parser.prototype.parse, del = Tree.prototype.delete;
  Parser.prototype.parse = function (this: Parser, ...a: Parameters<Parser['parse']>) { const t = parse.apply(this, a); if (t) made++; return t; };
  Tree.prototype.delete = function (this: Tree) { deleted++; return del.call(this); };
  try {
    const texts = [
      'import torch\nx = torch.zeros((1024, 1024))\n',
      'def f(:\n  x = [\n',
      'import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.l = nn.Linear(8, 8)\nm = M()\n',
    ];
    for (const t of texts) await analyze(t, { device: 'a100-80gb', versions: {} });
  } finally {
    Parser.prototype.parse = parse;
    Tree.prototype.delete = del;
  }
  assert.ok(made >= 3, `the parser was not observed (${made} trees)`);
  assert.equal(deleted, made, `${made - deleted} of ${made} trees left undeleted`);
});
