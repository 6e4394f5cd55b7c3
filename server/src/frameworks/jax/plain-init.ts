/**
 * Plain-JAX parameter init: a params tree built from `jax.random` samplers and
 * `jax.nn.initializers` calls, with no framework Module (`params =
 * init_params(key, ...)`). The first draw outside any model begins a loose
 * record (interp/memory.ts beginLoose); it becomes a model when the statement
 * that ends it binds a dict / list / tuple / plain object whose every array
 * the record made as a parameter is made (an initializer's output, a draw
 * scaled or shifted by an op, a zeros/ones fill), else it is dropped: a batch
 * of raw `jax.random.normal` draws is data, not a model.
 *
 * Eagerly, an initializer runs op by op. jax/_src/nn/initializers.py (jax
 * 0.10.2): `normal(stddev)` returns `random.normal(key, shape, dtype) *
 * jnp.array(stddev, dtype)`; `uniform(scale)` `random.uniform(...) *
 * jnp.array(scale, dtype)`; `truncated_normal(stddev)`
 * `random.truncated_normal(...) * stddev`; `variance_scaling` (lecun_*, he_*,
 * glorot_* / xavier_*, kaiming_*) `random.truncated_normal(...) * stddev`,
 * `random.normal(...) * jnp.sqrt(variance)` or `random.uniform(...) *
 * jnp.sqrt(3 * variance)`. The samplers are jitted inside jax.random (one
 * output buffer); the multiply after them is a separate eager op, so the
 * sample and the scaled copy are alive together, and the sample is freed when
 * the initializer returns. Under `jax.jit` XLA fuses them: only the outputs.
 * `zeros` / `ones` / `constant` are one `jnp.zeros` / `jnp.ones` / `jnp.full`.
 * `orthogonal` / `delta_orthogonal` (QR of a normal draw) are not modelled.
 */
import type { CallArgs, Interpreter } from '../../interp/interp';
import { visitTensors, type ModelRecord } from '../../interp/memory';
import type { SyntaxNode } from '../../interp/parser';
import { type TensorV, type Value, unknown } from '../../interp/values';
import { spellOrImport } from './stack-sites';

const CITATION = 'jax/_src/nn/initializers.py (jax 0.10.2): random.<sampler>(key, shape, dtype) * scale — the sampler is jitted, the multiply is eager';
const JAX_INIT_PREFIXES = ['jax.nn.initializers.', 'flax.linen.initializers.', 'flax.nnx.initializers.'];
/** Samplers whose output is a parameter's values (not dropout masks or token ids). */
export const PARAM_SAMPLERS = new Set(['jax.random.normal', 'jax.random.uniform', 'jax.random.truncated_normal']);

export function installPlainInit(it: Interpreter): void {
  it.plainInitDraw = (node) => beginPlainInit(it, node);
  it.plainInitEnd = (r, bound, stmt) => endPlainInit(it, r, bound, stmt);
  it.externs.set('__call_value__', (_i, self, c, node) => {
    if (self?.t !== 'init') return unknown('calling a value that is not callable', it.span(node));
    return callInitializer(it, self.init, c, node);
  });
}

function beginPlainInit(it: Interpreter, node: SyntaxNode): void {
  const m = it.memory;
  const training = it.state.get('training') as { gradCalls: unknown[] } | undefined;
  // A draw inside a vmapped function outside any model (`jax.vmap(init_layer)(keys)`): the vmap's own loose
  // record (a stack of plain arrays, semantics.ts) becomes the candidate instead of being dropped.
  const cur = m.current;
  if (cur?.loose && !cur.plainInit && cur.framework === 'jax' && m.vmap.length > 0) {
    cur.plainInit = { calls: it.callSites.map((s) => ({ node: s.node, call: s.call })), gradCalls: training?.gradCalls.length ?? 0 };
    cur.loose = Math.max(cur.loose, it.frames.length);
    return;
  }
  if (m.current || m.abstractDepth > 0 || it.importDepth > 0 || m.vmap.length > 0) return;
  const r = m.beginLoose({ name: 'params', framework: 'jax', span: it.span(node), phase: 'init', jitted: m.jitDepth > 0, gc: m.jitDepth === 0 });
  // Every statement end is a candidate end; memory.ts defers it inside functions that return a value.
  r.loose = it.frames.length;
  r.plainInit = { calls: it.callSites.map((s) => ({ node: s.node, call: s.call })), gradCalls: training?.gradCalls.length ?? 0 };
}

