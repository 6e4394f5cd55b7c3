/**
 * OOM302 spellings, from the rule's Example (an evaluation loop that keeps
 * each forward's logits with autograd on) and its Use instead (the loop
 * under `torch.inference_mode()`): the model class imported four ways, torch
 * as `torch` or `th`, the batches a list comprehension or a generator
 * function, the output kept by `.append(...)`, `+=`, `x = x + ...` or a dict
 * item, the forward called with keywords or positionally or through
 * `model.forward`, a `model.eval()` before or not, the loop at module level,
 * in main() or under `if __name__ == "__main__":`. Quiet: the loop under
 * `inference_mode()` / `no_grad()`, the output reduced with `.item()`, and a
 * training loop (backward frees the graph).
 */
import type { Family, Variant } from './check';
import { imports, place, tfn, type Imp, type Torch, type Where } from './hf';

interface O { imp: Imp; torch: Torch; where: Where; keep: 'append' | 'augmented' | 'plus' | 'extend'; call: 'kw' | 'pos' | 'forward'; eval: boolean; wrap?: 'inference_mode' | 'no_grad' | 'item'; helper?: 'no_grad' | 'plain' }

function program(o: O): string {
  const { lines, cls } = imports(o.imp, o.torch);
  const t = o.torch;
  const body = [`model = ${cls}.from_pretrained("gpt2").to("cuda")`];
  if (o.eval) body.push('model.eval()');
  body.push(`batches = [${tfn(t, 'randint')}(0, 50257, (8, 1024), device="cuda") for _ in range(4)]`);
  const fwd = { kw: 'model(input_ids=ids)', pos: 'model(ids)', forward: 'model.forward(input_ids=ids)' }[o.call];
  // A metric helper of the file the output goes through (`accuracy(output, target)`): under no_grad it returns no graph.
  const out = o.helper ? `score(${fwd}.logits)` : o.wrap === 'item' ? `${fwd}.logits.mean().item()` : `${fwd}.logits`;
  if (o.helper) {
    const ctx = t === 'from' ? 'torch' : t;
    lines.push('', '', 'def score(logits):', ...(o.helper === 'no_grad' ? [`    with ${ctx}.no_grad():`, '        return logits.softmax(-1).max(-1).values.mean()'] : ['    return logits.softmax(-1).max(-1).values.mean()']), '');
    if (t === 'from') lines.unshift('import torch');
  }
  const init = o.keep === 'append' || o.keep === 'extend' ? 'kept = []' : 'kept = 0';
  const keep = { append: `kept.append(${out})`, extend: `kept.extend([${out}])`, augmented: `kept += ${out === `${fwd}.logits` ? `${fwd}.logits.mean()` : out}`, plus: `kept = kept + ${out === `${fwd}.logits` ? `${fwd}.logits.mean()` : out}` }[o.keep];
  body.push(init);
  const loop = ['for ids in batches:', `    ${keep}`];
  if (o.wrap === 'inference_mode' || o.wrap === 'no_grad') body.push(`with ${t}.${o.wrap}():`, ...loop.map((l) => `    ${l}`));
  else body.push(...loop);
  return place(lines, body, o.where);
}

const BASE: O = { imp: 'from', torch: 'torch', where: 'module', keep: 'append', call: 'kw', eval: true };

export function oom302(): Family {
  const variants: Variant[] = [];
  const add = (name: string, c: Partial<O>): void => {
    const o = { ...BASE, ...c };
    variants.push({ name, text: program(o), fires: true, fixed: o.torch === 'from' ? 'import torch\n' : `with ${o.torch}.inference_mode():` });
  };
  add('Example', {});
  for (const imp of ['module', 'alias', 'as'] as const) add(`import: ${imp}`, { imp });
  add('torch as th', { torch: 'th' });
  add('torch not bound (from torch import randint)', { torch: 'from' });
  add('main, torch not bound', { torch: 'from', where: 'main' });
  for (const where of ['main', 'if-main'] as const) add(`where: ${where}`, { where });
  for (const keep of ['augmented', 'plus', 'extend'] as const) add(`keep: ${keep}`, { keep });
  for (const call of ['pos', 'forward'] as const) add(`call: ${call}`, { call });
  add('no model.eval()', { eval: false });
  add('main, th, +=', { where: 'main', torch: 'th', keep: 'augmented' });
  add('if-main, alias, positional', { where: 'if-main', imp: 'alias', call: 'pos' });
  add('main, as, forward, no eval', { where: 'main', imp: 'as', call: 'forward', eval: false });
  add('module import, x = x + ..., th', { imp: 'module', keep: 'plus', torch: 'th' });
  add('if-main, extend, forward', { where: 'if-main', keep: 'extend', call: 'forward' });
  add('main, alias, extend, positional', { where: 'main', imp: 'alias', keep: 'extend', call: 'pos' });
  add('as, +=, no eval', { imp: 'as', keep: 'augmented', eval: false });
  add('th, if-main, module import', { torch: 'th', where: 'if-main', imp: 'module' });
  add('main, positional, x = x + ...', { where: 'main', call: 'pos', keep: 'plus' });
  add('through a metric helper of the file (no no_grad in it)', { helper: 'plain', keep: 'augmented' });
  const quiet = (name: string, c: Partial<O>): void => { variants.push({ name: `quiet: ${name}`, text: program({ ...BASE, ...c }), fires: false }); };
  quiet('under inference_mode()', { wrap: 'inference_mode' });
  quiet('under no_grad(), th, main', { wrap: 'no_grad', torch: 'th', where: 'main' });
  quiet('.item() keeps a number', { wrap: 'item' });
  quiet('through a metric helper whose return runs under no_grad (accuracy(output, target))', { helper: 'no_grad', keep: 'augmented' });
  quiet('through a no_grad helper, main, th', { helper: 'no_grad', keep: 'append', where: 'main', torch: 'th' });
  quiet('under inference_mode(), alias, +=', { wrap: 'inference_mode', imp: 'alias', keep: 'augmented' });
  return { code: 'OOM302', device: 'a100-40gb', versions: { transformers: '4.46.3' }, unsafe: true, variants };
}
