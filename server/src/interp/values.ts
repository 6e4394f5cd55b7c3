/**
 * Values of the static interpreter. Python values that matter for memory are
 * represented concretely (numbers, strings, configs, layer objects, tensors
 * with shapes); everything else becomes `unknown` with the reason and place,
 * so an estimate never rests on a silent guess.
 */
import type { DType, Placement, Span } from '../../../shared/src/facts';
import type { Args, Dim, InitValue, LayerEntry } from './catalog-types';
import type { SyntaxNode } from './parser';

/** A Map that counts its changes, so that an answer computed from it can tell it is still current. */
export class VersionedMap<K, V> extends Map<K, V> {
  version = 0;
  override set(k: K, v: V): this { this.version++; return super.set(k, v); }
  override delete(k: K): boolean { this.version++; return super.delete(k); }
  override clear(): void { this.version++; super.clear(); }
}

export interface Env {
  vars: Map<string, Value>;
  parent?: Env;
  /** How many try statements of this frame are running (a known raise inside one goes to its handler). */
  tryDepth?: number;
  /** Names declared `global` in this frame. */
  globals?: Set<string>;
  /** A function call's frame: its named parameters in order, and its `**kwargs` name (read by Lightning's save_hyperparameters). */
  params?: string[];
  varKw?: string;
  /** A class body's namespace: functions defined in it do not see its names (Python's scoping skips class scopes). */
  classBody?: boolean;
}

export type Value =
  /** `lit`: the integer literal the value was written as, while it flows unchanged (a fix can rewrite it there). */
  | { t: 'int'; v: number; lit?: Span }
  | { t: 'float'; v: number }
  | { t: 'str'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'none' }
  | { t: 'ellipsis' }
  | { t: 'tuple'; items: Value[] }
  | { t: 'list'; items: Value[] }
  /**
   * A dict; `attrs` when its keys are also attributes (ConfigDict, OmegaConf, EasyDict, CfgNode, SimpleNamespace);
   * `aliases`: attribute names read and written under another key (a transformers config's attribute_map);
   * `scope`: the dict `globals()` returned, an item set on it also binds the module's name.
   */
  | { t: 'dict'; keys: Value[]; vals: Value[]; attrs?: boolean; aliases?: Record<string, string>; scope?: Env }
  /**
   * `width`: the stop is written as the start plus a known count (`a[i:i + k]`, step 1), so the slice holds at
   * most `width` elements whatever `i` is (exactly `width` while the window ends inside the sequence).
   */
  | { t: 'slice'; start: Value; stop: Value; step: Value; width?: number }
  | UnknownV
  | ModuleV
  /** An external (library) object known by its qualified name; `self` for bound methods. */
  | { t: 'extern'; name: string; self?: Value; kw?: Map<string, Value>; args?: Value[] }
  | FuncV
  | ClassV
  | InstV
  | TensorV
  | { t: 'dtype'; dtype: DType }
  | { t: 'key'; batch?: number }
  | { t: 'init'; init: InitValue }
  | { t: 'super'; cls: ClassV; self: Value }
  | { t: 'transformed'; fn: Value; name: string; span: Span; noRng?: boolean; withState?: boolean }
  | { t: 'mesh'; axes: Map<string, number | undefined>; axisTypes?: 'auto' | 'explicit' }
  | { t: 'sharding'; mesh?: Map<string, number | undefined>; spec?: Value }
  | { t: 'environ' }
  | { t: 'hfmodel'; id: number };

/** A workspace module (a file or package folder of the user's project), once imported. */
export interface ModuleV {
  t: 'module';
  /** Dotted name (`pkg.models.gpt`). */
  name: string;
  /** The module's global namespace; undefined for a folder without __init__.py until names are read from it. */
  env?: Env;
  /** The file it was read from (`__init__.py` for a package), if any. */
  path?: string;
  /** The folder of a package, for its submodules. */
  dir?: string;
  /** True while its body runs: a cyclic import sees the names defined so far, as in CPython. */
  loading?: boolean;
}

export interface UnknownV { t: 'unknown'; reason: string; span?: Span }

export interface FuncV {
  t: 'func';
  name: string;
  node: SyntaxNode;
  closure: Env;
  self?: Value;
  /** Evaluated defaults by parameter name (Python evaluates them once, at def time). */
  defaults: Map<string, Value>;
  decorators: string[];
  /** Keyword arguments bound by functools.partial. */
  partialKw?: Map<string, Value>;
  partialArgs?: Value[];
  jitted?: boolean;
}

export type ClassKind = 'equinox' | 'flax' | 'nnx' | 'torch' | 'haiku' | 'plain';

