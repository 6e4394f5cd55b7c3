/**
 * PyTorch module semantics: `nn.Parameter`, `register_buffer`, the module
 * containers (ModuleList, Sequential, ModuleDict, ParameterList), moving and
 * casting modules (`.to`, `.cuda`, `.half`), and device scopes
 * (`with torch.device("meta")`). Modules are built on the host by default;
 * their accelerator cost is the load phase, when they are moved.
 */
import type { DType } from '../../../../shared/src/facts';
import type { CallArgs, Interpreter } from '../interp';
import type { SyntaxNode } from '../parser';
import { visitTensors } from '../memory';
import { type ClassV, type InstV, type Value, NONE, int, str, unknown } from '../values';

const FLOAT = new Set<DType>(['float64', 'float32', 'float16', 'bfloat16']);

function containerClass(it: Interpreter, name: string): ClassV {
  let m = it.state.get('torchContainers') as Map<string, ClassV> | undefined;
  if (!m) it.state.set('torchContainers', (m = new Map()));
  let c = m.get(name);
  if (!c) {
    c = { t: 'class', name, bases: [], ns: new Map(), kind: 'torch', dataclass: false, fields: [] };
    m.set(name, c);
  }
  return c;
}

/** The module's tensors, each once (tied weights share one tensor). */
export function moduleTensors(v: Value): { params: import('../values').TensorV[]; buffers: import('../values').TensorV[] } {
  const params: import('../values').TensorV[] = [];
  const buffers: import('../values').TensorV[] = [];
  const seen = new Set<number>();
  visitTensors(v, (t) => {
    if (seen.has(t.id)) return;
    seen.add(t.id);
    if (t.role === 'param') params.push(t);
    else if (t.role === 'buffer') buffers.push(t);
  });
  return { params, buffers };
}

