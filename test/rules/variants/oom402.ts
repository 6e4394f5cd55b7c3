/**
 * OOM402 spellings, from the rule's Example (GPT-2 fine-tuned in float32 at
 * 32 × 1024 tokens without gradient checkpointing on an A100 40 GB) and its
 * Use instead (`model.gradient_checkpointing_enable()` after the load): the
 * class imported four ways, torch as `torch` or `th`, the dtype as
 * `torch.float32` or `"float32"`, the load on one line, over several lines
 * or followed by `.to("cuda")`, the model named `model` or `net`, the
 * optimizer `torch.optim.AdamW` or `AdamW` imported by name, the forward
 * with keywords or positional ids, the loop at module level, in main() or
 * in a train(model) function. Quiet: checkpointing already enabled, and a
 * batch small enough to fit without it.
 */
import type { Family, Variant } from './check';
import { imports, place, type Imp, type Torch, type Where } from './hf';

interface O { imp: Imp; torch: Exclude<Torch, 'from'>; where: Where | 'train-fn'; load: 'line' | 'multiline' | 'to' | 'annotated' | 'loader'; name: string; dtype: 'attr' | 'str'; opt: 'torch' | 'from'; fwd: 'kw' | 'pos'; ckpt?: boolean; batch?: number }

function program(o: O): string {
  const { lines, cls } = imports(o.imp, o.torch);
  const t = o.torch;
  if (o.opt === 'from') lines.push('from torch.optim import AdamW');
  const dtype = o.dtype === 'attr' ? `${t}.float32` : '"float32"';
  const n = o.name;
  const load = {
    line: `${n} = ${cls}.from_pretrained("gpt2", torch_dtype=${dtype})`,
    multiline: `${n} = ${cls}.from_pretrained(\n    "gpt2",\n    torch_dtype=${dtype},\n)`,
    to: `${n} = ${cls}.from_pretrained("gpt2", torch_dtype=${dtype}).to("cuda")`,
    annotated: `${n}: ${t}.nn.Module = ${cls}.from_pretrained("gpt2", torch_dtype=${dtype})`,
    loader: `${n} = load()`,
  }[o.load];
  if (o.load === 'loader') lines.push('', '', 'def load():', `    return ${cls}.from_pretrained("gpt2", torch_dtype=${dtype})`);
  const setup = [load];
  if (o.load !== 'to') setup.push(`${n}.to("cuda")`);
  if (o.ckpt) setup.push(`${n}.gradient_checkpointing_enable()`);
  const fwd = o.fwd === 'kw' ? `${n}(input_ids=batch, labels=batch)` : `${n}(batch, labels=batch)`;
  const loop = [
    `optimizer = ${o.opt === 'torch' ? `${t}.optim.AdamW` : 'AdamW'}(${n}.parameters(), lr=3e-4)`,
    'for step in range(1000):',
    `    batch = ${t}.randint(0, 50257, (${o.batch ?? 32}, 1024), device="cuda")`,
    `    out = ${fwd}`,
    '    out.loss.backward()',
    '    optimizer.step()',
    '    optimizer.zero_grad()',
  ];
  if (o.where !== 'train-fn') return place(lines, [...setup, ...loop], o.where);
  const fn = ['', '', `def train(${n}):`, ...loop.map((l) => `    ${l}`), '', ''];
  return [...lines, '', '', ...setup, ...fn, `train(${n})`].join('\n') + '\n';
}

const BASE: O = { imp: 'from', torch: 'torch', where: 'module', load: 'line', name: 'model', dtype: 'attr', opt: 'torch', fwd: 'kw' };

export function oom402(): Family {
  const variants: Variant[] = [];
  const add = (name: string, c: Partial<O>): void => {
    const o = { ...BASE, ...c };
    variants.push({ name, text: program(o), fires: true, fixed: `${o.name}.gradient_checkpointing_enable()` });
  };
  add('Example', {});
  for (const imp of ['module', 'alias', 'as'] as const) add(`import: ${imp}`, { imp });
  add('torch as th', { torch: 'th' });
  for (const where of ['main', 'if-main', 'train-fn'] as const) add(`where: ${where}`, { where });
  for (const load of ['multiline', 'to', 'annotated', 'loader'] as const) add(`load: ${load}`, { load });
  add('named net', { name: 'net' });
  add('dtype as a string', { dtype: 'str' });
  add('AdamW imported by name', { opt: 'from' });
  add('positional ids', { fwd: 'pos' });
  add('main, multiline, th', { where: 'main', load: 'multiline', torch: 'th' });
  add('if-main, .to(), alias', { where: 'if-main', load: 'to', imp: 'alias' });
  add('train(net), as, positional', { where: 'train-fn', name: 'net', imp: 'as', fwd: 'pos' });
  add('main, net, string dtype, AdamW by name', { where: 'main', name: 'net', dtype: 'str', opt: 'from' });
  add('module import, multiline, positional', { imp: 'module', load: 'multiline', fwd: 'pos' });
  add('th, .to(), train(model)', { torch: 'th', load: 'to', where: 'train-fn' });
  add('if-main, net, string dtype', { where: 'if-main', name: 'net', dtype: 'str' });
  add('alias, AdamW by name, multiline', { imp: 'alias', opt: 'from', load: 'multiline' });
  const quiet = (name: string, c: Partial<O>): void => { variants.push({ name: `quiet: ${name}`, text: program({ ...BASE, ...c }), fires: false }); };
  quiet('checkpointing enabled', { ckpt: true });
  quiet('checkpointing enabled, main, th', { ckpt: true, where: 'main', torch: 'th' });
  quiet('batch of 4 fits', { batch: 4 });
  quiet('checkpointing enabled, net, .to()', { ckpt: true, name: 'net', load: 'to' });
  return { code: 'OOM402', device: 'a100-40gb', unsafe: false, variants };
}
