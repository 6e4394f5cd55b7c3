/**
 * The minimum of evidence before a construction is reported as a model.
 * A model is what a user would call one: an instance of a class the
 * program defines, a loaded checkpoint, a JAX init that produced a
 * parameter tree. Two things are never reported:
 *
 * - a construction inside code that a syntax error cut loose: tree-sitter
 *   keeps the statements of a class whose header is broken as loose
 *   `ERROR` children, so `self.fc = nn.Linear(...)` would otherwise run at
 *   module level and report a 'Linear' model with made-up numbers;
 * - a bare catalogue layer (`nn.Linear`, `nn.GELU`, `nn.Dropout`,
 *   `nn.Embedding`, `eqx.nn.Linear`, …) on its own: a building block, not
 *   a model. Submodules are already part of their parent's record.
 */
import { visitTensors, type ModelRecord } from '../interp/memory';
import { moduleTensors } from '../frameworks/torch/semantics';
import type { Value } from '../interp/values';

function holdsTensor(v: Value): boolean {
  let any = false;
  visitTensors(v, () => { any = true; });
  return any;
}
import type { Tree } from '../interp/parser';

/** Whether the offset range lies under a tree-sitter ERROR node. */
export function inErrorNode(tree: Tree, start: number, end: number): boolean {
  if (!tree.rootNode.hasError) return false;
  for (let n = tree.rootNode.descendantForIndex(start, Math.max(start, end - 1)); n; n = n.parent) {
    if (n.type === 'ERROR' || n.isError) return true;
  }
  return false;
}

/**
 * Whether the record is a bare catalogue layer: not a class of the
 * program's own, not a container, and a single layer's own parameters
 * (`weight`, `bias`), where a composite catalogue module (eqx.nn.MLP,
 * MultiheadAttention) names its parameters by sublayer (`layers.0.weight`).
 */
export function isBareLayer(rec: ModelRecord): boolean {
  const r = rec.result;
  if (r?.t !== 'inst' || !r.cls.entry || r.items) return false;
  // A vmapped construction makes a stack of layers, not one (a loose record is kept only for a vmap that made parameters).
  if (rec.loose || rec.observations.some((o) => o.kind === 'vmap-construct')) return false;
  let specs;
  try {
    specs = r.cls.entry.params(r.catArgs ?? {});
  } catch {
    return true;
  }
  return !Array.isArray(specs) || !specs.some((p) => p.name.includes('.'));
}

/**
 * A torch module that made no tensor and left nothing unknown (`LitModule(net=None)`, a wrapper built empty, a
 * metric such as PSNR): it holds no memory to report, so it is not a model, wherever it was built.
 */
export function holdsNothing(rec: ModelRecord): boolean {
  // An equinox Module is any pytree class (a diffrax solver, a settings object): one holding no parameter (no array,
  // or only data arrays such as diffrax's `SaveAt(ts=jnp.linspace(0, 1, 100))`) is not a model.
  if (rec.framework === 'equinox' && rec.result?.t === 'inst' && rec.unknowns.length === 0) {
    // Its own pytree's leaves only: a function field's closure (`VPSDE(lambda t: ...)` at module level reaches every
    // global, the model among them) is not part of the module.
    return moduleTensors(rec.result).params.length === 0;
  }
  // A container holding a module that is not known (`nn.Sequential(*blocks)`, blocks from a loop not followed) may
  // hold anything: its slots are the model's unknowns (analyze.ts unknownModuleSlots).
  if (rec.result?.t === 'inst' && rec.result.items?.some((m) => m.t === 'unknown')) return false;
  return rec.framework === 'torch' && rec.result?.t === 'inst' && rec.unknowns.length === 0 && !holdsTensor(rec.result);
}

/**
 * `trained`: ids of the tensors an optimizer was given. A bare layer the program trains on its own
 * (`model = nn.Linear(784, 10); torch.optim.SGD(model.parameters(), ...)`, logistic regression in a tutorial) is
 * the program's model.
 */
export function hasModelEvidence(rec: ModelRecord, tree: Tree, trained?: Set<number>, movedToDevice?: (rec: ModelRecord) => boolean): boolean {
  if (inErrorNode(tree, rec.span.start, rec.span.end)) return false;
  if (holdsNothing(rec)) return false;
  // A loose record (a vmapped call, a plain-JAX init) that allocated nothing: a training closure run through
  // `jax.jit(jax.vmap(make_train(config)))` (purejaxrl) read as "stack · 0 parameters, init 0 B, fits".
  if (rec.loose && !rec.events.some((e) => e.op === 'alloc')) return false;
  if (!isBareLayer(rec)) return true;
  // A bare layer whose size is not known (`nn.Linear(d, d)` with d from the environment) made no tensor the
  // optimizer could name: moved to the accelerator, it is the program's model, reported with its size unknown
  // (never dropped in silence).
  if (rec.unknowns.length && rec.result && !holdsTensor(rec.result) && movedToDevice?.(rec)) return true;
  let optimised = false;
  if (trained?.size && rec.result) visitTensors(rec.result, (t) => { if (trained.has(t.id)) optimised = true; });
  return optimised;
}
