/**
 * OOM301 spellings. From the rule's Example (Llama-2-7B in float16 generating
 * 2048 tokens from 4 × 2048-token prompts with 4 beams: a 34.4 GB dynamic
 * cache, larger than the 13.5 GB of weights) and its Use instead
 * (`cache_implementation="offloaded"`): the class imported four ways, torch as
 * `torch` or `th`, the prompt ids positional or `input_ids=`, the generation
 * arguments as keywords, a `**gen_kwargs` dict splat or over several lines
 * with a trailing comma, `torch.ones(..., dtype=torch.long)` ids, the call at
 * module level, in main(), under `if __name__ == "__main__":` or under
 * `torch.inference_mode()`. From the hand-written cache form (Meta's
 * Llama model.py: caches preallocated for `max_batch_size` sequences while 4
 * prompts run, fixed by rewriting the literal the size was written as): the
 * size passed as a keyword or positionally, from a module constant, a
 * constructor default or a dataclass args default (Meta's ModelArgs).
 * Quiet: an offloaded cache, one beam over a short prompt, and a hand cache
 * sized for the prompts run.
 */
import type { Family, Variant } from './check';
import { imports, place, tfn, type Imp, type Torch, type Where } from './hf';

interface O { imp: Imp; torch: Torch; where: Where | 'inference-mode'; ids: 'pos' | 'kw'; args: 'kw' | 'splat' | 'multiline'; make: 'randint' | 'ones'; extra?: string; beams?: number; newTokens?: number }

function program(o: O): string {
  const { lines, cls } = imports(o.imp, o.torch);
  if (o.torch === 'from') lines[0] = o.make === 'ones' ? 'from torch import ones, long, float16' : 'from torch import randint, float16';
  const t = (fn: string) => tfn(o.torch, fn);
  const body = [`model = ${cls}.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=${t('float16')}, device_map="cuda:0")`];
  body.push(o.make === 'randint' ? `ids = ${t('randint')}(0, 32000, (4, 2048), device="cuda:0")` : `ids = ${t('ones')}((4, 2048), dtype=${t('long')}, device="cuda:0")`);
  const id = o.ids === 'pos' ? 'ids' : 'input_ids=ids';
  const gen = `max_new_tokens=${o.newTokens ?? 2048}, num_beams=${o.beams ?? 4}${o.extra ? `, ${o.extra}` : ''}`;
  if (o.args === 'splat') body.push(`gen_kwargs = dict(${gen})`, `out = model.generate(${id}, **gen_kwargs)`);
  else if (o.args === 'multiline') body.push(`out = model.generate(\n    ${id},\n${gen.split(', ').map((a) => `    ${a},`).join('\n')}\n)`);
  else body.push(`out = model.generate(${id}, ${gen})`);
  if (o.where === 'inference-mode') {
    const last = body.pop()!;
    body.push(`with ${o.torch === 'from' ? 'torch' : o.torch}.inference_mode():`, last.split('\n').map((l) => `    ${l}`).join('\n'));
    if (o.torch === 'from') lines.push('import torch');
    return place(lines, body, 'module');
  }
  return place(lines, body, o.where);
}

/** A hand-written cache preallocated for `rows` sequences while four prompts run. */
interface H { size: 'kw' | 'pos' | 'constant' | 'default' | 'dataclass'; rows: number; where: 'module' | 'main' }

