/**
 * Hugging Face accelerate, as training and big-model-inference scripts use it
 * (huggingface/accelerate src/accelerate, v1.15.0):
 *
 * - `Accelerator(mixed_precision="bf16" | "fp16", gradient_accumulation_steps=k,
 *   deepspeed_plugin=DeepSpeedPlugin(zero_stage=N), fsdp_plugin=...)`:
 *   `prepare(model, optimizer, dataloader, ...)` returns its arguments
 *   (accelerator.py `prepare` → `_prepare_one`: the same model, wrapped), and
 *   with native AMP the model's forward runs under `torch.autocast` in that
 *   dtype (accelerator.py `prepare_model`: `model.forward =
 *   autocast_context(model.forward)`); parameters, gradients and optimizer
 *   state stay in the parameters' dtype. "fp16" adds a GradScaler
 *   (utils/modeling.py `get_grad_scaler`). `accelerator.backward(loss)` is
 *   `loss.backward()` (divided by the accumulation steps first);
 *   `accelerator.accumulate(model)` skips gradient synchronisation, adding
 *   no memory (.grad accumulates in place). Without keywords, the
 *   environment `accelerate launch` sets (program/launch.ts: `--mixed_precision`,
 *   `--use_fsdp`, `--use_deepspeed --zero_stage`, or its `--config_file`)
 *   decides mixed precision and sharding.
 * - `init_empty_weights()` (big_modeling.py): parameters made inside are on
 *   the meta device and take no memory.
 * - `infer_auto_device_map(model, max_memory=..., no_split_module_classes=[...], dtype=...)`
 *   and `load_checkpoint_and_dispatch(model, checkpoint, device_map="auto", max_memory=..., dtype=...)`
 *   (big_modeling.py: `get_balanced_memory` then `infer_auto_device_map` unless
 *   "sequential"): the placement of shared/src/accelerate.ts over the model's
 *   module tree; dispatch then loads every weight on its device.
 * - `device_map` + `max_memory` of `from_pretrained` use the same placement
 *   (transformers' copy of the algorithm): `placeModules` below.
 */
import type { DType, Placement } from '../../../../shared/src/facts';
import { balancedMemory, fileSizeToInt, inferDeviceMap, treeFromSizes, type MapDevice, type MapMode, type PlaceNode } from '../../../../shared/src/accelerate';
import { CUDA_CONTEXT_BYTES } from '../../../../shared/src/budget';
import { dtypeBytes } from '../../../../shared/src/dtypes';
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type InstV, type TensorV, type Value, NONE, describe, num, str, unknown } from '../../interp/values';
import { noteBackward, trainingProgram, unreadSharding } from '../../phases/training';
import type { ModelRecord } from '../../interp/memory';
import { hfLoadOf } from '../transformers/semantics';

export interface MaxMemory { gpus: Record<number, number>; cpu?: number }

/**
 * `max_memory={0: "20GiB", 1: 30 * 2**30, "cpu": "100GB"}`: GPU index → bytes as accelerate's
 * get_max_memory / convert_file_size_to_int read them (utils/modeling.py, v1.15.0). "disk" and "mps"
 * entries are skipped; a "cpu" entry lets modules that fit on no GPU go to the host.
 */
export function maxMemoryArg(v: Value | undefined): MaxMemory | { error: string } | undefined {
  if (!v || v.t === 'none') return undefined;
  if (v.t !== 'dict') return { error: 'not a literal dict, so the per-GPU caps are not known' };
  const out: MaxMemory = { gpus: {} };
  for (let i = 0; i < v.keys.length; i++) {
    const k = v.keys[i];
    const val = v.vals[i];
    const bytes = val.t === 'int' ? val.v : val.t === 'float' ? Math.floor(val.v) : val.t === 'str' ? fileSizeToInt(val.v) : undefined;
    if (k.t === 'str' && (k.v === 'disk' || k.v === 'mps')) continue;
    if (k.t === 'str' && k.v === 'cpu') {
      if (bytes === undefined) return { error: 'the size for "cpu" is not known' };
      out.cpu = bytes;
      continue;
    }
    const idx = k.t === 'int' ? k.v : undefined;
    if (idx === undefined) return { error: `key ${describe(k)} is not a GPU index or "cpu" (accelerate raises "Device ... is not recognized")` };
    if (bytes === undefined) return { error: `the size for GPU ${idx} is not known` };
    out.gpus[idx] = bytes;
  }
  return out;
}

