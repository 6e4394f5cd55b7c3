// Trees an analysis parses for itself (the constructions declared in
// pyproject.toml, [[tool.oomlens.models]]) live in tree-sitter's wasm memory,
// which JavaScript's collector does not see: they must be deleted however the
// run ends. A run cancelled by a newer keystroke kept them for good, and the
// cancellation was reported as a problem of the declaration instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, Tree } from 'web-tree-sitter';
import { analyze, initParser } from '../../server/src/analysis/analyze';
import { Cancelled } from '../../server/src/interp/interp';

const ROOT = join(__dirname, '../..');
const file = join(ROOT, 'test/fixtures/projects/declared/llama/model.py');

test('a run cancelled while it runs a declared construction deletes the construction\'s tree', async () => {
  await initParser();
  const declared: Tree[] = [];
  const deleted = new Set<Tree>();
  const parse = Parser.prototype.parse;
  const del = Tree.prototype.delete;
  Parser.prototype.parse = function (this: Parser, ...args: Parameters<Parser['parse']>) {
    const t = parse.apply(this, args);
    if (t && typeof args[0] === 'string' && args[0].includes('Transformer(ModelArgs(')) declared.push(t);
    return t;
  };
  Tree.prototype.delete = function (this: Tree) { deleted.add(this); del.call(this); };
  try {
    const text = readFileSync(file, 'utf8');
    // Uncancelled: the declared model is built and its tree deleted at the end.
    const r = await analyze(text, { path: file, device: 'a100-80gb' });
    assert.ok(r.models.some((m) => m.facts.name === 'llama-2-7b'), JSON.stringify(r.models.map((m) => m.facts.name)));
    assert.equal(declared.length, 1);
    assert.ok(deleted.has(declared[0]));
    // Cancelled as soon as the construction is parsed: the run ends with Cancelled, and the tree is deleted all the same.
    await assert.rejects(analyze(text, { path: file, device: 'a100-80gb', cancelled: () => declared.length === 2 }), Cancelled);
    assert.equal(declared.length, 2);
    assert.ok(deleted.has(declared[1]), 'the cancelled run left its declared tree undeleted');
  } finally {
    Parser.prototype.parse = parse;
    Tree.prototype.delete = del;
  }
});