function handProgram(o: H): string {
  const lines = ['import torch', 'from torch import nn', ...(o.size === 'dataclass' ? ['from dataclasses import dataclass'] : []), '', ''];
  if (o.size === 'constant') lines.push(`MAX_BATCH = ${o.rows}`, '', '');
  if (o.size === 'dataclass') lines.push('@dataclass', 'class ModelArgs:', `    max_batch_size: int = ${o.rows}`, '    max_seq_len: int = 2048', '', '');
  lines.push(
    'class Attention(nn.Module):',
    '    def __init__(self, dim, n_heads, max_batch_size, max_seq_len):',
    '        super().__init__()',
    '        self.wq = nn.Linear(dim, dim, bias=False, dtype=torch.float16)',
    '        self.wo = nn.Linear(dim, dim, bias=False, dtype=torch.float16)',
    '        self.cache_k = torch.zeros((max_batch_size, max_seq_len, n_heads, dim // n_heads), dtype=torch.float16).cuda()',
    '        self.cache_v = torch.zeros((max_batch_size, max_seq_len, n_heads, dim // n_heads), dtype=torch.float16).cuda()',
    '', '',
    'class Transformer(nn.Module):',
    `    def __init__(self, max_batch_size${o.size === 'default' ? `=${o.rows}` : ''}, max_seq_len=2048):`,
    '        super().__init__()',
    '        self.layers = nn.ModuleList([Attention(4096, 32, max_batch_size, max_seq_len) for _ in range(16)])',
    '',
    '    def forward(self, tokens, start_pos):',
    '        return tokens',
    '', '');
  const make = { kw: `Transformer(max_batch_size=${o.rows}, max_seq_len=2048)`, pos: `Transformer(${o.rows}, 2048)`, constant: 'Transformer(max_batch_size=MAX_BATCH)', default: 'Transformer()', dataclass: 'Transformer(args.max_batch_size, args.max_seq_len)' }[o.size];
  const body = [...(o.size === 'dataclass' ? ['args = ModelArgs()'] : []),`model = ${make}.cuda()`, 'tokens = torch.zeros((4, 64), dtype=torch.long, device="cuda")', 'with torch.inference_mode():', '    out = model.forward(tokens, 0)'];
  if (o.where === 'module') lines.push(...body);
  else lines.push('def main():', ...body.map((l) => `    ${l}`), '', '', 'main()');
  return lines.join('\n') + '\n';
}

const BASE: O = { imp: 'from', torch: 'torch', where: 'module', ids: 'pos', args: 'kw', make: 'randint' };

export function oom301(): Family {
  const variants: Variant[] = [];
  const add = (name: string, c: Partial<O>): void => { variants.push({ name, text: program({ ...BASE, ...c }), fires: true, fixed: 'cache_implementation="offloaded"' }); };
  add('Example', {});
  for (const imp of ['module', 'alias', 'as'] as const) add(`import: ${imp}`, { imp });
  for (const torch of ['th', 'from'] as const) add(`torch: ${torch}`, { torch });
  for (const where of ['main', 'if-main', 'inference-mode'] as const) add(`where: ${where}`, { where });
  add('input_ids=ids', { ids: 'kw' });
  for (const args of ['splat', 'multiline'] as const) add(`arguments: ${args}`, { args });
  add('torch.ones ids', { make: 'ones' });
  add('main, splat, alias', { where: 'main', args: 'splat', imp: 'alias' });
  add('if-main, multiline, input_ids=, th', { where: 'if-main', args: 'multiline', ids: 'kw', torch: 'th' });
  add('inference_mode, ones, as', { where: 'inference-mode', make: 'ones', imp: 'as' });
  add('main, from-imported torch, ones', { where: 'main', torch: 'from', make: 'ones' });
  add('module import, splat, input_ids=', { imp: 'module', args: 'splat', ids: 'kw' });
  // The fix rewrites the integer literal the caches' batch dimension was written as, wherever it is spelled.
  const hand = (name: string, c: Partial<H>): void => { variants.push({ name: `hand cache: ${name}`, text: handProgram({ size: 'kw', rows: 32, where: 'module', ...c }), fires: true, fixed: c.size === 'dataclass' ? 'max_batch_size: int = 4' : c.size === 'constant' ? 'MAX_BATCH = 4' : c.size === 'default' ? 'max_batch_size=4' : c.size === 'pos' ? 'Transformer(4, 2048)' : 'Transformer(max_batch_size=4' }); };
  hand('max_batch_size= keyword', {});
  hand('positional size', { size: 'pos' });
  hand('module constant', { size: 'constant' });
  hand('constructor default', { size: 'default' });
  hand('keyword, in main()', { where: 'main' });
  hand('positional, in main()', { size: 'pos', where: 'main' });
  hand('dataclass args default', { size: 'dataclass' });
  hand('dataclass args default, in main()', { size: 'dataclass', where: 'main' });
  const quiet = (name: string, text: string): void => { variants.push({ name: `quiet: ${name}`, text, fires: false }); };
  quiet('offloaded cache', program({ ...BASE, extra: 'cache_implementation="offloaded"' }));
  quiet('offloaded cache in a splat, main', program({ ...BASE, where: 'main', args: 'splat', extra: 'cache_implementation="offloaded"' }));
  quiet('one beam, 64 new tokens', program({ ...BASE, beams: 1, newTokens: 64 }));
  quiet('hand cache for the 4 prompts run', handProgram({ size: 'kw', rows: 4, where: 'module' }));
  quiet('hand cache positional, 4 rows', handProgram({ size: 'pos', rows: 4, where: 'main' }));
  return { code: 'OOM301', device: 'a100-40gb', versions: { transformers: '4.46.3' }, unsafe: true, variants };
}
