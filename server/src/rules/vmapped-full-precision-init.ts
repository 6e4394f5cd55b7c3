/**
 * ## What it does
 * Finds a stack of layers built at once with `jax.vmap` / `eqx.filter_vmap`
 * in full precision and then copied to a smaller dtype.
 *
 * ## Why is this bad?
 * Outside `jit`, the vmapped constructor materialises every layer's
 * parameters in float32; the cast makes a second, float16 copy of the whole
 * stack while the float32 one is still referenced. Both exist at once: a 7B
 * model needs 28 GB + 14 GB during init although it is 14 GB when done.
 *
 * ## Example
 * ```python
 * import equinox as eqx
 * import jax
 * import jax.numpy as jnp
 * import jax.tree_util as jtu
 *
 * class Stack(eqx.Module):
 *     layers: eqx.nn.Linear
 *     def __init__(self, key):
 *         make = lambda k: eqx.nn.Linear(8192, 8192, key=k)
 *         self.layers = eqx.filter_vmap(make)(jax.random.split(key, 64))
 *         self.layers = jtu.tree_map(lambda x: x.astype(jnp.float16), self.layers)
 *
 * model = Stack(jax.random.PRNGKey(0))
 * ```
 *
 * ## Use instead
 * ```python
 * import equinox as eqx
 * import jax
 * import jax.numpy as jnp
 * import jax.tree_util as jtu
 *
 * class Stack(eqx.Module):
 *     layers: eqx.nn.Linear
 *     def __init__(self, key):
 *         make = lambda k: eqx.nn.Linear(8192, 8192, key=k)
 *         self.layers = eqx.filter_jit(eqx.filter_vmap(lambda k: jtu.tree_map(lambda x: x.astype(jnp.float16), make(k))))(jax.random.split(key, 64))
 *
 * model = Stack(jax.random.PRNGKey(0))
 * ```
 *
 * ## Fix safety
 * Unsafe: the parameters are cast inside a jitted constructor, so XLA never
 * keeps the float32 stack; the values are the same, but the code now
 * compiles the constructor.
 *
 * ## References
 * - equinox `filter_vmap` (equinox/_vmap_pmap.py): array outputs are stacked on axis 0
 * - equinox FAQ, "How do I initialise a model in low precision / jit the initialisation"
 */
import { dtypeBytes } from '../../../shared/src/dtypes';
import type { Span } from '../../../shared/src/facts';
import type { Fix, TextEdit } from '../analysis/api';
import type { CastSite, VmapSite } from '../frameworks/jax/stack-sites';
import type { Rule } from './types';
import { fmt, lineSpan, replace } from './util';

const SMALL = new Set(['float16', 'bfloat16', 'float8']);

const slice = (text: string, s: Span): string => text.slice(s.start, s.end);
const inside = (a: Span, b: Span): boolean => a.start >= b.start && a.end <= b.end;

/**
 * The edits that move the cast into the vmapped construction under jit, from
 * the nodes the interpreter recorded: the vmapped call `X(A)` becomes
 * `jit(V(lambda p: C[R := F(p)]))(A)` when X is `V(F, ...)` (each layer is
 * cast as it is made), else `jit(lambda p: C[R := X(p)])(A)` (the whole
 * stack is cast inside the jit); C is the cast call and R its argument that
 * holds the stack. The cast call then gives back R unchanged, and a
 * statement left as `x = x` is deleted.
 */
