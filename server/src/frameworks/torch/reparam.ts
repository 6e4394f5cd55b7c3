/**
 * Weight reparametrizations that change a module's parameters and buffers:
 * `torch.nn.utils.weight_norm` / `spectral_norm` (the hook-based functions,
 * still in torch 2.x) and their `torch.nn.utils.parametrizations` versions,
 * plus the `remove_*` functions that undo the hook-based ones. Each returns
 * the module it was given, as PyTorch does.
 *
 * Sources (torch 2.13):
 * - torch/nn/utils/weight_norm.py `WeightNorm.apply`: `dim=None` becomes -1;
 *   the weight leaves `_parameters`, `name_g` = `norm_except_dim(weight, 2, dim)`
 *   and `name_v` = `weight.data` become parameters. `norm_except_dim`
 *   (aten/src/ATen/native/WeightNorm.cpp): dim -1 → a 0-d norm (1 element);
 *   otherwise the weight's shape with every size 1 but the one at `dim`.
 * - torch/nn/utils/parametrizations.py `weight_norm`: the same g (`original0`)
 *   and v (`original1`) under `module.parametrizations.<name>`.
 * - torch/nn/utils/spectral_norm.py `SpectralNorm.apply`: `dim=None` is 1 for
 *   ConvTranspose1d/2d/3d, else 0; the weight stays a parameter as
 *   `name_orig`; buffers `name_u` (h = weight.size(dim)) and `name_v`
 *   (w = numel / h) in the weight's dtype.
 * - torch/nn/utils/parametrizations.py `_SpectralNorm`: the same `_u` / `_v`
 *   buffers, only when the weight has more than one dimension; the weight is
 *   `parametrizations.<name>.original`.
 * - `remove_weight_norm` / `remove_spectral_norm`: the weight is a parameter of
 *   its own shape again; g, v, u are gone.
 *
 * A module whose weight is not a known tensor, or a `dim` that is not a known
 * int, makes the call an unknown (the count would otherwise miss g, u or v).
 */
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import type { Dim } from '../../interp/catalog-types';
import { torchBaseLayer } from './semantics';
import { type ClassV, type InstV, type TensorV, type Value, describe, unknown } from '../../interp/values';

function holderClass(it: Interpreter, name: string): ClassV {
  let m = it.state.get('torchReparamHolders') as Map<string, ClassV> | undefined;
  if (!m) it.state.set('torchReparamHolders', (m = new Map()));
  let c = m.get(name);
  if (!c) {
    // No definition node: the analyzer's own holder, whose attributes are registered members (as containers are).
    c = { t: 'class', name, bases: [], ns: new Map(), kind: 'torch', dataclass: false, fields: [] };
    m.set(name, c);
  }
  return c;
}

function newTensor(it: Interpreter, like: TensorV, shape: Dim[], role: TensorV['role'], name: string, node: SyntaxNode): TensorV {
  return it.memory.alloc({ shape, dtype: like.dtype, role, name, span: it.span(node), placement: like.placement, lib: 'torch', noBatch: true });
}

