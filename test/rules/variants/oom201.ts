/**
 * OOM201 spellings, from the rule's Example (a 7B checkpoint loaded without a
 * dtype on transformers 4.38, float32 by default) and its Use instead (a
 * dtype keyword): the class reached through `transformers.`, a module alias,
 * `from … import … as`, the checkpoint id in a variable, a constant, an
 * argparse default or a kwargs dict splat, torch imported under another name
 * or not at all, a trailing comma, a multi-line call, inside main(). Quiet:
 * the dtype given (torch_dtype=torch.float16, "auto", inside a kwargs splat) and and
 * transformers 5 (loads the checkpoint's dtype).
 */
import type { Family, Variant } from './check';

interface O {
  imp: 'from' | 'module' | 'alias' | 'as';
  cls: 'AutoModelForCausalLM' | 'LlamaForCausalLM' | 'AutoModel';
  torch: 'torch' | 'th' | 'none' | 'late';
  id: 'literal' | 'variable' | 'constant' | 'argparse' | 'keyword';
  args: 'none' | 'kwargs' | 'splat' | 'trailing' | 'multiline';
  where: 'module' | 'main';
  extra?: string;
}

const ID = '"meta-llama/Llama-2-7b-hf"';

function program(o: O): string {
  const lines: string[] = [];
  if (o.torch === 'torch') lines.push('import torch');
  if (o.torch === 'th') lines.push('import torch as th');
  if (o.id === 'argparse') lines.push('import argparse');
  const cls = o.imp === 'from' ? o.cls : o.imp === 'module' ? `transformers.${o.cls}` : o.imp === 'alias' ? `hf.${o.cls}` : 'Model';
  lines.push({ from: `from transformers import ${o.cls}`, module: 'import transformers', alias: 'import transformers as hf', as: `from transformers import ${o.cls} as Model` }[o.imp]);
  if (o.torch === 'late') lines.push('from transformers import AutoTokenizer');
  lines.push('', '');
  const body: string[] = [];
  let id = ID;
  if (o.id === 'variable') { body.push(`model_id = ${ID}`); id = 'model_id'; }
  if (o.id === 'constant') { lines.push(`MODEL_NAME = ${ID}`, ''); id = 'MODEL_NAME'; }
  if (o.id === 'argparse') {
    body.push('parser = argparse.ArgumentParser()', `parser.add_argument("--model", default=${ID})`, 'args = parser.parse_args()');
    id = 'args.model';
  }
  if (o.id === 'keyword') id = `pretrained_model_name_or_path=${id}`;
  if (o.args === 'splat') body.push('load_kwargs = {"low_cpu_mem_usage": True}');
  const call = {
    none: `${cls}.from_pretrained(${id})`,
    kwargs: `${cls}.from_pretrained(${id}, low_cpu_mem_usage=True)`,
    splat: `${cls}.from_pretrained(${id}, **load_kwargs)`,
    trailing: `${cls}.from_pretrained(${id},)`,
    multiline: `${cls}.from_pretrained(\n    ${id},\n    low_cpu_mem_usage=True,  # stream the shards\n)`,
  }[o.args];
  body.push(`model = ${call}`);
  if (o.torch === 'late') body.push('import torch', 'print(torch.cuda.is_available())');
  if (o.extra) body.push(o.extra);
  if (o.where === 'module') lines.push(...body);
  else lines.push('def main():', ...body.map((l) => l.split('\n').map((x) => `    ${x}`).join('\n')), '', '', 'if __name__ == "__main__":', '    main()');
  return lines.join('\n') + '\n';
}

const BASE: O = { imp: 'from', cls: 'AutoModelForCausalLM', torch: 'torch', id: 'literal', args: 'none', where: 'module' };

export function oom201(): Family {
  const variants: Variant[] = [];
  // The dtype is spelled through the name torch has at the call, or as a
  // string where torch is not imported yet when the call runs.
  const add = (name: string, change: Partial<O>): void => {
    const o = { ...BASE, ...change };
    const fixed = o.torch === 'torch' ? 'torch_dtype=torch.float16' : o.torch === 'th' ? 'torch_dtype=th.float16' : 'torch_dtype="float16"';
    variants.push({ name, text: program(o), fires: true, fixed });
  };
  add('Example', {});
  for (const imp of ['module', 'alias', 'as'] as const) add(`import: ${imp}`, { imp });
  for (const cls of ['LlamaForCausalLM', 'AutoModel'] as const) add(`class: ${cls}`, { cls });
  for (const torch of ['th', 'none', 'late'] as const) add(`torch: ${torch}`, { torch });
  for (const id of ['variable', 'constant', 'argparse', 'keyword'] as const) add(`checkpoint id: ${id}`, { id });
  for (const args of ['kwargs', 'splat', 'trailing', 'multiline'] as const) add(`arguments: ${args}`, { args });
  add('inside main()', { where: 'main' });
  add('main, argparse default, alias, th', { where: 'main', id: 'argparse', imp: 'alias', torch: 'th' });
  add('main, splat, as, multiline', { where: 'main', args: 'splat', imp: 'as' });
  add('module, constant, trailing, no torch', { imp: 'module', id: 'constant', args: 'trailing', torch: 'none' });
  add('main, variable, kwargs, late torch', { where: 'main', id: 'variable', args: 'kwargs', torch: 'late' });
  add('keyword id, multiline, Llama class, alias', { id: 'keyword', args: 'multiline', cls: 'LlamaForCausalLM', imp: 'alias' });

  const quiet = (name: string, text: string): void => { variants.push({ name: `quiet: ${name}`, text, fires: false }); };
  quiet('torch_dtype=torch.float16', program(BASE).replace(`from_pretrained(${ID})`, `from_pretrained(${ID}, torch_dtype=torch.float16)`));
  quiet('torch_dtype="auto" in a splat-free main()', program({ ...BASE, where: 'main' }).replace(`from_pretrained(${ID})`, `from_pretrained(${ID}, torch_dtype="auto")`));
  quiet('torch_dtype inside a kwargs dict splat', program({ ...BASE, args: 'splat' }).replace('{"low_cpu_mem_usage": True}', '{"low_cpu_mem_usage": True, "torch_dtype": torch.float16}'));
  quiet('th.bfloat16 through an alias', program({ ...BASE, imp: 'alias', torch: 'th' }).replace(`from_pretrained(${ID})`, `from_pretrained(${ID}, torch_dtype=th.bfloat16)`));
  // Loaded on the host and cast on its way to the device (diffusers' SDXL script): the device never holds float32.
  quiet('.to("cuda", dtype=torch.float16) from the host', program({ ...BASE, extra: 'model.to("cuda", dtype=torch.float16)' }));
  quiet('.half() before .cuda()', program({ ...BASE, extra: 'model = model.half().cuda()' }));
  // Moved first, then cast on the device: float32 reached it.
  variants.push({ name: 'cast after the move: .cuda() then .half()', text: program({ ...BASE, extra: 'model = model.cuda()\nmodel = model.half()' }), fires: true, fixed: 'torch_dtype=torch.float16' });
  return { code: 'OOM201', device: 'a100-40gb', versions: { transformers: '4.38.0' }, unsafe: true, variants };
}