export function moveCastIntoJit(text: string, v: VmapSite, c: CastSite): TextEdit[] | undefined {
  if (!v.argKinds) return undefined;
  const nested = c.ref.start === v.call.start && c.ref.end === v.call.end;
  if (!nested) {
    if (inside(v.call, c.call) || inside(c.call, v.call)) return undefined;
    // The cast is written somewhere else: it may move into the construction only if its names mean the same there.
    const sameScope = c.frame === v.frame || (c.global && !c.idents.some((n) => v.frameLocals.includes(n)));
    if (!sameScope) return undefined;
  }
  const taken = new Set([...c.idents, ...v.idents]);
  const castWith = (perLayer: string): string =>
    text.slice(c.call.start, c.ref.start) + perLayer + text.slice(c.ref.end, c.call.end);
  let params: string[];
  let perLayer: (callee: string) => string;
  const lam = v.lambda;
  if (v.fn && lam && lam.params.length === v.argKinds.length && v.argKinds.every((k) => k === null) && !lam.params.some((p) => c.idents.includes(p))) {
    // `lambda k: Block(cfg, k)` is inlined: each layer is `Block(cfg, k)`.
    params = lam.params;
    perLayer = () => (lam.bodyIsPrimary ? slice(text, lam.body) : `(${slice(text, lam.body)})`);
  } else {
    let n = 0;
    const fresh = (): string => { let p: string; do p = n++ === 0 ? 'k' : `k${n}`; while (taken.has(p)); taken.add(p); return p; };
    params = v.argKinds.map((k) => k ?? fresh());
    const actuals = v.argKinds.map((k, i) => (k ? `${k}=${params[i]}` : params[i])).join(', ');
    perLayer = (callee) => `${callee}(${actuals})`;
  }
  const lambda = (body: string): string => `lambda ${params.join(', ')}: ${body}`;
  let built: string;
  if (v.fn) {
    const fnText = slice(text, v.fn);
    const f = /^[A-Za-z_][\w.]*$/.test(fnText) ? fnText : `(${fnText})`;
    built = `${v.jit}(${text.slice(v.callee.start, v.fn.start)}${lambda(castWith(perLayer(f)))}${text.slice(v.fn.end, v.callee.end)})${slice(text, v.args)}`;
  } else {
    built = `${v.jit}(${lambda(castWith(perLayer(slice(text, v.callee))))})${slice(text, v.args)}`;
  }
  const edits: TextEdit[] = [];
  if (v.jitImport) edits.push({ start: v.jitImport.at, end: v.jitImport.at, newText: v.jitImport.text });
  if (nested) {
    edits.push(replace(c.call, built));
    return edits;
  }
  edits.push(replace(v.call, built));
  const refText = slice(text, c.ref);
  const selfAssign = c.left && c.right && c.right.start === c.call.start && c.right.end === c.call.end && slice(text, c.left) === refText;
  edits.push(selfAssign ? { ...lineSpan(text, c.stmt), newText: '' } : replace(c.call, refText));
  return edits;
}

export const vmappedFullPrecisionInit: Rule = {
  code: 'OOM101',
  name: 'vmapped-full-precision-init',
  status: 'stable',
  severity: 'warning',
  fixable: 'sometimes',
  summary: 'A vmapped stack of layers is built in float32 and then copied to a smaller dtype while both are alive.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      for (const v of record.observations) {
        if (v.kind !== 'vmap-construct' || v.jitted) continue;
        if (!v.dtypes.some((d) => d === 'float32' || d === 'float64')) continue;
        const casts = record.observations.filter((o): o is Extract<typeof o, { kind: 'cast-copy' }> =>
          o.kind === 'cast-copy' && SMALL.has(o.to) && (v.ids.includes(o.sourceId) || o.inVmapGroup === v.group));
        if (casts.length === 0) continue;
        const cast = casts[0];
        const init = report.estimate.phases.find((p) => p.phase === 'init');
        const from = v.dtypes.includes('float64') ? 'float64' : 'float32';
        const copyBytes = (v.bytes * dtypeBytes(cast.to)) / dtypeBytes(from);
        const fixes: Fix[] = [];
        const site = casts.find((c) => c.site)?.site;
        const edits = v.site && site ? moveCastIntoJit(ctx.text, v.site, site) : undefined;
        if (edits) {
          fixes.push({
            title: v.site?.fn ? `Build each layer in ${cast.to} inside ${v.site.jit}` : `Build and cast the stack inside ${v.site!.jit}`,
            applicability: 'unsafe',
            edits,
          });
        }
        out.push({
          span: v.span,
          message: `All ${v.batch} layers are built at once in float32 (${fmt(v.bytes)}) and then copied to ${cast.to} (${fmt(copyBytes)}): both copies are alive together` +
            (init?.peakBytes ? `, init peak ${fmt(init.peakBytes)}` : '') + '.',
          related: [{ span: site?.stmt ?? cast.span, message: `the ${cast.to} copy is made here, while the float32 stack is still referenced` }],
          fixes,
        });
      }
    }
    return out;
  },
};
