/**
 * OOM401 spellings, from the rule's Example (AdamW with float32 state while
 * the model computes in bfloat16) for PyTorch — `torch.optim.AdamW`,
 * `optim.AdamW`, `from torch.optim import AdamW (as A)`, `import torch.optim
 * as topt`, Adam, bitsandbytes already imported, inside a train() function —
 * and for optax — `optax.adamw` / `optax.adam`, an `optax.chain`, `import
 * optax as ox`, `from optax import adamw`, jax.numpy under another name or
 * not imported, keyword vs positional learning rate, a trailing comma.
 * Quiet: the Use instead spellings (8-bit AdamW, mu_dtype=bfloat16).
 */
import type { Family, Variant } from './check';

interface T { imp: 'torch' | 'optim' | 'from' | 'as' | 'module-alias'; cls: 'AdamW' | 'Adam'; bnb: 'none' | 'bnb' | 'b'; where: 'module' | 'function'; lr: 'kw' | 'pos' }

function torchProgram(o: T): string {
  const imports = ['import torch'];
  if (o.bnb === 'bnb') imports.unshift('import bitsandbytes as bnb');
  if (o.bnb === 'b') imports.unshift('import bitsandbytes as b');
  const callee = { torch: `torch.optim.${o.cls}`, optim: `optim.${o.cls}`, from: o.cls, as: 'Opt', 'module-alias': `topt.${o.cls}` }[o.imp];
  if (o.imp === 'optim') imports.push('from torch import optim');
  if (o.imp === 'from') imports.push(`from torch.optim import ${o.cls}`);
  if (o.imp === 'as') imports.push(`from torch.optim import ${o.cls} as Opt`);
  if (o.imp === 'module-alias') imports.push('import torch.optim as topt');
  imports.push('from transformers import AutoModelForCausalLM');
  const body = [
    'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float32)',
    'model.to("cuda")',
    'model.gradient_checkpointing_enable()',
    `optimizer = ${callee}(model.parameters(), ${o.lr === 'kw' ? 'lr=1e-5' : '1e-5'})`,
    'for step in range(1000):',
    '    batch = torch.randint(0, 32000, (1, 512), device="cuda")',
    '    with torch.autocast("cuda", dtype=torch.bfloat16):',
    '        out = model(input_ids=batch, labels=batch)',
    '    out.loss.backward()',
    '    optimizer.step()',
    '    optimizer.zero_grad()',
  ];
  const lines = [...imports, '', ''];
  if (o.where === 'module') lines.push(...body);
  else lines.push('def train():', ...body.map((l) => `    ${l}`), '', '', 'train()');
  return lines.join('\n') + '\n';
}

interface X { imp: 'optax' | 'ox' | 'from'; opt: 'adamw' | 'adam' | 'chain'; jnp: 'jnp' | 'np' | 'none'; lr: 'kw' | 'pos' | 'trailing' }

function optaxProgram(o: X): string {
  const lines = ['import equinox as eqx', 'import jax'];
  if (o.jnp === 'jnp') lines.push('import jax.numpy as jnp');
  if (o.jnp === 'np') lines.push('import jax.numpy as np');
  lines.push({ optax: 'import optax', ox: 'import optax as ox', from: `from optax import ${o.opt === 'chain' ? 'adamw, chain, clip_by_global_norm' : o.opt}` }[o.imp]);
  const ns = o.imp === 'from' ? '' : `${o.imp}.`;
  const bf16 = o.jnp === 'none' ? '"bfloat16"' : `${o.jnp}.bfloat16`;
  const lr = { kw: 'learning_rate=3e-4', pos: '3e-4', trailing: '3e-4,' }[o.lr];
  const make = o.opt === 'chain' ? `${ns}chain(${ns}clip_by_global_norm(1.0), ${ns}adamw(${lr}))` : `${ns}${o.opt}(${lr})`;
  const zeros = o.jnp === 'none' ? 'jax.numpy.zeros' : `${o.jnp}.zeros`;
  lines.push('', '',
    'model = eqx.nn.MLP(256, 256, 256, 2, key=jax.random.PRNGKey(0))',
    `opt = ${make}`,
    'opt_state = opt.init(eqx.filter(model, eqx.is_array))',
    '',
    '',
    'def loss_fn(model, x):',
    `    model = jax.tree_util.tree_map(lambda p: p.astype(${bf16}) if eqx.is_array(p) else p, model)`,
    '    return jax.numpy.sum(x)',
    '',
    '',
    `x = ${zeros}((4096,))`,
    'for i in range(1000):',
    '    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x)',
    '    updates, opt_state = opt.update(grads, opt_state, model)',
    '    model = eqx.apply_updates(model, updates)',
  );
  return lines.join('\n') + '\n';
}