export function installTorchReparam(it: Interpreter): void {
  const reg = (names: string[], fn: (c: CallArgs, node: SyntaxNode) => Value) => {
    for (const n of names) it.externs.set(n, (_i, _self, c, node) => fn(c, node));
  };
  const arg = (c: CallArgs, i: number, k: string): Value | undefined => c.args[i] ?? c.kw.get(k);

  /** The module, the parameter name and its weight tensor, or why not. */
  const target = (what: string, c: CallArgs, node: SyntaxNode): { mod: InstV; name: string; w: TensorV } | Value => {
    const mod = arg(c, 0, 'module');
    const nameV = arg(c, 1, 'name');
    const name = nameV === undefined || nameV.t === 'none' ? 'weight' : nameV.t === 'str' ? nameV.v : null;
    if (mod?.t !== 'inst' || mod.cls.kind !== 'torch') return unknown(`${what} of ${mod ? describe(mod) : 'nothing'}: not a known module`, it.span(node));
    if (name === null) return unknown(`${what}: parameter name ${describe(nameV!)} is not known`, it.span(node));
    const w = mod.attrs.get(name);
    if (w?.t !== 'tensor') return unknown(`${what}: ${mod.cls.name}.${name} is not a known tensor`, it.span(node));
    return { mod, name, w };
  };
  /** `dim`, or why not: `absent` when not given, `none` when given as None. */
  const dimOf = (what: string, v: Value | undefined, absent: number, none: number, node: SyntaxNode): number | Value => {
    if (v === undefined) return absent;
    if (v.t === 'none') return none;
    if (v.t === 'int') return v.v;
    return unknown(`${what}: dim ${describe(v)} is not known`, it.span(node));
  };
  const at = (shape: Dim[], d: number): number | null => (d >= 0 && d < shape.length ? d : d < 0 && d + shape.length >= 0 ? d + shape.length : null);

  /** norm_except_dim's shape: [] for dim -1, else 1 everywhere but `dim`. */
  const gShape = (w: TensorV, dim: number): Dim[] | null => {
    if (dim === -1) return [];
    const d = at(w.shape, dim);
    return d === null ? null : w.shape.map((s, i) => (i === d ? s : 1));
  };

  const weightNorm = (parametrize: boolean) => (c: CallArgs, node: SyntaxNode): Value => {
    const what = parametrize ? 'parametrizations.weight_norm' : 'weight_norm';
    const t = target(what, c, node);
    if (!('mod' in t)) return t;
    // weight_norm(module, name='weight', dim=0): dim=None is -1 (the norm over the whole weight).
    const dim = dimOf(what, arg(c, 2, 'dim'), 0, -1, node);
    if (typeof dim !== 'number') return dim;
    const shape = gShape(t.w, dim);
    if (!shape) return unknown(`${what}: dim ${dim} is out of range for ${t.mod.cls.name}.${t.name}`, it.span(node));
    const g = newTensor(it, t.w, shape, 'param', parametrize ? 'original0' : `${t.name}_g`, node);
    t.w.role = 'param';
    if (parametrize) {
      const holder = it.newInst(holderClass(it, 'ParametrizationList'));
      holder.attrs.set('original0', g);
      holder.attrs.set('original1', t.w);
      parametrized(t.mod).attrs.set(t.name, holder);
      // The recomputed weight is read through the parametrization: the same elements as v, counted once.
      t.mod.attrs.delete(t.name);
      t.mod.attrs.set(t.name, t.w);
    } else {
      t.mod.attrs.delete(t.name);
      t.mod.attrs.set(`${t.name}_g`, g);
      t.mod.attrs.set(`${t.name}_v`, t.w);
      // The recomputed weight (a plain attribute, not a parameter): the same elements as v, counted once.
      t.mod.attrs.set(t.name, t.w);
    }
    return t.mod;
  };

  /** module.parametrizations (a ModuleDict of ParametrizationLists), made on first use. */
  const parametrized = (mod: InstV): InstV => {
    const p = mod.attrs.get('parametrizations');
    if (p?.t === 'inst') return p;
    const holder = it.newInst(holderClass(it, 'ModuleDict'));
    mod.attrs.set('parametrizations', holder);
    return holder;
  };

  const spectralNorm = (parametrize: boolean) => (c: CallArgs, node: SyntaxNode): Value => {
    const what = parametrize ? 'parametrizations.spectral_norm' : 'spectral_norm';
    const t = target(what, c, node);
    if (!('mod' in t)) return t;
    const base = t.mod.cls.node ? torchBaseLayer(it, t.mod)?.names[0] ?? '' : t.mod.cls.name;
    const transposed = /ConvTranspose[123]d$/.test(base);
    // spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None).
    const dim = dimOf(what, arg(c, 4, 'dim'), transposed ? 1 : 0, transposed ? 1 : 0, node);
    if (typeof dim !== 'number') return dim;
    const d = at(t.w.shape, dim);
    if (d === null) return unknown(`${what}: dim ${dim} is out of range for ${t.mod.cls.name}.${t.name}`, it.span(node));
    const h = t.w.shape[d];
    const rest = t.w.shape.filter((_, i) => i !== d);
    const w: Dim = rest.every((s) => typeof s === 'number') ? (rest as number[]).reduce((a, b) => a * b, 1) : rest.find((s) => typeof s !== 'number')!;
    t.w.role = 'param';
    if (parametrize) {
      const holder = it.newInst(holderClass(it, 'ParametrizationList'));
      holder.attrs.set('original', t.w);
      if (t.w.shape.length > 1) {
        const inner = it.newInst(holderClass(it, '_SpectralNorm'));
        inner.attrs.set('_u', newTensor(it, t.w, [h], 'buffer', '_u', node));
        inner.attrs.set('_v', newTensor(it, t.w, [w], 'buffer', '_v', node));
        holder.attrs.set('0', inner);
      }
      parametrized(t.mod).attrs.set(t.name, holder);
      t.mod.attrs.delete(t.name);
      t.mod.attrs.set(t.name, t.w);
    } else {
      t.mod.attrs.delete(t.name);
      t.mod.attrs.set(`${t.name}_orig`, t.w);
      t.mod.attrs.set(t.name, t.w);
      t.mod.attrs.set(`${t.name}_u`, newTensor(it, t.w, [h], 'buffer', `${t.name}_u`, node));
      t.mod.attrs.set(`${t.name}_v`, newTensor(it, t.w, [w], 'buffer', `${t.name}_v`, node));
    }
    return t.mod;
  };

  /** remove_weight_norm / remove_spectral_norm: the weight is a parameter of its own shape again. */
  const remove = (what: string, suffixes: string[], keep: string) => (c: CallArgs, node: SyntaxNode): Value => {
    const mod = arg(c, 0, 'module');
    const nameV = arg(c, 1, 'name');
    const name = nameV === undefined ? 'weight' : nameV.t === 'str' ? nameV.v : null;
    if (mod?.t !== 'inst' || name === null) return unknown(`${what} of a module or name that is not known`, it.span(node));
    const w = mod.attrs.get(`${name}_${keep}`);
    if (w?.t !== 'tensor') return unknown(`${what}: ${mod.cls.name} has no ${name}_${keep}`, it.span(node));
    for (const s of suffixes) mod.attrs.delete(`${name}_${s}`);
    mod.attrs.delete(name);
    mod.attrs.set(name, w);
    return mod;
  };

  reg(['torch.nn.utils.weight_norm', 'torch.nn.utils.weight_norm.weight_norm'], weightNorm(false));
  reg(['torch.nn.utils.parametrizations.weight_norm'], weightNorm(true));
  reg(['torch.nn.utils.spectral_norm', 'torch.nn.utils.spectral_norm.spectral_norm'], spectralNorm(false));
  reg(['torch.nn.utils.parametrizations.spectral_norm'], spectralNorm(true));
  reg(['torch.nn.utils.remove_weight_norm', 'torch.nn.utils.weight_norm.remove_weight_norm'], remove('remove_weight_norm', ['g', 'v'], 'v'));
  reg(['torch.nn.utils.remove_spectral_norm', 'torch.nn.utils.spectral_norm.remove_spectral_norm'], remove('remove_spectral_norm', ['orig', 'u', 'v'], 'orig'));
}