function callInitializer(it: Interpreter, init: { name: string; random: boolean; dtype?: string }, c: CallArgs, node: SyntaxNode): Value {
  if (!JAX_INIT_PREFIXES.some((p) => init.name.startsWith(p))) return unknown(`calling ${init.name} outside its framework is not modelled`, it.span(node));
  const short = init.name.slice(init.name.lastIndexOf('.') + 1);
  beginPlainInit(it, node);
  if (/orthogonal/.test(short)) return unknown(`${short} initializer (QR of a normal draw) is not modelled`, it.span(node));
  const key = c.args[0] ?? c.kw.get('key');
  const shape = c.args[1] ?? c.kw.get('shape');
  const dtype = c.args[2] ?? c.kw.get('dtype') ?? (init.dtype ? { t: 'dtype', dtype: init.dtype } as Value : undefined);
  if (!shape) return unknown(`${short} initializer called without a shape`, it.span(node));
  const kw = new Map<string, Value>([['shape', shape], ...(dtype ? [['dtype', dtype] as [string, Value]] : [])]);
  if (!init.random) {
    const fill = short === 'ones' ? 'jax.numpy.ones' : short === 'zeros' ? 'jax.numpy.zeros' : undefined;
    if (!fill) return unknown(`${short} initializer called directly is not modelled`, it.span(node));
    return it.call({ t: 'extern', name: fill }, { args: [], kw }, node);
  }
  const sample = it.call({ t: 'extern', name: 'jax.random.normal' }, { args: key ? [key] : [], kw }, node);
  if (sample.t !== 'tensor') return sample;
  // The scale is applied by an eager multiply: a second buffer of the same shape while the sample is alive.
  const scaled = it.memory.alloc({
    // The sample's shape as made (under vmap it carries the batch axes; `from` keeps them from being added twice).
    shape: sample.shape, dtype: sample.dtype, role: 'activation', name: short, span: it.span(node),
    lib: 'jax', from: [sample], citation: CITATION,
  });
  it.memory.release(sample);
  return scaled;
}

