/**
 * Lightning Fabric (lightning 2.x: src/lightning/fabric/fabric.py, connector.py, plugins/precision/). A hand-written
 * torch loop with Fabric's setup around it:
 *
 * - `Fabric(accelerator=, devices=, num_nodes=, precision=, strategy=)`; `devices=N` is the number of processes on
 *   this node (× `num_nodes`), as for the Trainer; a list of device ids is that many.
 * - `precision` (connector.py `_convert_precision_to_unified_args`: 16 / "16" → "16-mixed", "bf16" → "bf16-mixed",
 *   32 / "32" → "32-true", 64 / "64" → "64-true"; `_check_and_init_precision`):
 *   "16-mixed" / "bf16-mixed" → MixedPrecision (plugins/precision/amp.py: `forward_context` is `torch.autocast`,
 *   a GradScaler for "16-mixed"); "16-true" / "bf16-true" → HalfPrecision (plugins/precision/half.py
 *   `convert_module`: `module.to(dtype=...)`, `module_init_context` creates tensors in that dtype); "64-true" →
 *   DoublePrecision (plugins/precision/double.py `convert_module`: `module.double()`); "32-true" nothing; others
 *   (transformer-engine, bitsandbytes) are not modelled — an unknown. Under FSDP / DeepSpeed the same strings pick
 *   FSDPPrecision / DeepSpeedPrecision, whose `convert_module` also casts for "-true"; DeepSpeed's engine runs in
 *   16 bits for both "-mixed" and "-true" (strategies/deepspeed.py `_format_precision_config`).
 * - `strategy`: "fsdp" (FSDPStrategy, FULL_SHARD by default: strategies/fsdp.py), "deepspeed" (DeepSpeedStrategy,
 *   stage 2 by default: strategies/deepspeed.py), "deepspeed_stage_1/2/3" (+ "_offload"), "ddp"/"auto": nothing
 *   divided; "dp" is torch.nn.DataParallel in one process (strategies/dp.py); an
 *   `FSDPStrategy(sharding_strategy=...)` / `DeepSpeedStrategy(stage=...)` object likewise.
 * - `fabric.launch(fn, *args)` calls `fn(fabric, *args)` (fabric.py `launch` → `_wrap_and_launch`); without a
 *   function it returns.
 * - `fabric.setup(module, *optimizers)` converts the module by the precision, moves it to the device and returns
 *   the module, or `(module, *optimizers)` (fabric.py `setup`); `setup_module`, `setup_optimizers`,
 *   `setup_dataloaders` return what they are given. `fabric.backward(loss)` is `loss.backward()` (through the
 *   precision plugin). `fabric.init_module()` builds the module on the device in the precision's dtype.
 */
import type { DType } from '../../../../shared/src/facts';
import type { CallArgs, Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, NONE, num, str, unknown } from '../../interp/values';
import { noteBackward, trainingProgram, unreadSharding } from '../../phases/training';
import { chainGetattr } from '../../program/entrypoints';

const FABRIC = '__fabric__';
const INIT = '__fabric_init_module__';

/** Fabric's precision string in its unified form (connector.py `_convert_precision_to_unified_args`). */
function unified(p: Value | undefined): string {
  if (!p || p.t === 'none') return '32-true';
  const t = p.t === 'str' ? p.v : p.t === 'int' ? String(p.v) : '?';
  return ({ '16': '16-mixed', bf16: 'bf16-mixed', '32': '32-true', '64': '64-true' } as Record<string, string>)[t] ?? t;
}

/** The dtype the module is converted to ("-true" precisions), if any. */
function trueDtype(p: string): DType | undefined {
  return p === 'bf16-true' ? 'bfloat16' : p === '16-true' ? 'float16' : p === '64-true' ? 'float64' : undefined;
}