export interface PlaceResult {
  /** Device per tree leaf / block name. */
  assignment: Record<string, MapDevice>;
  /** The placement of a name: its own entry, else its nearest placed ancestor or descendant. */
  placementOf(name: string): Placement;
}

const toPlacement = (d: MapDevice | undefined): Placement => (d === undefined ? { kind: 'device', index: 0 } : typeof d === 'number' ? { kind: 'device', index: d } : { kind: 'host' });

/**
 * Places a module tree by `device_map` ("auto", "balanced", "balanced_low_0", "sequential") and
 * `max_memory` as accelerate does; notes what it cannot say (a non-literal max_memory, disk offload).
 * Without max_memory, each of the target's GPUs offers its memory less the CUDA context (what
 * torch.cuda.mem_get_info reports once a tensor is on it) and the CPU takes the rest
 * (get_max_memory lists the host's available RAM).
 */
export function placeModules(it: Interpreter, tree: PlaceNode[], mode: MapMode, maxMemV: Value | undefined, node: SyntaxNode, variant: 'transformers' | 'accelerate', who: string, capScale?: number): PlaceResult | undefined {
  const count = (it.state.get('deviceCount') as number | undefined) ?? 1;
  const mm = maxMemoryArg(maxMemV);
  if (mm && 'error' in mm) { it.note(`max_memory: ${mm.error}`, node); return undefined; }
  let gpus: Record<number, number>;
  let cpu: number | undefined;
  if (mm) { gpus = mm.gpus; cpu = mm.cpu; } else {
    const capacity = it.state.get('deviceCapacity') as number | undefined;
    if (capacity === undefined) { it.note(`${who}: device_map="${mode}" without max_memory places modules by each GPU's free memory, and the target's memory is not known`, node); return undefined; }
    gpus = {};
    for (let i = 0; i < count; i++) gpus[i] = Math.max(0, capacity - CUDA_CONTEXT_BYTES);
    cpu = Infinity;
  }
  const plan = inferDeviceMap(tree, { mode, gpus, cpu, userSet: !!mm, variant, deviceCount: count, capScale });
  if (!plan.exact) it.note(`${who}: accelerate's balance buffer depends on the mean size of the model's leaf modules, which oomlens bounds but does not know exactly; the per-GPU split may differ`, node);
  if (plan.diskBytes > 0) {
    it.note(`${who}: max_memory leaves no room for ${plan.unplaced.length} module(s) (${plan.unplaced.slice(0, 3).join(', ')}${plan.unplaced.length > 3 ? '…' : ''}, ${plan.diskBytes.toLocaleString('en-US')} B) on the GPUs${cpu === undefined ? ' and lists no "cpu"' : ' or the CPU'}: accelerate offloads them to disk (offload_folder), which oomlens does not estimate`, node);
  }
  if (plan.cpuBytes > 0) it.memory.current?.notes.push(`${who}: device_map="${mode}" puts ${plan.cpuBytes.toLocaleString('en-US')} B of weights in CPU RAM (offloaded: moved to the GPU layer by layer at each forward)`);
  return {
    assignment: plan.assignment,
    placementOf(name: string): Placement {
      if (name in plan.assignment) return toPlacement(plan.assignment[name]);
      for (let p = name; p.includes('.'); ) { p = p.slice(0, p.lastIndexOf('.')); if (p in plan.assignment) return toPlacement(plan.assignment[p]); }
      const below = Object.keys(plan.assignment).find((k) => k.startsWith(`${name}.`));
      return toPlacement(below === undefined ? undefined : plan.assignment[below]);
    },
  };
}

