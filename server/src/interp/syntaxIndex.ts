/**
 * The file's calls, loops and type annotations, found by one search of the
 * tree per analysis (tree-sitter's own `descendantsOfType`, which runs in
 * wasm) and kept in document order, so that questions about one class or
 * function ("the calls inside this class") are a binary search in that list
 * instead of another search of its subtree.
 */
import type { SyntaxNode, Tree } from './parser';

export interface SyntaxIndex {
  call: SyntaxNode[];
  /** `for` and `while` statements. */
  loop: SyntaxNode[];
  /** Type annotations (`type` nodes). */
  type: SyntaxNode[];
}

const indexes = new WeakMap<Tree, SyntaxIndex>();

/** The index of `tree`, built on first use. */
export function syntaxIndex(tree: Tree): SyntaxIndex {
  let ix = indexes.get(tree);
  if (ix) return ix;
  ix = { call: [], loop: [], type: [] };
  for (const n of tree.rootNode.descendantsOfType(['call', 'for_statement', 'while_statement', 'type'])) {
    if (!n) continue;
    const t = n.type;
    (t === 'call' ? ix.call : t === 'type' ? ix.type : ix.loop).push(n);
  }
  indexes.set(tree, ix);
  return ix;
}

/**
 * The nodes of `list` (one of an index's lists, in document order) that lie inside `node`, in document
 * order: what `node.descendantsOfType(type)` gives for a node that is not itself of that type.
 */
export function nodesWithin(list: SyntaxNode[], node: SyntaxNode): SyntaxNode[] {
  const start = node.startIndex;
  const end = node.endIndex;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].startIndex < start) lo = mid + 1;
    else hi = mid;
  }
  const out: SyntaxNode[] = [];
  for (let i = lo; i < list.length && list[i].startIndex <= end; i++) {
    const x = list[i];
    if (x.id === node.id || x.endIndex > end) continue;
    // A zero-width node on the boundary may be a neighbour's: decided by its ancestors.
    if ((x.startIndex === end || x.endIndex === start) && !isAncestor(node, x)) continue;
    out.push(x);
  }
  return out;
}

function isAncestor(a: SyntaxNode, x: SyntaxNode): boolean {
  for (let p = x.parent; p; p = p.parent) if (p.id === a.id) return true;
  return false;
}