export function installFabric(it: Interpreter): void {
  const prog = () => trainingProgram(it);
  const reg = (names: string[], fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node) => fn(self, c, node));
  };
  const kwOf = (self: Value | undefined): Map<string, Value> => (self?.t === 'extern' ? self.kw ?? new Map() : new Map());

  reg(['lightning.fabric.strategies.FSDPStrategy', 'lightning_fabric.strategies.FSDPStrategy', 'lightning.fabric.strategies.fsdp.FSDPStrategy'],
    (_s, c) => ({ t: 'extern', name: '__fabric_fsdp__', kw: new Map(c.kw) }));
  reg(['lightning.fabric.strategies.DeepSpeedStrategy', 'lightning_fabric.strategies.DeepSpeedStrategy', 'lightning.fabric.strategies.deepspeed.DeepSpeedStrategy'],
    (_s, c) => ({ t: 'extern', name: '__fabric_deepspeed__', kw: new Map(c.kw) }));

  reg(['lightning.Fabric', 'lightning.fabric.Fabric', 'lightning_fabric.Fabric', 'lightning.fabric.fabric.Fabric'], (_s, c, node) => {
    const kw = new Map(c.kw);
    const span = it.span(node);
    const p = prog();
    const precision = unified(kw.get('precision'));
    kw.set('__precision__', str(precision));
    // Strategy.
    const s = kw.get('strategy');
    const stext = s?.t === 'str' ? s.v : s?.t === 'extern' ? s.name : s && s.t !== 'none' ? '?' : 'auto';
    const ds = /^deepspeed(?:_stage_([123])(_offload)?)?$/.exec(stext);
    if (stext === 'fsdp' || stext === '__fabric_fsdp__') {
      const ss = s?.t === 'extern' ? s.kw?.get('sharding_strategy') : undefined;
      const text = ss?.t === 'str' ? ss.v : ss?.t === 'extern' ? ss.name : 'FULL_SHARD';
      const stage = /SHARD_GRAD_OP/.test(text) ? 2 : /NO_SHARD/.test(text) ? 0 : 3;
      p.fsdp = { span, stage, how: `Fabric(strategy=${stext === 'fsdp' ? '"fsdp"' : `FSDPStrategy(${text})`})` };
    } else if (ds || stext === '__fabric_deepspeed__') {
      const st = ds ? Number(ds[1] ?? 2) : num((s?.t === 'extern' ? s.kw?.get('stage') : undefined) ?? NONE) ?? 2;
      const offload = !!ds?.[2];
      if (st >= 1 && st <= 3) {
        const mixed: DType | undefined = /^bf16-/.test(precision) ? 'bfloat16' : /^16-/.test(precision) ? 'float16' : undefined;
        p.zero = { span, stage: st as 1 | 2 | 3, how: `Fabric(strategy="${ds ? stext : `DeepSpeedStrategy(stage=${st})`}")`, ...(mixed ? { mixed } : {}), ...(offload ? { offloadOptimizer: 'cpu', ...(st === 3 ? { offloadParams: 'cpu' } : {}) } : {}) };
      } else unreadSharding(p, span, 'Fabric DeepSpeedStrategy(stage=...) is not a literal 1–3: whether state is divided is not known');
    } else if (stext === '?' || (s?.t === 'extern' && stext !== 'auto')) {
      unreadSharding(p, span, 'Fabric(strategy=...) is not a literal oomlens reads: whether state is divided is not known');
    }
    // Precision: autocast for "-mixed" (not under DeepSpeed, whose engine is 16-bit).
    const mixed: DType | undefined = precision === '16-mixed' ? 'float16' : precision === 'bf16-mixed' ? 'bfloat16' : undefined;
    if (mixed && !p.zero && !p.autocast) { p.autocast = { dtype: mixed, span }; p.autocastAll = true; }
    if (precision === '16-mixed' && !p.zero && !p.gradScaler) p.gradScaler = span;
    if (!mixed && !trueDtype(precision) && precision !== '32-true') {
      p.trainerUnknowns.push({ what: 'precision', reason: `Fabric(precision=${precision === '?' ? 'a value that is not a literal' : JSON.stringify(precision)}) is not modelled: the parameters' and activations' dtypes are not known`, span });
    }
    // Processes.
    const d = kw.get('devices');
    const devices = d?.t === 'list' || d?.t === 'tuple' ? d.items.length : num(d ?? NONE);
    const nodes = num(kw.get('num_nodes') ?? NONE) ?? 1;
    // strategy="dp" is DataParallel inside one process (strategies/dp.py DataParallelStrategy wraps the module in
    // torch.nn.DataParallel over the devices): one process, the replicas' split as for DataParallel (phases/training.ts).
    if (stext === 'dp') {
      p.dataParallel = { span, devices: devices !== undefined && devices > 0 ? devices : null };
      if (devices === undefined) p.trainerUnknowns.push({ what: 'devices', reason: 'Fabric(strategy="dp") without a literal device count: the number of replicas is not known', span });
      kw.set('__world__', { t: 'int', v: 1 });
      return { t: 'extern', name: FABRIC, kw };
    }
    if (devices !== undefined && devices > 0) {
      kw.set('__world__', { t: 'int', v: devices * nodes });
      if ((Number(it.state.get('deviceCount') ?? 1) || 1) === 1 && devices * nodes > 1) it.state.set('deviceCount', devices * nodes);
    }
    return { t: 'extern', name: FABRIC, kw };
  });

  reg([`${FABRIC}.launch`], (self, c, node) => {
    const fn = c.args[0] ?? c.kw.get('function');
    if (!fn || fn.t === 'none') return NONE;
    const kw = new Map(c.kw); kw.delete('function');
    return it.call(fn, { args: [self ?? NONE, ...c.args.slice(1)], kw }, node);
  });
  // convert_module, then the move to the device (fabric.py `setup` / `setup_module`).
  const setupModule = (self: Value | undefined, m: Value | undefined, node: SyntaxNode, move: boolean): void => {
    if (m?.t !== 'inst') return;
    const dtype = trueDtype(unified(kwOf(self).get('__precision__')));
    const call = (method: string, args: Value[]) => it.externs.get(`torch.nn.Module.${method}`)?.(it, m, { args, kw: new Map() }, node, { t: 'extern', name: `torch.nn.Module.${method}` });
    if (dtype) { call('to', [{ t: 'dtype', dtype } as Value]); it.state.set(`fabricDtype:${m.id}`, dtype); }
    if (move) call('cuda', []);
  };
  // The set-up module's forward (wrappers.py _FabricModule.forward): `precision.convert_input` casts floating
  // tensor arguments to the "-true" dtype (half.py / double.py `_convert_fp_tensor`), and `convert_output` casts the
  // floating outputs back to torch.get_default_dtype() (float32).
  const prevCall = it.externs.get('__call_inst__');
  const FLOATS = new Set(['float32', 'float16', 'bfloat16', 'float64']);
  const castTo = (v: Value, dtype: DType, node: SyntaxNode): Value => {
    if (v.t === 'tensor' && FLOATS.has(v.dtype) && v.dtype !== dtype) return it.call(it.getAttr(v, 'to', node), { args: [{ t: 'dtype', dtype } as Value], kw: new Map() }, node);
    if (v.t === 'tuple' || v.t === 'list') return { ...v, items: v.items.map((x) => castTo(x, dtype, node)) };
    return v;
  };
  it.externs.set('__call_inst__', (i, self, c, node, f) => {
    const dt = self?.t === 'inst' ? it.state.get(`fabricDtype:${self.id}`) as DType | undefined : undefined;
    if (!dt || !prevCall) return prevCall ? prevCall(i, self, c, node, f) : unknown('module call', it.span(node));
    const args = c.args.map((a) => castTo(a, dt, node));
    const kw = new Map([...c.kw].map(([k, v]) => [k, castTo(v, dt, node)] as [string, Value]));
    const before = prog().forwards.length;
    const out = prevCall(i, self, { args, kw }, node, f);
    const dflt = (it.state.get('torchDefaultDtype') as DType | undefined) ?? 'float32';
    const res = castTo(out, dflt, node);
    // The training step's record of this forward: the caller's own tensors stay alive beside their converted
    // copies, and the output the loss reads is the converted one (the 16-bit output is released once converted).
    for (const use of prog().forwards.slice(before)) {
      const originals = [...c.args, ...c.kw.values()].filter((a): a is Extract<Value, { t: 'tensor' }> => a.t === 'tensor' && !args.includes(a));
      use.inputs = [...(use.inputs ?? []), ...originals.filter((t) => !(use.inputs ?? []).some((x) => x.id === t.id))];
      const conv = res.t === 'tensor' ? res : res.t === 'tuple' && res.items[0]?.t === 'tensor' ? res.items[0] : undefined;
      if (use.opLevel?.output && conv) use.opLevel.output = conv;
    }
    return res;
  });
  const moveOf = (c: CallArgs) => { const v = c.kw.get('move_to_device'); return !(v?.t === 'bool' && !v.v); };
  reg([`${FABRIC}.setup`], (self, c, node) => {
    const m = c.args[0] ?? c.kw.get('module');
    setupModule(self, m, node, moveOf(c));
    const opts = c.args.slice(1);
    return opts.length ? { t: 'tuple', items: [m ?? NONE, ...opts] } : m ?? NONE;
  });
  reg([`${FABRIC}.setup_module`], (self, c, node) => {
    const m = c.args[0] ?? c.kw.get('module');
    setupModule(self, m, node, moveOf(c));
    return m ?? NONE;
  });
  reg([`${FABRIC}.setup_optimizers`, `${FABRIC}.setup_dataloaders`], (_s, c) => (c.args.length === 1 ? c.args[0] : { t: 'tuple', items: c.args }));
  reg([`${FABRIC}.backward`], (_s, _c, node) => { noteBackward(it, prog(), it.span(node)); return NONE; });
  reg([`${FABRIC}.autocast`, `${FABRIC}.no_backward_sync`, `${FABRIC}.rank_zero_first`, `${FABRIC}.init_tensor`], () => ({ t: 'extern', name: '__ctx__' }));
  reg([`${FABRIC}.init_module`], (self) => ({ t: 'extern', name: INIT, kw: new Map([['dtype', str(trueDtype(unified(kwOf(self).get('__precision__'))) ?? '')]]) }));
  reg([`${FABRIC}.print`, `${FABRIC}.log`, `${FABRIC}.log_dict`, `${FABRIC}.barrier`, `${FABRIC}.save`, `${FABRIC}.seed_everything`, `${FABRIC}.clip_gradients`, `${FABRIC}.call`], () => NONE);
  reg([`${FABRIC}.to_device`, `${FABRIC}.all_reduce`, `${FABRIC}.all_gather`, `${FABRIC}.broadcast`], (_s, c) => c.args[0] ?? NONE);
  reg([`${FABRIC}.load`, `${FABRIC}.load_raw`], (_s, _c, node) => unknown('fabric.load: the checkpoint\'s contents are not read', it.span(node)));
  chainGetattr(it, (self, name) => {
    if (self.t !== 'extern' || self.name !== FABRIC) return undefined;
    if (name === 'device') return { t: 'extern', name: '__device__', args: [str('cuda:0')] };
    if (name === 'world_size') return self.kw?.get('__world__') ?? (self.kw?.get('devices') && self.kw.get('devices')?.t !== 'none' ? unknown('Fabric(devices=...) is not a number') : { t: 'int', v: 1 });
    if (name === 'global_rank' || name === 'local_rank' || name === 'node_rank') return { t: 'int', v: 0 };
    if (name === 'is_global_zero') return { t: 'bool', v: true };
    return undefined;
  });

  // `with fabric.init_module():` tensors made on the device, in the "-true" precision's dtype (HalfPrecision
  // `module_init_context`; the strategy's `module_init_context` puts them on the root device).
  const prevEnter = it.externs.get('__enter__');
  const prevExit = it.externs.get('__exit__');
  it.externs.set('__enter__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === INIT) {
      const d = self.kw?.get('dtype');
      self.kw?.set('__saved__', { t: 'tuple', items: [str(String(it.state.get('torchDevice') ?? '')), str(String(it.state.get('torchDefaultDtype') ?? ''))] });
      it.state.set('torchDevice', 'cuda');
      if (d?.t === 'str' && d.v) it.state.set('torchDefaultDtype', d.v);
      return self;
    }
    return prevEnter ? prevEnter(i, self, c, node, f) : self ?? NONE;
  });
  it.externs.set('__exit__', (i, self, c, node, f) => {
    if (self?.t === 'extern' && self.name === INIT) {
      const saved = self.kw?.get('__saved__');
      const [dev, dt] = saved?.t === 'tuple' ? saved.items.map((x) => (x.t === 'str' ? x.v : '')) : ['', ''];
      if (dev) it.state.set('torchDevice', dev); else it.state.delete('torchDevice');
      if (dt) it.state.set('torchDefaultDtype', dt); else it.state.delete('torchDefaultDtype');
      return NONE;
    }
    return prevExit ? prevExit(i, self, c, node, f) : NONE;
  });
}
