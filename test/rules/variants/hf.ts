/**
 * Spellings shared by the transformers families (OOM301, OOM302, OOM303,
 * OOM402): how the model class is imported, the name torch is bound to, and
 * where the program's statements run (module level, inside main(), under
 * `if __name__ == "__main__":`).
 */
export type Imp = 'from' | 'module' | 'alias' | 'as';
export type Torch = 'torch' | 'th' | 'from';
export type Where = 'module' | 'main' | 'if-main';

export function imports(imp: Imp, torch: Torch, cls = 'AutoModelForCausalLM'): { lines: string[]; cls: string } {
  const lines = [{ torch: 'import torch', th: 'import torch as th', from: 'from torch import randint' }[torch]];
  lines.push({ from: `from transformers import ${cls}`, module: 'import transformers', alias: 'import transformers as hf', as: `from transformers import ${cls} as LM` }[imp]);
  return { lines, cls: { from: cls, module: `transformers.${cls}`, alias: `hf.${cls}`, as: 'LM' }[imp] };
}

/** The statements placed where `where` says, after the import lines. */
/** A torch function as the program reaches it (`torch.randint`, `th.randint`, or `randint` imported by name). */
export function tfn(torch: Torch, fn: string): string {
  return torch === 'from' ? fn : `${torch}.${fn}`;
}

export function place(head: string[], body: string[], where: Where): string {
  const ind = (l: string) => l.split('\n').map((x) => (x === '' ? x : `    ${x}`)).join('\n');
  const lines = [...head, '', ''];
  if (where === 'module') lines.push(...body);
  else if (where === 'main') lines.push('def main():', ...body.map(ind), '', '', 'if __name__ == "__main__":', '    main()');
  else lines.push('if __name__ == "__main__":', ...body.map(ind));
  return lines.join('\n') + '\n';
}