export interface ClassV {
  t: 'class';
  name: string;
  node?: SyntaxNode;
  bases: Value[];
  ns: Map<string, Value>;
  kind: ClassKind;
  dataclass: boolean;
  /** Annotated fields in declaration order (dataclasses, NamedTuple, eqx/flax modules). */
  fields: string[];
  /** The annotation text of each field (`int`, `Optional[str]`), where written. */
  fieldTypes?: Map<string, string>;
  /** For catalogue layers: the entry this synthetic class stands for. */
  entry?: LayerEntry;
  /** A Flax lifted transform of a Module class (`nn.vmap(Block, ...)`, `nn.scan(Block, ...)`): its keywords. */
  lifted?: { kind: 'vmap' | 'scan'; kw: Map<string, Value> };
}

export interface InstV {
  t: 'inst';
  id: number;
  cls: ClassV;
  attrs: Map<string, Value>;
  /** Catalogue layers of lazy frameworks keep their bound arguments until the first call. */
  lazyArgs?: Map<string, Value>;
  /** Flax/Haiku: already initialised at a call (params created). */
  built?: boolean;
  /** Catalogue layers: the bound constructor arguments. */
  catArgs?: Args;
  /** Containers (ModuleList, Sequential): their items in order. */
  items?: Value[];
}

export interface TensorV {
  t: 'tensor';
  id: number;
  shape: Dim[];
  dtype: DType;
  /** Allocated inside a jitted computation: XLA may never materialise it. */
  virtual?: boolean;
  /** Abstract value (jax.eval_shape, meta device): holds no memory. */
  abstract?: boolean;
  placement: Placement;
  label: string;
  group: string;
  span?: Span;
  role: 'param' | 'buffer' | 'activation' | 'temporary' | 'input';
  random?: boolean;
  /** For a random fill, the jax.random sampler it draws with when known (ParamSpec.sampler). */
  sampler?: 'normal' | 'truncated_normal' | 'uniform' | 'none';
  partition?: (string | null)[];
  note?: string;
  citation?: string;
  /** Which library's array type this is (methods differ: x.view vs x.reshape). */
  lib: 'jax' | 'torch';
  /** Stands for a whole module's parameters (a transformers load sizes each module as one tensor): reading it as an attribute gives the module (frameworks/transformers/semantics.ts hfPart). */
  standIn?: boolean;
  /** How many leading vmap batch axes `shape` already carries (made inside a vmap). */
  batched?: number;
  /** Per dimension, the integer literal the size was written as, when it reached the creating call unchanged. */
  dimLits?: (Span | undefined)[];
}

export const NONE: Value = { t: 'none' };

export function unknown(reason: string, span?: Span): UnknownV {
  return { t: 'unknown', reason, span };
}

export function isUnknown(v: Value): v is UnknownV {
  return v.t === 'unknown';
}

/** Python truthiness, or undefined when it cannot be decided. */
export function truthy(v: Value): boolean | undefined {
  switch (v.t) {
    case 'int': case 'float': return v.v !== 0;
    case 'str': return v.v.length > 0;
    case 'bool': return v.v;
    case 'none': return false;
    case 'tuple': case 'list': return v.items.length > 0;
    case 'dict': return v.keys.length > 0;
    case 'unknown': return undefined;
    case 'tensor': return undefined;
    default: return true;
  }
}

export function num(v: Value): number | undefined {
  if (v.t === 'int' || v.t === 'float') return v.v;
  if (v.t === 'bool') return v.v ? 1 : 0;
  return undefined;
}

export function int(n: number): Value {
  if (!Number.isSafeInteger(n)) return unknown(`integer ${n} exceeds 2^53: too large to size exactly`);
  return { t: 'int', v: n };
}

export function str(s: string): Value {
  return { t: 'str', v: s };
}

/** A short description for messages: "int 4096", "tensor f32[32,4096]". */
export function describe(v: Value): string {
  switch (v.t) {
    case 'int': case 'float': return String(v.v);
    case 'str': return JSON.stringify(v.v);
    case 'bool': return v.v ? 'True' : 'False';
    case 'none': return 'None';
    case 'tensor': return `${v.dtype}[${v.shape.map((d) => (typeof d === 'number' ? d : '?')).join(',')}]`;
    case 'extern': return v.name;
    case 'inst': return `${v.cls.name}(...)`;
    case 'class': return `class ${v.name}`;
    case 'func': return `function ${v.name}`;
    case 'unknown': return `unknown (${v.reason})`;
    default: return v.t;
  }
}
