/**
 * Batches from `torch.utils.data.DataLoader`, so training and inference see
 * the batch the program feeds: the loader takes `dataset[0]` (the user's
 * `__getitem__`, a `TensorDataset` row, or an item of a list/tensor) and
 * collates `batch_size` of them as `default_collate` does
 * (torch/utils/data/_utils/collate.py, torch 2.1): tensors stack on a new
 * leading axis, Python ints become an int64 tensor [B], floats a float64
 * tensor [B], tuples/lists/dicts collate field by field. Batches are host
 * tensors until the program moves them (`.to(device)`). `batch_size=None`
 * yields items unbatched (DataLoader docs, "Disable automatic batching").
 * The number of batches is not known: the loop runs its body as for any
 * loop whose length is not known (bounded by the training-loop cap).
 */
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, NONE, int, num, unknown } from '../../interp/values';
import { MAX_COUNT, countCapReason } from '../../interp/limits';
import { visionItem } from './vision_data';

const LOADER = 'torch.utils.data.DataLoader#';

export function installDataLoader(it: Interpreter): void {
  const reg = (name: string, fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) =>
    it.externs.set(name, (_i, self, c, node) => fn(self, c, node));

  reg('torch.utils.data.TensorDataset', (_s, c) => ({ t: 'extern', name: 'torch.utils.data.TensorDataset#', args: c.args }));
  reg('torch.utils.data.DataLoader', (_s, c) => {
    const dataset = c.args[0] ?? c.kw.get('dataset') ?? NONE;
    const bs = c.kw.get('batch_size') ?? c.args[1] ?? int(1);
    return { t: 'extern', name: LOADER, args: [dataset, bs] };
  });

  const prevIter = it.externs.get('__iter__');
  it.externs.set('__iter__', (i, self, c, node, fnv) => {
    if (self?.t === 'extern' && self.name === LOADER) {
      const batch = loaderBatch(it, self.args ?? [], node);
      // Two batches: the loop body runs as a repeated step (enough for liveness across iterations).
      return { t: 'list', items: [batch, batch] };
    }
    return prevIter ? prevIter(i, self, c, node, fnv) : unknown('__pass__');
  });
  const prevLen = it.externs.get('builtins.len');
  it.externs.set('builtins.len', (i, self, c, node, fnv) => {
    const v = c.args[0];
    if (v?.t === 'extern' && v.name === LOADER) return unknown('the number of batches depends on the data set', it.span(node));
    return prevLen ? prevLen(i, self, c, node, fnv) : unknown('len()', it.span(node));
  });
}

function loaderBatch(it: Interpreter, args: Value[], node: SyntaxNode): Value {
  const [dataset, bsV] = args;
  const item = firstItem(it, dataset ?? NONE, node);
  if (bsV?.t === 'none') return item;
  const b = num(bsV ?? int(1));
  if (b === undefined || !Number.isInteger(b) || b < 1) return unknown(`DataLoader batch_size ${bsV ? 'is not known' : ''}`, it.span(node));
  return collate(it, item, b, node, 0);
}

/** `dataset[0]`, as the sampler's first index would fetch it. */
function firstItem(it: Interpreter, ds: Value, node: SyntaxNode): Value {
  const vision = visionItem(it, ds, node);
  if (vision) return vision;
  if (ds.t === 'extern' && ds.name === 'torch.utils.data.TensorDataset#') {
    return { t: 'tuple', items: (ds.args ?? []).map((t) => it.getItem(t, int(0), node)) };
  }
  if (ds.t === 'inst') {
    const gi = it.classAttr(ds.cls, '__getitem__');
    if (gi?.t === 'func') return it.call({ ...gi, self: ds }, { args: [int(0)], kw: new Map() }, node);
    return unknown(`data set ${ds.cls.name} has no __getitem__ oomlens can follow`, it.span(node));
  }
  if (ds.t === 'list' || ds.t === 'tuple' || ds.t === 'tensor') return it.getItem(ds, int(0), node);
  return unknown('the items of the data set are not known', it.span(node));
}

function collate(it: Interpreter, v: Value, b: number, node: SyntaxNode, depth: number): Value {
  if (depth > 8) return unknown('batch structure too deep', it.span(node));
  // torch.stack of `b` items is made as a list of them: past the cap the batch is not made.
  if (b > MAX_COUNT) return unknown(countCapReason('batch_size', b), it.span(node));
  switch (v.t) {
    case 'tensor': return it.callExtern({ t: 'extern', name: 'torch.stack' }, { args: [{ t: 'list', items: Array.from({ length: b }, () => v) }], kw: new Map() }, node);
    case 'int': case 'bool': return it.callExtern({ t: 'extern', name: 'torch.zeros' }, { args: [{ t: 'tuple', items: [int(b)] }], kw: new Map([['dtype', { t: 'dtype', dtype: 'int64' }]]) }, node);
    case 'float': return it.callExtern({ t: 'extern', name: 'torch.zeros' }, { args: [{ t: 'tuple', items: [int(b)] }], kw: new Map([['dtype', { t: 'dtype', dtype: 'float64' }]]) }, node);
    case 'tuple': case 'list': return { t: v.t, items: v.items.map((x) => collate(it, x, b, node, depth + 1)) };
    case 'dict': return { t: 'dict', keys: v.keys, vals: v.vals.map((x) => collate(it, x, b, node, depth + 1)) };
    case 'unknown': return v;
    default: return unknown('a data set item oomlens cannot batch', it.span(node));
  }
}