/** How many bytes a tensor of the model takes as loaded in `dtype` (floating tensors only are cast, as accelerate's compute_module_sizes does with min(dtype size, own size)). */
function tensorBytes(t: TensorV, dtype?: DType): number {
  const n = t.shape.reduce<number>((a, d) => a * (typeof d === 'number' ? d : NaN), 1);
  const own = dtypeBytes(t.dtype);
  const floating = /float/.test(t.dtype);
  return n * (dtype && floating ? Math.min(own, dtypeBytes(dtype)) : own);
}

/**
 * The module tree of a model value: a from_pretrained / from_config model's flat entries
 * (`model.layers.3` → a no-split block), or a torch module's own hierarchy (attributes that are modules,
 * ModuleList items by index, parameters as leaves; `no_split_module_classes` names the classes kept whole).
 */
export function modelTree(model: Value, noSplit: string[], dtype?: DType): PlaceNode[] | undefined {
  if (model.t !== 'inst') return undefined;
  if (hfLoadOf(model)) {
    // from_pretrained / from_config: one entry per embedding, decoder block, norm and head.
    const flat = [...model.attrs].filter(([, v]) => v.t === 'tensor');
    return treeFromSizes(flat.map(([name, t]) => ({ name, bytes: tensorBytes(t as TensorV, dtype) })));
  }
  const seen = new Set<object>();
  const build = (v: Value, name: string): PlaceNode | undefined => {
    if (v.t === 'tensor') return v.role === 'param' || v.role === 'buffer' ? { name, bytes: tensorBytes(v, dtype), children: [], noSplit: false } : undefined;
    if (v.t !== 'inst' || seen.has(v)) return undefined;
    seen.add(v);
    const kids: PlaceNode[] = [];
    const entries: [string, Value][] = v.items ? v.items.map((x, i) => [String(i), x]) : [...v.attrs];
    // Direct parameters first, then submodules (named_parameters(recurse=False) + named_children()).
    const params = entries.filter(([, x]) => x.t === 'tensor');
    const mods = entries.filter(([, x]) => x.t !== 'tensor');
    for (const [k, x] of [...params, ...mods]) {
      const c = build(x, name ? `${name}.${k}` : k);
      if (c && c.bytes > 0) kids.push(c);
    }
    const bytes = kids.reduce((a, c) => a + c.bytes, 0);
    const leafModule = kids.every((c) => c.children.length === 0 && !c.noSplit && params.some(([k]) => c.name.endsWith(`.${k}`) || c.name === k));
    // A module holding only parameters is a leaf (no named_children): its parameters go with it.
    if (leafModule) return { name, bytes, children: [], noSplit: false };
    return { name, bytes, children: kids, noSplit: noSplit.includes(v.cls.name) };
  };
  const root = build(model, '');
  return root ? (root.children.length ? root.children : [root]) : undefined;
}

function strList(v: Value | undefined): string[] {
  if (v?.t === 'str') return [v.v];
  if (v?.t === 'list' || v?.t === 'tuple') return v.items.flatMap((x) => (x.t === 'str' ? [x.v] : []));
  return [];
}

const MP: Record<string, DType> = { bf16: 'bfloat16', fp16: 'float16' };