export function installTorch(it: Interpreter): void {
  const reg = (names: string[], fn: (self: Value | undefined, c: CallArgs, node: SyntaxNode) => Value) => {
    for (const n of names) it.externs.set(n, (_i, self, c, node) => fn(self, c, node));
  };

  reg(['torch.nn.Parameter', 'torch.nn.parameter.Parameter'], (_s, c, node) => {
    const t = c.args[0] ?? c.kw.get('data');
    if (t?.t !== 'tensor') return unknown('nn.Parameter of a value that is not a known tensor', it.span(node));
    const rg = c.args[1] ?? c.kw.get('requires_grad');
    t.role = rg?.t === 'bool' && !rg.v ? 'buffer' : 'param';
    return t;
  });
  reg(['torch.nn.Module.register_buffer'], (self, c, node) => {
    const name = c.args[0];
    const t = c.args[1] ?? c.kw.get('tensor');
    if (self?.t === 'inst' && name?.t === 'str') {
      if (t?.t === 'tensor') t.role = 'buffer';
      else if (t && t.t !== 'none') it.note(`buffer ${name.v} is not a known tensor`, node);
      self.attrs.set(name.v, t ?? NONE);
    }
    return NONE;
  });
  reg(['torch.nn.Module.register_parameter'], (self, c) => {
    const name = c.args[0];
    const t = c.args[1];
    if (self?.t === 'inst' && name?.t === 'str') {
      if (t?.t === 'tensor') t.role = 'param';
      self.attrs.set(name.v, t ?? NONE);
    }
    return NONE;
  });
  reg(['torch.nn.Module.add_module', 'torch.nn.Module.register_module'], (self, c) => {
    if (self?.t === 'inst' && c.args[0]?.t === 'str') self.attrs.set(c.args[0].v, c.args[1] ?? NONE);
    return NONE;
  });

  const listLike = (name: string) => (_s: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    const inst = it.newInst(containerClass(it, name));
    const a = c.args;
    let items: Value[] = [];
    if (name === 'Sequential' && a.length === 1 && a[0].t === 'dict') {
      items = a[0].vals;
      a[0].keys.forEach((k, i) => { if (k.t === 'str') inst.attrs.set(k.v, a[0].t === 'dict' ? a[0].vals[i] : NONE); });
    } else if (name === 'Sequential') items = a;
    else if (a[0]) items = it.iterate(a[0], node) ?? [];
    inst.items = [...items];
    items.forEach((m, i) => inst.attrs.set(String(i), m));
    return inst;
  };
  reg(['torch.nn.ModuleList'], listLike('ModuleList'));
  reg(['torch.nn.ParameterList'], listLike('ParameterList'));
  reg(['torch.nn.Sequential'], listLike('Sequential'));
  reg(['collections.OrderedDict'], (_s, c, node) => it.callExtern({ t: 'extern', name: 'builtins.dict' }, c, node));
  reg(['torch.nn.ModuleDict', 'torch.nn.ParameterDict'], (_s, c) => {
    const inst = it.newInst(containerClass(it, 'ModuleDict'));
    const d = c.args[0];
    const dict: Value = d?.t === 'dict' ? d : { t: 'dict', keys: [], vals: [] };
    inst.attrs.set('__dict__', dict);
    if (dict.t === 'dict') dict.keys.forEach((k, i) => { if (k.t === 'str') inst.attrs.set(k.v, dict.vals[i]); });
    return inst;
  });
  reg(['torch.nn.Module.append'], (self, c) => {
    if (self?.t === 'inst' && self.items) { self.attrs.set(String(self.items.length), c.args[0] ?? NONE); self.items.push(c.args[0] ?? NONE); }
    return self ?? NONE;
  });
  reg(['torch.nn.Module.extend'], (self, c, node) => {
    if (self?.t === 'inst' && self.items) for (const m of it.iterate(c.args[0] ?? NONE, node) ?? []) { self.attrs.set(String(self.items.length), m); self.items.push(m); }
    return self ?? NONE;
  });
  reg(['torch.nn.Module.__len__'], (self) => (self?.t === 'inst' && self.items ? int(self.items.length) : unknown('len of module')));

  // Moving and casting: Module.to / .cuda / .half act in place and return the module.
  const cast = (self: Value | undefined, dtype: DType | undefined, device: string | undefined): Value => {
    if (!self) return NONE;
    visitTensors(self, (t) => {
      if (dtype && FLOAT.has(t.dtype) && (t.role === 'param' || t.role === 'buffer')) t.dtype = dtype;
    });
    if (device) it.state.set(`moved:${self.t === 'inst' ? self.id : 'hf'}`, device);
    return self;
  };
  const dtypeOf = (v: Value | undefined): DType | undefined => (v?.t === 'dtype' ? v.dtype : undefined);
  const deviceOf = (v: Value | undefined): string | undefined => (v?.t === 'str' ? v.v : v?.t === 'extern' && v.name === '__device__' && v.args?.[0]?.t === 'str' ? (v.args[0] as { v: string }).v : undefined);
  for (const base of ['torch.nn.Module', 'transformers.PreTrainedModel']) {
    reg([`${base}.to`], (self, c) => cast(self, dtypeOf(c.args.find((a) => a.t === 'dtype') ?? c.kw.get('dtype')), deviceOf(c.args.find((a) => a.t === 'str' || a.t === 'extern') ?? c.kw.get('device'))));
    reg([`${base}.cuda`], (self) => cast(self, undefined, 'cuda'));
    reg([`${base}.half`], (self) => cast(self, 'float16', undefined));
    reg([`${base}.bfloat16`], (self) => cast(self, 'bfloat16', undefined));
    reg([`${base}.float`], (self) => cast(self, 'float32', undefined));
    reg([`${base}.double`], (self) => cast(self, 'float64', undefined));
    reg([`${base}.cpu`], (self) => self ?? NONE);
    for (const same of ['eval', 'train', 'requires_grad_', 'to_empty', 'share_memory', 'apply', 'compile']) reg([`${base}.${same}`], (self) => self ?? NONE);
    reg([`${base}.parameters`, `${base}.named_parameters`], (self) => ({ t: 'list', items: self ? moduleTensors(self).params : [] }));
    reg([`${base}.buffers`], (self) => ({ t: 'list', items: self ? moduleTensors(self).buffers : [] }));
    reg([`${base}.modules`, `${base}.children`, `${base}.named_modules`], () => ({ t: 'list', items: [] }));
  }
  reg(['torch.device'], (_s, c) => ({ t: 'extern', name: '__device__', args: c.args.length ? [c.args[0].t === 'int' ? str(`cuda:${c.args[0].v}`) : c.args[0]] : [] }));
  reg(['torch.set_default_dtype'], (_s, c) => { if (c.args[0]?.t === 'dtype') it.state.set('torchDefaultDtype', c.args[0].dtype); return NONE; });
  reg(['torch.set_default_device'], (_s, c) => { if (c.args[0]?.t === 'str') it.state.set('torchDevice', c.args[0].v); return NONE; });
  reg(['torch.cuda.is_available'], () => ({ t: 'bool', v: true }));
  reg(['torch.manual_seed', 'torch.cuda.manual_seed', 'torch.cuda.empty_cache', 'torch.backends.cuda.matmul.allow_tf32'], () => NONE);
  reg(['torch.no_grad', 'torch.inference_mode', 'torch.enable_grad'], () => ({ t: 'extern', name: '__ctx__' }));

  // Context managers: `with torch.device("meta")`, `with torch.device("cuda")`.
  it.externs.set('__enter__', (_i, self) => {
    if (self?.t === 'extern' && self.name === '__device__') {
      const d = self.args?.[0];
      if (d?.t === 'str') {
        if (d.v === 'meta') it.state.set('torchMeta', true);
        else it.state.set('torchDevice', d.v);
      }
    }
    if (self?.t === 'mesh') it.state.set('activeMesh', self);
    return self ?? NONE;
  });
  it.externs.set('__exit__', (_i, self) => {
    if (self?.t === 'extern' && self.name === '__device__') {
      it.state.delete('torchMeta');
      it.state.delete('torchDevice');
    }
    return NONE;
  });
}

export type { InstV };
