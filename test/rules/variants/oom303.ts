/**
 * OOM303 spellings (the rule has no fix: the remedy is a transformers
 * version, so a firing variant must fire and a quiet one stay quiet). From
 * the rule's Example (Llama-3-8B in bfloat16 generating from 8 × 4096-token
 * prompts on transformers 4.44: float32 logits for every prompt position take
 * the peak past an A100 40 GB): the class imported four ways, torch as
 * `torch`, `th` or by name, the ids positional or `input_ids=`, the
 * generation arguments as keywords or a `**kwargs` splat, greedy or sampled,
 * at module level, in main(), under `if __name__ == "__main__":` or under
 * `inference_mode()`. Quiet: transformers 4.46 (last position only), and a
 * prompt short enough to fit.
 */
import type { Family, Variant } from './check';
import { imports, place, tfn, type Imp, type Torch, type Where } from './hf';

interface O { imp: Imp; torch: Torch; where: Where | 'inference-mode'; ids: 'pos' | 'kw'; args: 'kw' | 'splat'; sample: boolean; seq?: number }

function program(o: O): string {
  const { lines, cls } = imports(o.imp, o.torch);
  if (o.torch === 'from') lines[0] = 'from torch import randint, bfloat16';
  const t = (fn: string) => tfn(o.torch, fn);
  const body = [`model = ${cls}.from_pretrained("meta-llama/Meta-Llama-3-8B", torch_dtype=${t('bfloat16')}, device_map="cuda:0")`,
    `ids = ${t('randint')}(0, 128256, (8, ${o.seq ?? 4096}), device="cuda:0")`];
  const id = o.ids === 'pos' ? 'ids' : 'input_ids=ids';
  const gen = `max_new_tokens=16${o.sample ? ', do_sample=True, top_p=0.9' : ''}`;
  const call = o.args === 'splat' ? `out = model.generate(${id}, **gen_kwargs)` : `out = model.generate(${id}, ${gen})`;
  if (o.args === 'splat') body.push(`gen_kwargs = dict(${gen})`);
  if (o.where === 'inference-mode') {
    if (o.torch === 'from') lines.push('import torch');
    body.push(`with ${o.torch === 'from' ? 'torch' : o.torch}.inference_mode():`, `    ${call}`);
    return place(lines, body, 'module');
  }
  body.push(call);
  return place(lines, body, o.where);
}

const BASE: O = { imp: 'from', torch: 'torch', where: 'module', ids: 'pos', args: 'kw', sample: false };

export function oom303(): Family {
  const variants: Variant[] = [];
  const add = (name: string, c: Partial<O>): void => { variants.push({ name, text: program({ ...BASE, ...c }), fires: true }); };
  add('Example', {});
  for (const imp of ['module', 'alias', 'as'] as const) add(`import: ${imp}`, { imp });
  for (const torch of ['th', 'from'] as const) add(`torch: ${torch}`, { torch });
  for (const where of ['main', 'if-main', 'inference-mode'] as const) add(`where: ${where}`, { where });
  add('input_ids=ids', { ids: 'kw' });
  add('kwargs splat', { args: 'splat' });
  add('sampling', { sample: true });
  add('main, splat, alias', { where: 'main', args: 'splat', imp: 'alias' });
  add('if-main, input_ids=, th', { where: 'if-main', ids: 'kw', torch: 'th' });
  add('inference_mode, sampling, as', { where: 'inference-mode', sample: true, imp: 'as' });
  add('main, torch by name, input_ids=', { where: 'main', torch: 'from', ids: 'kw' });
  add('module import, splat, sampling', { imp: 'module', args: 'splat', sample: true });
  add('if-main, alias, positional, th', { where: 'if-main', imp: 'alias', torch: 'th' });
  add('inference_mode, splat, input_ids=', { where: 'inference-mode', args: 'splat', ids: 'kw' });
  add('main, as, sampling, th', { where: 'main', imp: 'as', sample: true, torch: 'th' });
  add('module import, torch by name', { imp: 'module', torch: 'from' });
  add('if-main, splat, sampling', { where: 'if-main', args: 'splat', sample: true });
  const quiet = (name: string, text: string, versions?: Record<string, string>): void => { variants.push({ name: `quiet: ${name}`, text: versions ? `# pinned: transformers==${versions.transformers}\n${text}` : text, fires: false, ...(versions ? { versions } : {}) }); };
  quiet('transformers 4.46 keeps the last position', program(BASE), { transformers: '4.46.3' });
  quiet('transformers 4.46, main, splat, alias', program({ ...BASE, where: 'main', args: 'splat', imp: 'alias' }), { transformers: '4.46.3' });
  quiet('8 × 512 prompt fits', program({ ...BASE, seq: 512 }));
  quiet('8 × 512 prompt, main, splat', program({ ...BASE, seq: 512, where: 'main', args: 'splat' }));
  return { code: 'OOM303', device: 'a100-40gb', versions: { transformers: '4.44.2' }, unsafe: true, noFix: true, variants };
}