export function installAccelerate(it: Interpreter): void {
  // find_executable_batch_size(function, starting_batch_size=128) (accelerate/utils/memory.py; transformers
  // trainer_utils.py re-exports it): calls `function(batch_size, *args, **kwargs)` from starting_batch_size, halving
  // it on a CUDA out-of-memory error. Followed at the starting size, the first try (the one whose memory matters).
  // Without a function it is a decorator (`@find_executable_batch_size(starting_batch_size=64)`).
  const withBatch = (f: Value | undefined, bs: Value, node: SyntaxNode): Value => {
    if (!f || f.t === 'none' || f.t === 'unknown') return unknown('find_executable_batch_size of a function that is not known', it.span(node));
    if (f.t === 'func') return { ...f, partialArgs: [bs, ...(f.partialArgs ?? [])] };
    return { t: 'extern', name: '__partial__', self: f, args: [bs], kw: new Map() };
  };
  const applyDeco = (it.state.get('applyDecorators') as Set<string> | undefined) ?? new Set<string>();
  it.state.set('applyDecorators', applyDeco);
  for (const n of ['accelerate.utils.find_executable_batch_size', 'accelerate.utils.memory.find_executable_batch_size', 'accelerate.find_executable_batch_size', 'transformers.trainer_utils.find_executable_batch_size']) {
    applyDeco.add(n);
    applyDeco.add('__find_bs_decorator__');
    it.externs.set(n, (_i, _s, c, node) => {
      const f = c.args[0] ?? c.kw.get('function');
      const bs = c.args[1] ?? c.kw.get('starting_batch_size') ?? { t: 'int', v: 128 };
      if (!f || f.t === 'none') return { t: 'extern', name: '__find_bs_decorator__', args: [bs] };
      return withBatch(f, bs, node);
    });
  }
  it.externs.set('__find_bs_decorator__', (_i, _s, c, node, fnv) => withBatch(c.args[0], fnv.args?.[0] ?? { t: 'int', v: 128 }, node));

  const prog = () => trainingProgram(it);
  const reg = (names: string[], fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node) => fn(self, c, node));
  };

  // Accelerator(...)
  reg(['accelerate.Accelerator', 'accelerate.accelerator.Accelerator'], (_s, c, node) => {
    // Without the keyword, Accelerator reads what `accelerate launch` put in the environment (accelerator.py:
    // "Will default to the value in the environment variable ACCELERATE_MIXED_PRECISION"; state.py for FSDP/DeepSpeed).
    const env = (it.state.get('launchEnv') as Record<string, string> | undefined) ?? {};
    // `mixed_precision=None` (an argparse default) is the same as leaving it out (accelerator.py __init__:
    // `parse_choice_from_env("ACCELERATE_MIXED_PRECISION", "no")` when mixed_precision is None).
    const mpKw = c.kw.get('mixed_precision');
    const mp = (mpKw && mpKw.t !== 'none' ? mpKw : undefined) ?? (env.ACCELERATE_MIXED_PRECISION ? str(env.ACCELERATE_MIXED_PRECISION) : mpKw ? str('no') : undefined);
    if (!c.kw.get('fsdp_plugin') && env.ACCELERATE_USE_FSDP === 'true' && !prog().fsdp) prog().fsdp = { span: it.span(node), stage: 3, how: 'accelerate launch with FSDP (ACCELERATE_USE_FSDP)' };
    const envStage = Number(env.ACCELERATE_DEEPSPEED_ZERO_STAGE);
    if (!c.kw.get('deepspeed_plugin') && env.ACCELERATE_USE_DEEPSPEED === 'true' && !prog().zero) {
      const file = env.ACCELERATE_DEEPSPEED_CONFIG_FILE ? ` (${env.ACCELERATE_DEEPSPEED_CONFIG_FILE.split(/[\\/]/).pop()})` : '';
      if (Number.isInteger(envStage) && envStage >= 0 && envStage <= 3 && env.ACCELERATE_DEEPSPEED_ZERO_STAGE !== '') {
        const offloadOptimizer = env.ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE, offloadParams = env.ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE;
        prog().zero = { span: it.span(node), stage: envStage as 0 | 1 | 2 | 3, how: `accelerate launch with DeepSpeed ZeRO stage ${envStage}${file}`, ...(offloadOptimizer ? { offloadOptimizer } : {}), ...(offloadParams ? { offloadParams } : {}) };
      } else if (env.ACCELERATE_DEEPSPEED_CONFIG_FILE) {
        // A DeepSpeed config named on the launcher that oomlens cannot read: how much is sharded is not known.
        unreadSharding(prog(), it.span(node), `accelerate launch --use_deepspeed with config ${env.ACCELERATE_DEEPSPEED_CONFIG_FILE}: its ZeRO stage is not readable (not a JSON file of the workspace with zero_optimization.stage), so what DeepSpeed shards is not known`);
      }
    }
    const p = prog();
    // prepare_model wraps model.forward in autocast: every forward of the step runs under it.
    if (mp?.t === 'str' && MP[mp.v] && !p.autocast) { p.autocast = { dtype: MP[mp.v], span: it.span(node) }; p.autocastAll = true; }
    if (mp?.t === 'str' && mp.v === 'fp16' && !p.gradScaler) p.gradScaler = it.span(node);
    if (mp?.t === 'str' && mp.v === 'fp8') p.trainerUnknowns.push({ what: 'mixed precision', reason: 'Accelerator(mixed_precision="fp8") (TransformerEngine / MS-AMP) is not modelled: the activations\' dtype is not known', span: it.span(node) });
    const ds = c.kw.get('deepspeed_plugin');
    const stage = ds?.t === 'extern' ? num(ds.kw?.get('zero_stage') ?? NONE) : undefined;
    if (stage !== undefined && stage >= 0 && stage <= 3) p.zero = { span: it.span(node), stage: stage as 0 | 1 | 2 | 3, how: `Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=${stage}))` };
    const fsdp = c.kw.get('fsdp_plugin');
    if (fsdp?.t === 'extern') {
      const s = fsdp.kw?.get('sharding_strategy');
      const text = s?.t === 'str' ? s.v : s?.t === 'extern' ? s.name : s?.t === 'int' ? String(s.v) : 'FULL_SHARD';
      // FullyShardedDataParallelPlugin: FULL_SHARD (1, default) shards parameters, SHARD_GRAD_OP (2) gradients and state, NO_SHARD (3) nothing.
      const st = /SHARD_GRAD_OP|^2$/.test(text) ? 2 : /NO_SHARD|^3$/.test(text) ? 0 : 3;
      p.fsdp = { span: it.span(node), stage: st, how: `Accelerator(fsdp_plugin=FullyShardedDataParallelPlugin(${text}))` };
    }
    const ga = num(c.kw.get('gradient_accumulation_steps') ?? NONE);
    return { t: 'extern', name: '__accelerator__', kw: new Map([...c.kw, ...(mp ? [['mixed_precision', mp] as [string, Value]] : []), ...(ga ? [['__ga__', { t: 'int', v: ga }] as [string, Value]] : [])]) };
  });
  reg(['accelerate.DeepSpeedPlugin', 'accelerate.utils.DeepSpeedPlugin'], (_s, c) => ({ t: 'extern', name: 'accelerate.DeepSpeedPlugin', kw: new Map(c.kw) }));
  reg(['accelerate.FullyShardedDataParallelPlugin', 'accelerate.utils.FullyShardedDataParallelPlugin'], (_s, c) => ({ t: 'extern', name: 'accelerate.FullyShardedDataParallelPlugin', kw: new Map(c.kw) }));
  // prepare(*objs): the same objects (wrapped), in order; one argument → that object.
  // The model goes to the accelerator's device (accelerator.py prepare_model: `model.to(self.device)`).
  reg(['__accelerator__.prepare'], (_s, c) => {
    for (const a of c.args) if (a.t === 'inst') it.state.set(`moved:${a.id}`, 'cuda');
    return c.args.length === 1 ? c.args[0] : { t: 'tuple', items: c.args };
  });
  reg(['__accelerator__.prepare_model', '__accelerator__.prepare_optimizer', '__accelerator__.prepare_data_loader', '__accelerator__.prepare_scheduler', '__accelerator__.unwrap_model'], (_s, c) => c.args[0] ?? NONE);
  reg(['__accelerator__.backward'], (_s, _c, node) => { noteBackward(it, prog(), it.span(node)); return NONE; });
  reg(['__accelerator__.accumulate', '__accelerator__.autocast', '__accelerator__.no_sync', '__accelerator__.main_process_first', '__accelerator__.local_main_process_first'], () => ({ t: 'extern', name: '__ctx__' }));
  reg(['__accelerator__.clip_grad_norm_', '__accelerator__.clip_grad_value_', '__accelerator__.wait_for_everyone', '__accelerator__.print', '__accelerator__.log', '__accelerator__.init_trackers', '__accelerator__.end_training', '__accelerator__.save_state', '__accelerator__.load_state', '__accelerator__.save_model', '__accelerator__.save', '__accelerator__.free_memory'], () => NONE);
  reg(['__accelerator__.gather', '__accelerator__.gather_for_metrics', '__accelerator__.reduce', '__accelerator__.pad_across_processes'], (_s, c) => c.args[0] ?? NONE);
  const prevGet = it.externs.get('__getattr__');
  it.externs.set('__getattr__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === '__accelerator__') {
      const name = (c.args[0] as { v: string }).v;
      if (name === 'device') return { t: 'extern', name: '__device__', args: [str('cuda:0')] };
      if (name === 'is_main_process' || name === 'is_local_main_process') return { t: 'bool', v: true };
      if (name === 'sync_gradients') return { t: 'bool', v: true };
      if (name === 'num_processes') return { t: 'int', v: (it.state.get('deviceCount') as number | undefined) ?? 1 };
      if (name === 'gradient_accumulation_steps') return self.kw?.get('__ga__') ?? { t: 'int', v: 1 };
      if (name === 'mixed_precision') return self.kw?.get('mixed_precision') ?? str('no');
    }
    return prevGet ? prevGet(i, self, c, node, f) : { t: 'unknown', reason: '__pass__' };
  });

  // init_empty_weights(): parameters on the meta device (torch modules and transformers from_config alike).
  reg(['accelerate.init_empty_weights', 'accelerate.big_modeling.init_empty_weights'], () => ({ t: 'extern', name: '__init_empty_weights__' }));
  const prevEnter = it.externs.get('__enter__');
  const prevExit = it.externs.get('__exit__');
  it.externs.set('__enter__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === '__init_empty_weights__') { it.state.set('torchMeta', true); it.state.set('emptyWeights', true); return self; }
    return prevEnter ? prevEnter(i, self, c, node, f) : self ?? NONE;
  });
  it.externs.set('__exit__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === '__init_empty_weights__') { it.state.delete('torchMeta'); it.state.delete('emptyWeights'); return NONE; }
    return prevExit ? prevExit(i, self, c, node, f) : NONE;
  });

  // infer_auto_device_map(model, max_memory=..., no_split_module_classes=..., dtype=...) → {module: device}.
  reg(['accelerate.infer_auto_device_map', 'accelerate.utils.infer_auto_device_map', 'accelerate.utils.modeling.infer_auto_device_map'], (_s, c, node) => {
    const model = c.args[0] ?? c.kw.get('model') ?? NONE;
    const dtype = dtypeOf(c.kw.get('dtype'));
    const tree = modelTree(model, noSplitOf(model, c.kw.get('no_split_module_classes')), dtype);
    if (!tree) return it.note('infer_auto_device_map: the model\'s modules are not known', node);
    // Called directly, no balancing: the caps are max_memory as given (get_max_memory).
    const r = placeModules(it, tree, 'sequential', c.kw.get('max_memory') ?? c.args[1], node, 'accelerate', 'infer_auto_device_map');
    if (!r) return it.note('infer_auto_device_map: the placement is not known', node);
    const keys = Object.keys(r.assignment);
    return { t: 'dict', keys: keys.map((k) => str(k)), vals: keys.map((k) => { const d = r.assignment[k]; return typeof d === 'number' ? { t: 'int', v: d } : str(d); }) };
  });
  // get_balanced_memory(model, max_memory=..., no_split_module_classes=..., dtype=..., low_zero=False) → the caps dict
  // (utils/modeling.py), which infer_auto_device_map then fills in order.
  reg(['accelerate.utils.get_balanced_memory', 'accelerate.utils.modeling.get_balanced_memory'], (_s, c, node) => {
    const model = c.args[0] ?? c.kw.get('model') ?? NONE;
    const tree = modelTree(model, noSplitOf(model, c.kw.get('no_split_module_classes') ?? c.args[2]), dtypeOf(c.kw.get('dtype')));
    const mm = maxMemoryArg(c.kw.get('max_memory') ?? c.args[1]);
    if (!tree) return it.note('get_balanced_memory: the model\'s modules are not known', node);
    if (!mm) return it.note('get_balanced_memory without max_memory reads each GPU\'s free memory at run time: not known before', node);
    if ('error' in mm) return it.note(`get_balanced_memory: max_memory ${mm.error}`, node);
    const low = c.kw.get('low_zero');
    const b = balancedMemory(tree, { mode: low?.t === 'bool' && low.v ? 'balanced_low_0' : 'auto', gpus: mm.gpus, cpu: mm.cpu, userSet: true, variant: 'accelerate' });
    if (!b.exact) it.note('get_balanced_memory: the balance buffer depends on the mean size of the model\'s leaf modules, which oomlens bounds but does not know exactly', node);
    const keys = Object.keys(b.mem);
    return { t: 'dict', keys: keys.map((k) => (k === 'cpu' ? str(k) : { t: 'int', v: Number(k) })), vals: keys.map((k) => ({ t: 'int', v: b.mem[k] })) };
  });

  // load_checkpoint_and_dispatch(model, checkpoint, device_map=..., max_memory=..., no_split_module_classes=..., dtype=...)
  // and dispatch_model(model, device_map={...}).
  reg(['accelerate.load_checkpoint_and_dispatch', 'accelerate.big_modeling.load_checkpoint_and_dispatch', 'accelerate.dispatch_model', 'accelerate.big_modeling.dispatch_model'], (_s, c, node) => {
    const model = c.args[0] ?? c.kw.get('model') ?? NONE;
    const dispatchOnly = !c.args[1] && !c.kw.has('checkpoint');
    const dm = c.kw.get('device_map') ?? (dispatchOnly ? c.args[1] : c.args[2]);
    const dtype = dtypeOf(c.kw.get('dtype'));
    if (model.t !== 'inst') return model;
    // The load record opens first, so what the placement cannot say is noted against this model.
    const hf = hfLoadOf(model);
    const rec = it.memory.current ? undefined : it.memory.begin({ name: hf?.modelName ?? model.cls.name, framework: hf ? 'transformers' : 'torch', span: it.span(node), definitionSpan: model.cls.node && model.cls.node.tree === it.tree ? it.span(model.cls.node) : undefined, phase: 'load', jitted: false, gc: false });
    const tree = modelTree(model, noSplitOf(model, c.kw.get('no_split_module_classes')), dtype);
    let placementOf: (name: string) => Placement = () => ({ kind: 'device', index: 0 });
    if (dm?.t === 'str' && /^(auto|balanced|balanced_low_0|sequential)$/.test(dm.v)) {
      const r = tree && placeModules(it, tree, dm.v as MapMode, c.kw.get('max_memory'), node, 'accelerate', 'load_checkpoint_and_dispatch');
      if (!tree) it.note('load_checkpoint_and_dispatch: the model\'s modules are not known, so their placement is not (counted on GPU 0)', node);
      else if (!r) it.note('load_checkpoint_and_dispatch: the placement is not known (counted on GPU 0)', node);
      else placementOf = r.placementOf;
    } else if (dm?.t === 'dict') {
      const map = new Map<string, Placement>();
      dm.keys.forEach((k, i) => {
        const v = dm.vals[i];
        if (k.t === 'str') map.set(k.v, v.t === 'int' ? { kind: 'device', index: v.v } : v.t === 'str' && /^cuda:\d+$/.test(v.v) ? { kind: 'device', index: Number(v.v.slice(5)) } : { kind: 'host' });
      });
      placementOf = (name) => {
        for (let p = name; ; p = p.slice(0, p.lastIndexOf('.'))) { if (map.has(p)) return map.get(p)!; if (!p.includes('.')) break; }
        return map.get('') ?? { kind: 'device', index: 0 };
      };
    } else if (dm && dm.t !== 'none') {
      it.note('load_checkpoint_and_dispatch: device_map is not a literal, so where the weights go is not known (counted on GPU 0)', node);
    }
    materialize(it, model, placementOf, dtype, node, rec);
    return model;
  });
}