export function oom401(): Family {
  const variants: Variant[] = [];
  const T0: T = { imp: 'torch', cls: 'AdamW', bnb: 'none', where: 'module', lr: 'kw' };
  const t = (name: string, c: Partial<T>): void => { variants.push({ name: `torch: ${name}`, text: torchProgram({ ...T0, ...c }), fires: true }); };
  t('Example', {});
  for (const imp of ['optim', 'from', 'as', 'module-alias'] as const) t(`import: ${imp}`, { imp });
  t('Adam', { cls: 'Adam' });
  t('bitsandbytes imported as bnb', { bnb: 'bnb' });
  t('bitsandbytes imported as b', { bnb: 'b', imp: 'from' });
  t('inside train()', { where: 'function' });
  t('positional lr, as, train()', { lr: 'pos', imp: 'as', where: 'function' });
  t('Adam, optim, positional', { cls: 'Adam', imp: 'optim', lr: 'pos' });
  for (const imp of ['optim', 'from', 'module-alias'] as const) t(`train(), import: ${imp}`, { imp, where: 'function' });
  for (const imp of ['from', 'as', 'module-alias'] as const) t(`Adam, import: ${imp}`, { cls: 'Adam', imp });
  t('train(), bnb imported, positional', { where: 'function', bnb: 'bnb', lr: 'pos' });
  t('Adam, train(), b alias, as', { cls: 'Adam', where: 'function', bnb: 'b', imp: 'as' });
  t('module alias, positional, bnb imported', { imp: 'module-alias', lr: 'pos', bnb: 'bnb' });
  const X0: X = { imp: 'optax', opt: 'adamw', jnp: 'jnp', lr: 'kw' };
  const x = (name: string, c: Partial<X>): void => { variants.push({ name: `optax: ${name}`, text: optaxProgram({ ...X0, ...c }), fires: true, fixed: `mu_dtype=${c.jnp === 'none' ? '"bfloat16"' : `${c.jnp ?? 'jnp'}.bfloat16`}` }); };
  x('Example', {});
  for (const imp of ['ox', 'from'] as const) x(`import: ${imp}`, { imp });
  x('adam', { opt: 'adam' });
  x('chain with clipping', { opt: 'chain' });
  for (const jnp of ['np', 'none'] as const) x(`jax.numpy: ${jnp}`, { jnp });
  for (const lr of ['pos', 'trailing'] as const) x(`lr: ${lr}`, { lr });
  x('from-import chain, np, trailing', { imp: 'from', opt: 'chain', jnp: 'np', lr: 'trailing' });
  x('ox adam positional, no jnp', { imp: 'ox', opt: 'adam', lr: 'pos', jnp: 'none' });
  variants.push({ name: 'quiet: torch, 8-bit AdamW', text: torchProgram({ ...T0, bnb: 'bnb' }).replace('torch.optim.AdamW(', 'bnb.optim.AdamW8bit('), fires: false });
  variants.push({ name: 'quiet: optax, mu_dtype=jnp.bfloat16', text: optaxProgram(X0).replace('adamw(learning_rate=3e-4)', 'adamw(learning_rate=3e-4, mu_dtype=jnp.bfloat16)'), fires: false });
  variants.push({ name: 'quiet: optax chain, mu_dtype=jnp.bfloat16', text: optaxProgram({ ...X0, opt: 'chain' }).replace('adamw(learning_rate=3e-4)', 'adamw(learning_rate=3e-4, mu_dtype=jnp.bfloat16)'), fires: false });
  return { code: 'OOM401', device: 'a100-80gb', unsafe: true, variants };
}