/** True when the record is a parameter tree the statement bound (then it is kept as a model). */
function endPlainInit(it: Interpreter, r: ModelRecord, bound: Value | undefined, stmt: SyntaxNode | undefined): boolean {
  if (!bound || !['dict', 'list', 'tuple', 'inst'].includes(bound.t)) return false;
  if (bound.t === 'inst' && bound.cls.kind !== undefined && bound.cls.kind !== 'plain') return false;
  const training = it.state.get('training') as { gradCalls: unknown[] } | undefined;
  if ((training?.gradCalls.length ?? 0) !== r.plainInit?.gradCalls) return false;
  const mine = new Set<number>();
  for (const ev of r.events) if (ev.op === 'alloc') mine.add(ev.tensor.id);
  const leaves: TensorV[] = [];
  let foreign = false;
  // A raw draw kept as it came from the sampler (`{"x": jax.random.normal(k, (B, D))}`) is data, not a parameter
  // an init made: parameters are an initializer's output, a scaled draw, or a fill — unless the program calls it
  // parameters (`params = init_params(key)` returning raw `jax.random.normal` draws, as hand-written JAX models do).
  const left = stmt?.namedChildren[0]?.childForFieldName('left');
  const right = stmt?.namedChildren[0]?.childForFieldName('right');
  const callee = right?.type === 'call' ? right.childForFieldName('function')?.text ?? '' : '';
  const named = /param|weight/i.test(`${left?.text ?? ''} ${callee}`);
  visitTensors(bound, (t) => { if (mine.has(t.id) && !/int|bool/.test(t.dtype) && (!t.random || named)) leaves.push(t); else foreign = true; });
  if (foreign || leaves.length === 0) return false;
  // A leaf the analysis could not size (an initializer that is not modelled) makes the tree's size unknown.
  for (const u of unknownLeaves(bound)) r.unknowns.push({ what: 'a parameter of the tree', reason: u.reason, span: u.span });
  for (const t of leaves) t.role = 'param';
  // The timeline names each parameter by its path in the tree (`embed`, `layers.0.w`), grouped by its top-level key.
  const paths = treePaths(bound);
  for (const ev of r.events) {
    if (ev.op !== 'alloc' || !paths.has(ev.tensor.id)) continue;
    const path = paths.get(ev.tensor.id)!;
    ev.tensor.role = 'param';
    ev.tensor.label = path || 'params';
    ev.tensor.group = `${path.split('.')[0] || 'params'} (${ev.tensor.dtype})`;
  }
  r.result = bound;
  if (left?.type === 'identifier') r.name = left.text;
  // The model is reported where the tree is bound (`params = init_params(key)`), not at its first draw.
  if (right) r.span = it.span(right);
  if (!r.jitted) {
    const site = right?.type === 'call' ? r.plainInit?.calls.find((s) => s.node.id === right.id) : undefined;
    const callee = right?.type === 'call' ? right.childForFieldName('function') : null;
    // The tree made by the statement's own expression (`params = {"w": ...}`): jit a lambda around it.
    r.observations.push({
      kind: 'eager-init', span: r.span, framework: 'jax',
      ...(callee ? { callee: it.span(callee), static: site ? staticArgs(site.call) : undefined } : right ? { expression: it.span(right) } : {}),
      ...spellOrImport(it, 'jax.jit'),
    });
  }
  return true;
}

/** Each array's path in a tree of dicts, lists and tuples ('' for the root). */
function treePaths(v: Value): Map<number, string> {
  const out = new Map<number, string>();
  const walk = (x: Value, path: string, depth: number): void => {
    if (depth > 32) return;
    const at = (k: string) => (path ? `${path}.${k}` : k);
    if (x.t === 'tensor') { if (!out.has(x.id)) out.set(x.id, path); return; }
    if (x.t === 'list' || x.t === 'tuple') x.items.forEach((y, i) => walk(y, at(String(i)), depth + 1));
    else if (x.t === 'dict') x.keys.forEach((k, i) => walk(x.vals[i], at(k.t === 'str' ? k.v : k.t === 'int' ? String(k.v) : '?'), depth + 1));
    else if (x.t === 'inst') for (const [k, y] of x.attrs) walk(y, at(k), depth + 1);
  };
  walk(v, '', 0);
  return out;
}

function unknownLeaves(v: Value): Extract<Value, { t: 'unknown' }>[] {
  const out: Extract<Value, { t: 'unknown' }>[] = [];
  const walk = (x: Value, depth: number): void => {
    if (depth > 32) return;
    if (x.t === 'unknown') out.push(x);
    else if (x.t === 'list' || x.t === 'tuple') x.items.forEach((y) => walk(y, depth + 1));
    else if (x.t === 'dict') x.vals.forEach((y) => walk(y, depth + 1));
    else if (x.t === 'inst') for (const y of x.attrs.values()) walk(y, depth + 1);
  };
  walk(v, 0);
  return out;
}

/** Arguments jit must treat as static (Python numbers, strings, shapes): positions and keyword names. */
function staticArgs(c: CallArgs): { argnums: number[]; argnames: string[] } {
  const isStatic = (v: Value): boolean => {
    let arrays = false;
    visitTensors(v, () => { arrays = true; });
    return !arrays && v.t !== 'key' && v.t !== 'unknown';
  };
  return {
    argnums: c.args.map((v, i) => (isStatic(v) ? i : -1)).filter((i) => i >= 0),
    argnames: [...c.kw].filter(([, v]) => isStatic(v)).map(([k]) => k),
  };
}