function dtypeOf(v: Value | undefined): DType | undefined {
  if (v?.t === 'dtype') return v.dtype;
  if (v?.t === 'str') return ({ float16: 'float16', bfloat16: 'bfloat16', float32: 'float32' } as Record<string, DType>)[v.v];
  return undefined;
}

/** no_split_module_classes given, else the transformers model's decoder block (the flat `…layers.N` entries are kept whole anyway). */
function noSplitOf(_model: Value, v: Value | undefined): string[] {
  return strList(v);
}

/**
 * Loads a model made on the meta device: every abstract parameter becomes a real tensor on its
 * device (in `dtype` when given, floating tensors only), as load_checkpoint_in_model + dispatch_model do.
 */
function materialize(it: Interpreter, model: InstV, placementOf: (name: string) => Placement, dtype: DType | undefined, node: SyntaxNode, rec: ModelRecord | undefined): void {
  const made: TensorV[] = [];
  const seen = new Set<object>();
  const visit = (v: InstV, prefix: string) => {
    if (seen.has(v)) return;
    seen.add(v);
    const entries: [string, Value][] = v.items ? v.items.map((x, i) => [String(i), x]) : [...v.attrs];
    entries.forEach(([k, x]) => {
      const name = prefix ? `${prefix}.${k}` : k;
      if (x.t === 'tensor' && (x.role === 'param' || x.role === 'buffer')) {
        if (!x.abstract) { made.push(x); return; }
        const dt = dtype && /float/.test(x.dtype) ? dtype : x.dtype;
        const top = name.split('.');
        const placement = placementOf(name);
        const t = it.memory.alloc({ shape: x.shape, dtype: dt, role: x.role, name: x.group ? name : top.slice(1).join('.') || top[0], path: x.group ? [] : top.slice(0, 1), span: it.span(node), placement, lib: 'torch', citation: x.citation ?? 'accelerate v1.15.0 big_modeling.py load_checkpoint_and_dispatch (weights loaded on the device of the device_map)' });
        // Offloaded by the device map: in CPU RAM for good, not a module still to be moved (analyze.ts toFacts).
        if (placement.kind === 'host') it.state.set(`offloaded:${t.id}`, true);
        if (x.group) {
          t.group = x.group.replace(/\((float32|float16|bfloat16)\)$/, `(${dt})`);
          const last = rec?.events[rec.events.length - 1];
          if (last?.op === 'alloc' && last.tensor.id === t.id) last.tensor.group = t.group;
        }
        if (v.items) v.items[Number(k)] = t; else v.attrs.set(k, t);
        made.push(t);
      } else if (x.t === 'inst') visit(x, name);
    });
  };
  visit(model, '');
  if (rec) {
    rec.result = model;
    rec.params = made;
    it.memory.end(rec);
  }
}
