/**
 * transformers `from_pretrained`: which checkpoint, in which dtype, placed
 * where. The architecture comes from the local Hugging Face cache's
 * config.json when present, else from the checkpoint table shipped with
 * oomlens (never the network). The dtype follows the call's `dtype=` /
 * `torch_dtype=` argument, else the pinned transformers version's default
 * (float32 before 5.0, the checkpoint's dtype from 5.0: see
 * catalog/transformers.ts). `device_map="auto"` splits whole modules over the
 * visible GPUs as accelerate does (shared/src/accelerate.ts).
 */
import { MAX_COUNT, countCapReason } from '../../interp/limits';
import type { DType, Placement, Span } from '../../../../shared/src/facts';
import { treeFromSizes, type MapMode } from '../../../../shared/src/accelerate';
import { placeModules } from '../accelerate/semantics';
import { dtypeBytes, parseDType } from '../../../../shared/src/dtypes';
import { checkpointDir, readLocalConfig, readLocalSubfolder, readLocalWeights, SAFETENSORS_DTYPE_BYTES, type StoredTensor } from './hf-cache';
import { lookupComponent } from '../diffusers/catalog';
import { defaultLoadDType, dtypeKeyword, KNOWN_MODEL_TYPES, lookupCheckpoint, moduleSizes, type HfConfig, type ModuleSize } from './catalog';
import { keywordSlot } from '../args';
import { linearize, type CallArgs, type Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type ClassV, type InstV, type Value, NONE, describe, unknown } from '../../interp/values';
import { linearLayout, type ModelLayout } from './linears';
import { containerClass } from '../torch/semantics';
import { liveAtStep } from '../../phases/training';
import { noteLiveAtLoad } from '../../phases/heldAtLoad';
import { fromData } from '../../program/configfiles';
import { describeQuant, isQuantized, quantFromCall, quantFromConfig, quantizedWeightBytes, type QuantSpec } from './quantization';
import { CONFIG_CLASSES, CONFIG_DEFAULTS_VERSION, type ConfigClassDefaults } from './config-defaults';

export interface HfLoad {
  span: Span;
  /** Offset after the call's last argument (to insert keywords; frameworks/args.ts keywordSlot). */
  insertAt: number;
  /** The library whose from_pretrained this is (absent: transformers). */
  library?: 'diffusers' | 'unsloth';
  /** Whether the call already has arguments (a comma is needed before a new keyword). */
  hasArgs: boolean;
  /** The local name of the `torch` module at the call, if the program imported it there. */
  torchName?: string;
  checkpoint: string;
  className: string;
  /** The dtype keyword given in the call, if any, with its value text. */
  dtypeArg?: { keyword: string; text: string; span: Span };
  /** What the weights load as. */
  dtype: DType | undefined;
  dtypeWhy: string;
  /** The checkpoint's stored dtype (config.json torch_dtype). */
  checkpointDtype?: DType;
  transformersVersion?: string;
  /** 'dtype' from transformers 4.56, 'torch_dtype' before. */
  keyword: 'dtype' | 'torch_dtype';
  deviceMap?: string;
  quantized?: string;
  params: number | null;
  /** The architecture config used (local config.json first, then the shipped table). */
  config?: HfConfig;
  /** Where the sizes came from: local checkpoint files, config.json arithmetic, or the shipped table. */
  sizedFrom?: string;
  /** The model record this load created. */
  modelName: string;
  /** Quantised loading (bitsandbytes 4/8-bit, GPTQ, AWQ) when sized. */
  quant?: QuantSpec;
  /** Linear layers by name (what PEFT targets and quantisation converts), or why they are not known. */
  layout?: ModelLayout | { why: string };
  /** Fields of a config written in the program whose values are not known (field → why): reading one gives no answer. */
  unknownFields?: Map<string, string>;
  /** Built from a config in the program (Model(config), from_config): random weights, in training mode (nn.Module's default). */
  fromConfig?: boolean;
  /**
   * The first call that handed the model to code oomlens does not follow line by line, or ran it (`model(x)`,
   * `generate`, `Trainer(model=…)`, `get_peft_model(model)`, an unknown callable): where it is used. Absent while the
   * program has only read it (`state_dict()`, `named_parameters()`, `config`) — see hostOnlyReason.
   */
  used?: Span;
  /** Its `state_dict()` was read: the model serves as a source of tensors for another (a conversion, a copy). */
  weightsRead?: Span;
}

/**
 * Methods of a transformers model that read it or change it where it is, and run nothing on an accelerator
 * (`.to(device)` / `.cuda()` are tracked as moves: `moved:<id>`, frameworks/torch/semantics.ts).
 */
const HOST_READS = /^(?:transformers\.PreTrainedModel|torch\.nn\.Module)\.(state_dict|named_parameters|parameters|named_buffers|buffers|num_parameters|get_input_embeddings|get_output_embeddings|save_pretrained|eval|train|requires_grad_|float|half|bfloat16|double|to|cpu|cuda|keys|get_memory_footprint)$/;
/** Builtins that only look at an object. */
const LOOKS = new Set(['print', 'len', 'isinstance', 'type', 'id', 'repr', 'str', 'hasattr', 'getattr', 'callable', 'vars', 'dir']);

/**
 * Why a transformers model lives only on the host, or undefined when it may be on the accelerator.
 * `from_pretrained` without a device_map builds the model on the CPU (modeling_utils.py `from_pretrained`:
 * the weights are materialised on the default device, the CPU, unless `device_map` is given; v4.45 and v5),
 * and it stays there until `.to(device)` / `.cuda()` moves it; bitsandbytes quantisation without a device_map
 * places it on the current GPU (quantizers/quantizer_bnb_4bit.py `update_device_map`: `{"": current_device()}`).
 * A model that is never moved, never run and never handed to a library (a trainer, peft, a pipeline, accelerate)
 * and whose state_dict() the program reads (a source of weights for another model) holds host memory only. `device_map="cpu"` keeps every module
 * on the CPU (accelerate's dispatch places each on the device its map names).
 */
export function hostOnlyReason(it: Interpreter, inst: Value | undefined): string | undefined {
  const load = hfLoadOf(inst);
  if (!load || inst?.t !== 'inst') return undefined;
  // A diffusers pipeline with model / sequential CPU offload (pipeline_utils.py enable_model_cpu_offload: accelerate
  // hooks move each component to the device when it runs and back after; sequential offload does so per submodule):
  // the whole pipeline never sits on the device at once, and which part is there when is not modelled.
  const offload = it.state.get(`offload:${inst.id}`);
  if (typeof offload === 'string') return `${offload}: components move to the accelerator one at a time while the pipeline runs (not modelled); the pipeline is listed on the host`;
  const moved = it.state.get(`moved:${inst.id}`);
  if (moved !== undefined && moved !== 'cpu') return undefined;
  if (load.deviceMap === 'cpu') return 'loaded with device_map="cpu" and never moved to an accelerator';
  // A model only loaded (nothing read from it yet) is taken to be the model the program is about to use: it keeps
  // the device report (the load phase assumes it is moved), as a model under construction in the editor should.
  if (load.deviceMap !== undefined || load.quantized || load.used || !load.weightsRead) return undefined;
  return 'loaded without a device_map, never moved to an accelerator, never run and never handed to a library: only its state_dict() is read, on the host';
}

/** Notes every call a transformers model is handed to or run by, other than a read (HfLoad.used). */
function observeUses(it: Interpreter): void {
  const mark = (v: Value | undefined, node: SyntaxNode, depth = 0): void => {
    if (!v) return;
    if (v.t === 'inst') { const l = LOAD_OF.get(v); if (l && !l.used) { l.used = it.span(node); } return; }
    if (depth > 0) return;
    if (v.t === 'list' || v.t === 'tuple') for (const x of v.items) mark(x, node, depth + 1);
    else if (v.t === 'dict') for (const x of v.vals) mark(x, node, depth + 1);
  };
  it.callObservers.push((fn, c, node) => {
    if (fn.t === 'extern') {
      if (HOST_READS.test(fn.name)) {
        const l = fn.self?.t === 'inst' ? LOAD_OF.get(fn.self) : undefined;
        if (l && !l.weightsRead && fn.name.endsWith('.state_dict')) l.weightsRead = it.span(node);
        return;
      }
      if (LOOKS.has(fn.name) || (fn.name.startsWith('builtins.') && fn.name !== 'builtins.setattr')) return;
      mark(fn.self, node);
    } else mark(fn, node);
    for (const a of c.args) mark(a, node);
    for (const a of c.kw.values()) mark(a, node);
  });
}

/** A config field whose value the program does not make known was read by a formula. */
export class UnknownConfigField extends Error {
  constructor(readonly field: string, readonly why: string) { super(`config field ${field} is not known (${why})`); this.name = 'UnknownConfigField'; }
}

/**
 * The config a load was built from, as formulas read it: a field the program set to a value oomlens does
 * not know throws UnknownConfigField when read, so no formula falls back to a default for it.
 */
export function hfConfigView(load: HfLoad): HfConfig | undefined {
  const c = load.config;
  const u = load.unknownFields;
  if (!c || !u?.size) return c;
  return new Proxy(c, { get(t, k, r) { if (typeof k === 'string' && u.has(k)) throw new UnknownConfigField(k, u.get(k)!); return Reflect.get(t, k, r); } });
}

/** `fn(config)`, or the unknown field it read. */
export function readConfig<T>(fn: () => T): T | UnknownConfigField {
  try { return fn(); } catch (e) { if (e instanceof UnknownConfigField) return e; throw e; }
}

const LOAD_OF = new WeakMap<object, HfLoad>();
/** The from_pretrained call that made a model instance. */
export function hfLoadOf(v: Value | undefined): HfLoad | undefined {
  return v && typeof v === 'object' ? LOAD_OF.get(v) : undefined;
}

export function hfLoads(it: Interpreter): HfLoad[] {
  let v = it.state.get('hfLoads') as HfLoad[] | undefined;
  if (!v) it.state.set('hfLoads', (v = []));
  return v;
}

/** The reason of the value a transformers config class without an entry in config-defaults.ts gives (interp.ts callExtern). */
const UNREAD_CONFIG = /`transformers\.(?:[\w.]+\.)?\w+Config` is not modelled/;

const NOT_MODELS = /(Tokenizer|TokenizerFast|Processor|Config|FeatureExtractor|ImageProcessor|GenerationConfig)$/;

export function installTransformers(it: Interpreter): void {
  observeUses(it);
  it.externPrefixes.push(['transformers.', (_i, _self, c, node, fnv) => {
    const className = fnv.name.split('.').slice(-2, -1)[0];
    const last = fnv.name.split('.').pop()!;
    // `CausalLMOutputWithPast(logits=..., loss=...)`: a ModelOutput is an ordered dict whose keys are also attributes
    // (utils/generic.py ModelOutput; modeling_outputs.py dataclasses, every field defaulting to None).
    if (/^transformers\.(modeling_outputs\.|utils\.(generic\.)?)?(ModelOutput|\w+Output\w*)$/.test(fnv.name)) {
      if (c.args.length) return unknown(`${last}(...) with positional fields is not read`, it.span(node));
      return { t: 'dict', keys: [...c.kw.keys()].map((k) => ({ t: 'str' as const, v: k })), vals: [...c.kw.values()], attrs: true };
    }
    // `GPT2Config(n_layer=4, ...)`: the config class's own defaults under the keywords given.
    if (Object.hasOwn(CONFIG_CLASSES, last)) return makeConfig(it, last, CONFIG_CLASSES[last], c, node);
    // AutoConfig.for_model("gpt2", **kw) (configuration_auto.py): that model_type's config class with the keywords.
    if (className === 'AutoConfig' && last === 'for_model') {
      const mt = c.args[0] ?? c.kw.get('model_type');
      const entry = mt?.t === 'str' ? Object.entries(CONFIG_CLASSES).find(([, x]) => x.modelType === mt.v) : undefined;
      if (!entry) return unknown(`AutoConfig.for_model(${mt?.t === 'str' ? `"${mt.v}"` : '…'}): ${mt?.t === 'str' ? 'no config class oomlens reads for this model_type' : 'the model_type is not a literal'}`, it.span(node));
      const kw = new Map(c.kw);
      kw.delete('model_type');
      return makeConfig(it, entry[0], entry[1], { args: c.args.slice(1), kw }, node);
    }
    // `class MyBart(BartForConditionalGeneration)` built by its constructor (`MyBart(config)`, or its own __init__
    // calling `super().__init__(config)`): the library class's modules are built into the instance as
    // `BartForConditionalGeneration(config)` builds them; modules the subclass's __init__ adds are not counted.
    if (last === '__init__' && _self?.t === 'inst' && _self.cls.node && /^[A-Z]\w*(Model|For[A-Z]\w*)$/.test(className) && !className.startsWith('Auto') && !NOT_MODELS.test(className)) {
      const built = it.callExtern({ t: 'extern', name: fnv.name.slice(0, -'.__init__'.length) }, c, node);
      if (built.t === 'inst') {
        for (const [k, v] of built.attrs) _self.attrs.set(k, v);
        const load = hfLoadOf(built);
        if (load) LOAD_OF.set(_self, load);
        const rec = [...it.memory.finished].reverse().find((r) => r.result === built);
        if (rec) {
          rec.result = _self;
          rec.name = `${_self.cls.name} (${rec.name})`;
          if (linearize(_self.cls).some((k) => k.node && k.ns.has('__init__'))) rec.unknowns.push({ what: 'parameters', reason: `${_self.cls.name} extends transformers ${className}: modules its own __init__ adds beyond ${className}'s are not counted`, span: it.span(node) });
        }
      }
      return NONE;
    }
    const fromConfig = fnv.name.endsWith('.from_config') && !NOT_MODELS.test(className);
    // `GPT2LMHeadModel(config)`: a concrete model class built from a config value (modeling_utils.py
    // PreTrainedModel.__init__: random initialisation in torch's default dtype, float32; dtype= is not an
    // argument of __init__ and config.dtype is not applied there).
    // Only with a config value (or a config class oomlens does not read) as that argument: DataCollatorFor…(tokenizer) is no model.
    const cfgArg = c.args[0] ?? c.kw.get('config');
    const unreadConfig = cfgArg?.t === 'unknown' && UNREAD_CONFIG.test(cfgArg.reason);
    const direct = !fromConfig && /^[A-Z]\w*(Model|For[A-Z]\w*)$/.test(last) && !last.startsWith('Auto') && !NOT_MODELS.test(last) && (configArg(c) !== undefined || unreadConfig);
    if (fromConfig || direct) {
      const cls = fromConfig ? className : last;
      // AutoModelFor….from_config(config): the architecture the config describes, built randomly initialised
      // (modeling_utils.py _from_config, v4.45 and v5.23: `dtype=` / `torch_dtype=` else the config's dtype,
      // else torch's default). No weights are read.
      const cfgV = configArg(c);
      const parsed = cfgV ? configFromValue(cfgV) : undefined;
      if (!parsed) {
        const arg = c.args[0] ?? c.kw.get('config');
        const named = arg?.t === 'unknown' && UNREAD_CONFIG.test(arg.reason) ? ` (${arg.reason}: no parameter formula for its model_type)` : ' (AutoConfig.from_pretrained with a literal checkpoint name, or a config class called in the program, gives it)';
        // A model record whose size is unknown (reported with the reason), never a missing model or zero.
        const rec = it.memory.current || it.state.get('torchMeta') === true ? undefined : it.memory.begin({ name: `${cls}(config)`, framework: 'transformers', span: it.span(node), phase: 'load', jitted: false, gc: false });
        it.note(`${cls}${fromConfig ? '.from_config' : '(config)'}: the config is not known${named}; the model's size is unknown`, node);
        const inst = it.newInst(hfClass(it, cls));
        if (rec) { rec.result = inst; it.memory.end(rec); }
        return inst;
      }
      const id = (cfgV && CONFIG_ID.get(cfgV)) ?? `${cls} (config, model_type ${parsed.config.model_type})`;
      const torchDefault = (it.state.get('torchDefaultDtype') as DType | undefined) ?? 'float32';
      const cfgDtype = parsed.config.dtype ?? parsed.config.torch_dtype;
      const dt: { dtype: DType | undefined; why: string } | undefined = direct
        ? { dtype: torchDefault, why: `${cls}(config) initialises its weights in torch's default dtype (${torchDefault}; modeling_utils.py PreTrainedModel.__init__)` }
        : c.kw.has('dtype') || c.kw.has('torch_dtype') ? undefined
        : parsed.unknownFields.has('dtype') || parsed.unknownFields.has('torch_dtype') ? { dtype: undefined, why: 'the config\'s dtype is not known' }
        : typeof cfgDtype === 'string' ? { dtype: parseDType(cfgDtype), why: `from_config uses the config's dtype (${cfgDtype}; modeling_utils.py _from_config)` }
        : { dtype: torchDefault, why: `no dtype given and the config has none: from_config builds in torch's default dtype (${torchDefault}; modeling_utils.py _from_config)` };
      return fromPretrained(it, cls, [{ t: 'str', v: id }], direct ? new Map() : c.kw, node, parsed.config, dt, parsed.unknownFields);
    }
    if (!fnv.name.endsWith('.from_pretrained')) return unknown('__pass__');
    // AutoConfig.from_pretrained(id): the checkpoint's config.json (local folder / HF cache, else the shipped
    // table), so `config.model_type == "llama"` decides as it does at run time (configuration_utils.py).
    if (/^(Auto|[A-Z]\w*)Config$/.test(className) && !/^(Generation|BitsAndBytes|Lora|Peft)Config$/.test(className)) {
      const idV = c.args[0] ?? c.kw.get('pretrained_model_name_or_path');
      const subV = c.kw.get('subfolder');
      if (idV?.t === 'str' && subV?.t === 'str' && subV.v.trim()) {
        // `PretrainedConfig.from_pretrained(id, subfolder="text_encoder_2")`: that folder's config.json (diffusers
        // training scripts read `architectures[0]` from it to pick the text encoder class).
        const cfg = resolveSubfolder(idV.v, subV.v, it.state.get('fileDir') as string | undefined).config;
        if (cfg) {
          const v = fromData(cfg, true);
          CONFIG_ID.set(v, `${idV.v} (${subV.v.trim()})`);
          return v;
        }
      } else if (idV?.t === 'str') {
        const local = readLocalConfig(idV.v, process.env, it.state.get('fileDir') as string | undefined);
        const cfg = (local && 'config' in local ? local.config as HfConfig : undefined) ?? lookupCheckpoint(idV.v)?.config;
        if (cfg) {
          const v = configValue(cfg);
          if (v.t === 'dict') for (const [k, x] of c.kw) if (k !== 'pretrained_model_name_or_path' && !k.startsWith('_')) { const i = v.keys.findIndex((y) => y.t === 'str' && y.v === k); if (i >= 0) v.vals[i] = x; else { v.keys.push({ t: 'str', v: k }); v.vals.push(x); } }
          CONFIG_ID.set(v, idV.v);
          return v;
        }
      }
    }
    // Keyword overrides stay readable (`tokenizer.model_max_length` given to from_pretrained, frameworks/datasets).
    if (/Config$/.test(className) && CONFIG_CLASSES[className]) {
      // `GPT2Config.from_pretrained(id)` reads like AutoConfig's (handled above when the checkpoint is known).
      return unknown(`${className}.from_pretrained: the checkpoint's config is not known`, it.span(node));
    }
    if (NOT_MODELS.test(className)) return { t: 'extern', name: `transformers.${className}(instance)`, kw: new Map(c.kw) };
    const model = fromPretrained(it, className, c.args, c.kw, node);
    // `MyModel.from_pretrained(...)` on the program's subclass of a transformers class: the checkpoint's modules
    // load as the base class's; modules the subclass's __init__ adds are not counted (an unknown, never zero).
    if (_self?.t === 'class') {
      const rec = it.memory.reported().at(-1);
      const load = hfLoadOf(model);
      if (rec && load && rec.result === model) {
        rec.name = `${_self.name} (${load.checkpoint})`;
        if (_self.node && !rec.definitionSpan) rec.definitionSpan = it.span(_self.node);
        const init = model.t === 'inst' ? subclassInit(_self, model) : 'adds';
        if (init === 'adds') rec.unknowns.push({ what: 'parameters', reason: `${_self.name} extends transformers ${className}: modules its own __init__ adds beyond the checkpoint's ${className} are not counted`, span: it.span(node) });
        // from_pretrained builds the subclass with its own __init__ and loads the checkpoint into what it built
        // (modeling_utils.py from_pretrained → `cls(config)`): an __init__ that runs other code may replace the
        // library's modules (`convert_to_int8(self)` swapping each Linear for a uint8 buffer), so the library's
        // count is not even a lower bound.
        else if (init) rec.unknowns.push({ what: 'parameters', noBound: true, reason: `${_self.name} extends transformers ${className} and its __init__ runs \`${init}\`, which may replace the checkpoint's modules: what the model holds is not known (the library's ${className} count is not a lower bound)`, span: it.span(node) });
      }
    }
    return model;
  }]);
  // A program's own model on PreTrainedModel (a torch module, interp.ts classKindOf): `super().__init__(config)` keeps
  // the config as `self.config` (modeling_utils.py PreTrainedModel.__init__); post_init() initialises the weights in
  // place and ties the head (no new tensor that outlives it).
  for (const base of ['transformers.PreTrainedModel', 'transformers.modeling_utils.PreTrainedModel']) {
    it.externs.set(`${base}.__init__`, (_i, self, c) => {
      const cfg = c.args[0] ?? c.kw.get('config');
      if (self?.t === 'inst' && cfg) self.attrs.set('config', cfg);
      return NONE;
    });
  }
  for (const m of ['post_init', 'init_weights', 'tie_weights']) it.externs.set(`torch.nn.Module.${m}`, () => NONE);
  // The program's subclass of a transformers model class inherits its class methods.
  const prevAttr = it.externs.get('__getattr__');
  it.externs.set('__getattr__', (i, self, c, node, fnv) => {
    const name = c.args[0];
    if (self?.t === 'inst' && name?.t === 'str') {
      if (name.v === 'config') {
        const cfg = loadedConfig(self);
        if (cfg) return cfg;
      }
      const part = hfPart(it, self, name.v);
      if (part) return part;
    }
    if (self?.t === 'class' && name?.t === 'str' && (name.v === 'from_pretrained')) {
      const base = linearize(self).flatMap((k) => k.bases).find((b) => b.t === 'extern' && b.name.startsWith('transformers.'));
      if (base?.t === 'extern' && !NOT_MODELS.test(base.name)) return { t: 'extern', name: `${base.name}.${name.v}`, self };
    }
    return prevAttr ? prevAttr(i, self, c, node, fnv) : unknown('__pass__');
  });
  // config.update_from_string("n_embd=10,resid_pdrop=0.2") (configuration_utils.py, run_clm's --config_overrides):
  // each value cast to the type of the attribute it replaces (bool, int, float, str); an attribute that is
  // missing or of another type makes transformers raise, so that field is unknown here.
  const updateFromString = (_i: Interpreter, self: Value | undefined, c: CallArgs, node: SyntaxNode): Value => {
    if (self?.t !== 'dict' || !self.attrs) return unknown('update_from_string on a value that is not a config oomlens reads', it.span(node));
    const sv = c.args[0] ?? c.kw.get('update_str');
    const keyOf = (k: string) => (self.aliases && Object.hasOwn(self.aliases, k) ? self.aliases[k] : k);
    if (sv?.t !== 'str') {
      // Which fields change is not known: every field of the config is.
      self.vals = self.vals.map((v, i) => (self.keys[i].t === 'str' && (self.keys[i] as { v: string }).v === 'model_type' ? v : unknown('config.update_from_string with a value that is not known', it.span(node))));
      return NONE;
    }
    for (const part of sv.v.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const k = keyOf(part.slice(0, eq));
      const raw = part.slice(eq + 1);
      const i = self.keys.findIndex((x) => x.t === 'str' && x.v === k);
      const old = i >= 0 ? self.vals[i] : undefined;
      const truthy = ['true', '1', 'y', 'yes'].includes(raw.toLowerCase());
      const v: Value = old?.t === 'bool' && (truthy || ['false', '0', 'n', 'no'].includes(raw.toLowerCase())) ? { t: 'bool', v: truthy }
        : old?.t === 'int' && /^[+-]?\d+$/.test(raw) ? { t: 'int', v: Number(raw) }
        : old?.t === 'float' && Number.isFinite(Number(raw)) ? { t: 'float', v: Number(raw) }
        : old?.t === 'str' ? { t: 'str', v: raw }
        // A None default that __post_init__ derives (num_key_value_heads) has a type oomlens does not follow: unknown.
        : unknown(`config.update_from_string: ${k}=${raw} (the attribute is missing, None before __post_init__, or its type does not take this value)`, it.span(node));
      if (i >= 0) self.vals[i] = v; else { self.keys.push({ t: 'str', v: k }); self.vals.push(v); }
    }
    return NONE;
  };
  it.externs.set('builtins.dict.update_from_string', updateFromString);
  // TF1 HParams.parse("name=value,...") (hparam.py parse_values): each value cast to the type of the existing one.
  it.externs.set('builtins.dict.parse', (i, self, c, node) => {
    const r = updateFromString(i, self, c, node);
    return r.t === 'none' ? self ?? NONE : r;
  });
  // CONFIG_MAPPING["gpt2"] (configuration_auto.py, as run_clm.py uses it): that model_type's config class.
  const prevItem = it.externs.get('__getitem__');
  it.externs.set('__getitem__', (i, self, c, node, fnv) => {
    if (self?.t === 'extern' && /^transformers\.(?:models\.auto\.configuration_auto\.)?CONFIG_MAPPING$/.test(self.name) && !self.self) {
      const k = c.args[0];
      const entry = k?.t === 'str' ? Object.entries(CONFIG_CLASSES).find(([, x]) => x.modelType === k.v) : undefined;
      return entry ? { t: 'extern', name: `transformers.${entry[0]}` } : unknown(`CONFIG_MAPPING[${k?.t === 'str' ? `"${k.v}"` : '…'}]: ${k?.t === 'str' ? 'no config class oomlens reads for this model_type' : 'the model_type is not known'}`, it.span(node));
    }
    return prevItem ? prevItem(i, self, c, node, fnv) : unknown('indexing is not modelled', it.span(node));
  });
  it.externs.set('transformers.BitsAndBytesConfig', (_i, _s, c) => ({ t: 'extern', name: 'transformers.BitsAndBytesConfig', kw: c.kw }));
}

/**
 * The model in folder `sub` of repository `id`: that folder's config.json on disk (a local folder or the hub cache),
 * else the shipped table of pipeline components (frameworks/diffusers/catalog.ts); a folder found nowhere has no
 * config (its size is unknown, said by fromPretrained).
 */
function resolveSubfolder(id: string, sub: string, baseDir: string | undefined): ResolvedCheckpoint {
  const subfolder = sub.trim().replace(/^\/+|\/+$/g, '');
  const local = readLocalSubfolder(id, subfolder, process.env, baseDir);
  if (local && 'unknown' in local) return { subfolder, why: local.unknown };
  if (local) return { subfolder, config: local.config as HfConfig, source: local.path, dir: local.dir };
  const entry = lookupComponent(id, subfolder);
  if (entry && typeof entry.config.model_type === 'string') return { subfolder, config: entry.config as HfConfig, source: entry.source };
  return { subfolder };
}

/** `<className>.from_pretrained(id, **kw)` with a checkpoint the caller resolved (frameworks/diffusers). */
export function loadResolved(it: Interpreter, className: string, args: Value[], kw: Map<string, Value>, node: SyntaxNode, resolved: ResolvedCheckpoint, dtype: { dtype: DType | undefined; why: string }): Value {
  return fromPretrained(it, className, args, kw, node, undefined, dtype, undefined, resolved);
}

/** `<className>.from_pretrained(id, **kw)` as a library's own code calls it (trl's SFTTrainer with a model id). */
export function loadPretrained(it: Interpreter, className: string, id: string, kw: Map<string, Value>, node: SyntaxNode): Value {
  return fromPretrained(it, className, [{ t: 'str', v: id }], kw, node);
}

/**
 * `<className>.from_pretrained(id, **kw)` as a library calls it with a dtype it chose itself (unsloth picks bfloat16
 * or float16 from the device): `dtype` says which and why; `kw` holds the rest (quantization_config, device_map).
 */
export function loadWithDtype(it: Interpreter, className: string, id: string, kw: Map<string, Value>, node: SyntaxNode, dtype: { dtype: DType | undefined; why: string }): Value {
  return fromPretrained(it, className, [{ t: 'str', v: id }], kw, node, undefined, dtype);
}

/** The checkpoint an AutoConfig.from_pretrained value was read from (a from_config model keeps its name). */
const CONFIG_ID = new WeakMap<object, string>();

/** A config value (dict with attributes, lists, scalars) back to JSON, as config.json would hold it. */
function valueToJson(v: Value): unknown {
  switch (v.t) {
    case 'dict': {
      const o: Record<string, unknown> = {};
      v.keys.forEach((k, i) => { if (k.t === 'str') o[k.v] = valueToJson(v.vals[i]); });
      return o;
    }
    case 'list': case 'tuple': return v.items.map(valueToJson);
    case 'int': case 'float': case 'str': case 'bool': return v.v;
    case 'none': return null;
    case 'dtype': return v.dtype;
    default: return undefined;
  }
}

/** The config value given to a model class or from_config: first positional or `config=`. */
function configArg(c: { args: Value[]; kw: Map<string, Value> }): Value | undefined {
  const v = c.args[0] ?? c.kw.get('config');
  if (v?.t === 'dict' && v.keys.some((k, i) => k.t === 'str' && k.v === 'model_type' && v.vals[i].t === 'str')) return v;
  return undefined;
}

/** The config class of a model_type (its attribute_map resolves aliases written into the config). */
function configClassOf(modelType: string): ConfigClassDefaults | undefined {
  return Object.values(CONFIG_CLASSES).find((c) => c.modelType === modelType);
}

/**
 * A config value as config.json would hold it: aliases (attribute_map: GPT2Config's hidden_size is n_embd)
 * resolved to the field, the fields whose value is not known listed apart (never a default in their place).
 */
function configFromValue(v: Value): { config: HfConfig; unknownFields: Map<string, string> } | undefined {
  if (v.t !== 'dict') return undefined;
  const mtI = v.keys.findIndex((k) => k.t === 'str' && k.v === 'model_type');
  const mt = mtI >= 0 && v.vals[mtI].t === 'str' ? (v.vals[mtI] as { v: string }).v : undefined;
  if (!mt) return undefined;
  const map = v.aliases ?? configClassOf(mt)?.attributeMap ?? {};
  const config: Record<string, unknown> = {};
  const unknownFields = new Map<string, string>();
  v.keys.forEach((k, i) => {
    if (k.t !== 'str') return;
    const field = Object.hasOwn(map, k.v) ? map[k.v] : k.v;
    const x = v.vals[i];
    const j = valueToJson(x);
    const huge = j === undefined ? undefined : hugeCount(field, j);
    if (j === undefined || huge) { unknownFields.set(field, huge ?? (x.t === 'unknown' ? x.reason : `a ${x.t} value`)); delete config[field]; }
    else { config[field] = j; unknownFields.delete(field); }
  });
  return { config: config as HfConfig, unknownFields };
}

/** Config fields that count layers, experts or blocks: the family formulas make one entry per counted item. */
const CONFIG_COUNT = /(layers?|experts?|blocks?|depths?)$/i;

/** Why a config field (or a field nested in it) holding a count past the size cap is not followed. */
function hugeCount(field: string, j: unknown, depth = 0): string | undefined {
  if (typeof j === 'number') return j > MAX_COUNT && CONFIG_COUNT.test(field) ? countCapReason(field, j) : undefined;
  if (depth > 4 || typeof j !== 'object' || j === null) return undefined;
  for (const [k, v] of Object.entries(j)) {
    const why = hugeCount(Array.isArray(j) ? field : k, v, depth + 1);
    if (why) return why;
  }
  return undefined;
}

/**
 * `<Family>Config(**kw)` in the program: the class's defaults (config-defaults.ts, read from the installed
 * transformers' configuration_<arch>.py) with the keywords given over them, under their field names
 * (attribute_map aliases resolved), as an attribute dict the program can read and assign
 * (`config.n_layer = 6`, `config.update({...})`). A keyword whose value is not known stays unknown.
 */
function makeConfig(it: Interpreter, name: string, cc: ConfigClassDefaults, c: { args: Value[]; kw: Map<string, Value> }, node: SyntaxNode): Value {
  if (c.args.length) return unknown(`${name}(...) with positional arguments: not read`, it.span(node));
  if (c.kw.has('**')) return unknown(`${name}(**...) with keywords oomlens cannot list`, it.span(node));
  const keys: Value[] = [{ t: 'str', v: 'model_type' }];
  const vals: Value[] = [{ t: 'str', v: cc.modelType }];
  const put = (k: string, x: Value) => {
    const f = Object.hasOwn(cc.attributeMap, k) ? cc.attributeMap[k] : k;
    const i = keys.findIndex((y) => y.t === 'str' && y.v === f);
    if (i >= 0) vals[i] = x; else { keys.push({ t: 'str', v: f }); vals.push(x); }
  };
  for (const [k, d] of Object.entries(cc.defaults)) put(k, fromData(d, true));
  for (const [k, x] of c.kw) put(k, x);
  return { t: 'dict', keys, vals, attrs: true, aliases: cc.attributeMap };
}
/** The transformers version the config class defaults were read from (config-defaults.ts). */
export const CONFIG_CLASS_VERSION = CONFIG_DEFAULTS_VERSION;

function hfClass(it: Interpreter, name: string): ClassV {
  return { t: 'class', name, bases: [], ns: new Map(), kind: 'torch', dataclass: false, fields: [] };
}

/**
 * A checkpoint found by the caller rather than by id (a diffusers model class, a component `subfolder` of a
 * pipeline repository): its config, where it came from, the local folder holding its weights, and, for classes
 * that are not transformers models, their sizes and Linear layers computed by the caller.
 */
export interface ResolvedCheckpoint {
  config?: HfConfig;
  source?: string;
  dir?: string;
  /** The weights file stem in `dir` (`model` for transformers, `diffusion_pytorch_model` for diffusers). */
  weightsStem?: string;
  sizes?: ModuleSize[];
  layout?: ModelLayout | { why: string };
  /** Why the sizes are not known (the config is known but has no formula). */
  why?: string;
  /** The record's framework: a diffusers model is a torch module, not a transformers language model. */
  framework?: 'torch';
  /** Shown with the checkpoint name (`unet` of `runwayml/stable-diffusion-v1-5`). */
  subfolder?: string;
  /** The library whose from_pretrained this is (absent: transformers). */
  library?: 'diffusers' | 'unsloth';
}

/** from_pretrained's own keyword arguments (modeling_utils.py PreTrainedModel.from_pretrained), not config fields. */
const LOAD_KEYWORDS = new Set(['pretrained_model_name_or_path', 'config', 'cache_dir', 'ignore_mismatched_sizes', 'force_download', 'local_files_only', 'token', 'use_auth_token', 'revision', 'use_safetensors', 'weights_only', 'state_dict', 'from_tf', 'from_flax', 'proxies', 'output_loading_info', 'trust_remote_code', 'mirror', 'device_map', 'max_memory', 'offload_folder', 'offload_state_dict', 'offload_buffers', 'low_cpu_mem_usage', 'torch_dtype', 'dtype', 'quantization_config', 'load_in_8bit', 'load_in_4bit', 'subfolder', 'variant', 'attn_implementation', 'tp_plan', 'tp_size', 'device_mesh', 'key_mapping', 'adapter_name', 'adapter_kwargs', 'gguf_file', 'code_revision', 'resume_download', '_fast_init', 'generation_config', 'kernel_config', 'use_kernels']);

/**
 * The config a checkpoint is built with: its config.json, updated by the call's other keyword arguments. "kwargs …
 * Can be used to update the configuration object (after it being loaded) …: each key of kwargs that corresponds to a
 * configuration attribute will be used to override said attribute with the supplied kwargs value" (modeling_utils.py
 * PreTrainedModel.from_pretrained, `config.update` via PretrainedConfig.from_pretrained(..., return_unused_kwargs=True)).
 * `num_labels` is an attribute of every config (configuration_utils.py PretrainedConfig: it sets id2label), as is
 * `id2label` (num_labels = its length). A value oomlens does not know makes that field unknown.
 */
function configOverrides(config: HfConfig, kw: Map<string, Value>, unknownFields: Map<string, string>): HfConfig {
  let out: HfConfig | undefined;
  const set = (k: string, v: unknown) => { out ??= { ...config }; (out as unknown as Record<string, unknown>)[k] = v; };
  // The config class's attribute_map (GPT2Config: num_hidden_layers → n_layer): a keyword and the field it names are
  // one attribute, whichever of the two names the stored config uses.
  const cls = Object.values(CONFIG_CLASSES).find((x) => x.modelType === config.model_type);
  const map = cls?.attributeMap ?? {};
  for (const [k, v] of kw) {
    if (LOAD_KEYWORDS.has(k) || k === '**') continue;
    if (k === 'id2label' && v.t === 'dict') { set('num_labels', v.keys.length); continue; }
    const names = [...new Set([k, map[k], ...Object.keys(map).filter((c) => map[c] === k)].filter((x): x is string => !!x))];
    const present = names.filter((n) => Object.hasOwn(config, n));
    const known = present.length > 0 || k === 'num_labels' || (cls !== undefined && names.some((n) => Object.hasOwn(cls.defaults, n)));
    if (!known) continue;
    for (const n of present.length ? present : [k]) {
      if (v.t === 'int' || v.t === 'float' || v.t === 'bool' || v.t === 'str') set(n, v.v);
      else if (v.t === 'none') set(n, null);
      else if (v.t === 'unknown') { unknownFields.set(n, v.reason); out ??= { ...config }; delete (out as unknown as Record<string, unknown>)[n]; }
    }
  }
  return out ?? config;
}

function fromPretrained(it: Interpreter, className: string, args: Value[], kw: Map<string, Value>, node: SyntaxNode, fromConfig?: HfConfig, configDtype?: { dtype: DType | undefined; why: string }, unknownFields?: Map<string, string>, resolvedIn?: ResolvedCheckpoint): Value {
  const idV = args[0] ?? kw.get('pretrained_model_name_or_path');
  const argList = node.childForFieldName('arguments');
  const slot = keywordSlot(node);
  // A checkpoint name that is not known is said (a model is loaded here; its size is not known), not
  // left silent: a parser field without a default (`model_name_or_path: str = None`) is None until the
  // command line gives it, and from_pretrained(None) raises.
  if (idV?.t !== 'str') {
    const why = idV === undefined || idV.t === 'none'
      ? 'the checkpoint name is None (no default: it comes from the command line or a config file; give the command with --run or declare the model)'
      : `the checkpoint name is not known (${describe(idV)})`;
    return it.note(`${className}.from_pretrained: ${why}`, node);
  }
  const versions = (it.state.get('versions') as Record<string, string> | undefined) ?? {};
  const tv = versions.transformers;
  const baseDir = it.state.get('fileDir') as string | undefined;
  // `subfolder="text_encoder"`: the model lives in that folder of the repository (a diffusers pipeline's
  // component), with its own config.json (modeling_utils.py from_pretrained `subfolder`).
  const subV = kw.get('subfolder');
  const resolved = resolvedIn ?? (!fromConfig && subV?.t === 'str' && subV.v.trim() ? resolveSubfolder(idV.v, subV.v, baseDir) : undefined);
  if (!resolvedIn && !fromConfig && subV && subV.t !== 'str' && subV.t !== 'none') {
    return it.note(`${className}.from_pretrained("${idV.v}", subfolder=…): the subfolder is not known (${describe(subV)}), so which model is loaded is not known`, node);
  }
  const id = resolved?.subfolder ? `${idV.v} (${resolved.subfolder})` : idV.v;
  // from_config: the config given, and no checkpoint files (the weights are randomly initialised).
  const local = fromConfig || resolved ? undefined : readLocalConfig(id, process.env, baseDir);
  const entry = fromConfig || resolved ? undefined : lookupCheckpoint(id);
  const dir = fromConfig ? undefined : resolved ? resolved.dir : checkpointDir(id, process.env, baseDir);
  const weights = dir ? readLocalWeights(dir, resolved?.weightsStem) : undefined;
  const loadedConfig: HfConfig | undefined = fromConfig ?? resolved?.config ?? (local && 'config' in local ? (local.config as HfConfig) : undefined) ?? entry?.config;
  const config = loadedConfig && !fromConfig && !resolved?.framework ? configOverrides(loadedConfig, kw, unknownFields ??= new Map()) : loadedConfig;

  // dtype: explicit argument, else the version's default.
  let dtypeArg: HfLoad['dtypeArg'];
  let dtype: DType | undefined;
  let why: string;
  const checkpointDtype = config?.torch_dtype ? parseDType(String(config.torch_dtype)) : undefined;
  for (const k of ['dtype', 'torch_dtype']) {
    const v = kw.get(k);
    if (!v) continue;
    const argNode = argList?.namedChildren.find((a) => a?.type === 'keyword_argument' && a.childForFieldName('name')?.text === k);
    dtypeArg = { keyword: k, text: argNode?.childForFieldName('value')?.text ?? '', span: argNode ? it.span(argNode) : it.span(node) };
    if (v.t === 'dtype') dtype = v.dtype;
    else if (v.t === 'str' && v.v === 'auto') dtype = checkpointDtype;
    else if (v.t === 'str') dtype = parseDType(v.v);
    why = `${k}=${dtypeArg.text}`;
  }
  why ??= '';
  if (!dtypeArg && configDtype) {
    dtype = configDtype.dtype;
    why = configDtype.why;
  } else if (!dtypeArg) {
    const d = defaultLoadDType(tv);
    if (d === 'float32') { dtype = 'float32'; why = tv ? `no dtype given: transformers==${tv} loads float32 by default (before 5.0)` : 'no dtype given'; }
    else if (d === 'auto') { dtype = checkpointDtype; why = `no dtype given: transformers==${tv} loads the checkpoint's dtype`; }
    else { dtype = 'float32'; why = 'no dtype given and transformers is not pinned: float32 before 5.0, the checkpoint dtype from 5.0; assuming float32'; }
  }
  // Quantisation asked for by the call, else a pre-quantised checkpoint's config.json (sized from its
  // safetensors headers when they are present: those already hold the packed tensors).
  const qCall = quantFromCall(kw);
  const qSpec = qCall ?? (weights && 'tensors' in weights && weights.tensors ? undefined : quantFromConfig(config as Record<string, unknown> | undefined));
  const quant = qSpec ? ('why' in qSpec ? 'quantization_config' : qSpec.method) : undefined;
  if (qSpec && !('why' in qSpec) && !dtypeArg && !configDtype && qSpec.method.startsWith('bnb') && defaultLoadDType(tv) === 'float32') {
    // transformers 4.x quantizers: "torch_dtype is None → float16" (quantizers/quantizer_bnb_4bit.py update_torch_dtype, v4.45).
    dtype = 'float16'; why = `no dtype given: transformers==${tv ?? '4.x'} loads the unquantised modules of a bitsandbytes model in float16 (quantizer_bnb_4bit.py update_torch_dtype)`;
  } else if (qSpec && !('why' in qSpec) && !dtypeArg && !configDtype && qSpec.method.startsWith('bnb') && defaultLoadDType(tv) === 'unknown' && (checkpointDtype === 'float16' || checkpointDtype === 'bfloat16')) {
    // Unpinned: 4.x makes them float16 (update_torch_dtype), 5.x the checkpoint's dtype, 16-bit here: two bytes either way.
    dtype = 'float16'; why = `no dtype given and transformers is not pinned: a bitsandbytes model's unquantised modules load in float16 (4.x, quantizer_bnb_4bit.py update_torch_dtype) or the checkpoint's ${checkpointDtype} (5.x): 16-bit either way`;
  }
  const dm = kw.get('device_map');
  const deviceMap = dm?.t === 'str' ? dm.v : dm?.t === 'int' ? `cuda:${dm.v}` : dm ? 'custom' : undefined;

  // Under init_empty_weights() / torch.device("meta") the weights are on the meta device: no memory, no load.
  const meta = it.state.get('torchMeta') === true;
  // What the accelerator already holds when this load begins (a model loaded earlier and still referenced).
  // Only for a load onto the accelerator (a device_map that is not the host); a model loaded on the host and moved
  // later takes its snapshot at the move (frameworks/torch/semantics.ts cast).
  const onAccelerator = deviceMapOnAccelerator(kw.get('device_map'));
  const before = it.memory.current || meta || !onAccelerator || !it.memory.reportedCount(1) ? undefined : liveAtStep(it, node);
  const rec = it.memory.current || meta ? undefined : it.memory.begin({ name: id, framework: resolved?.framework ?? 'transformers', span: it.span(node), phase: 'load', jitted: false, gc: false });
  if (rec && before?.tensors.length) noteLiveAtLoad(rec, before);
  const inst = it.newInst(hfClass(it, className));
  const load: HfLoad = {
    span: it.span(node), ...slot, ...(resolved?.library ? { library: resolved.library } : {}), torchName: it.nameFor('torch'), checkpoint: id, className,
    dtypeArg, dtype, dtypeWhy: why, checkpointDtype, transformersVersion: tv, keyword: dtypeKeyword(tv), deviceMap, quantized: quant,
    params: null, modelName: id, config, ...(unknownFields?.size ? { unknownFields } : {}), ...(fromConfig ? { fromConfig: true } : {}),
  };
  hfLoads(it).push(load);
  LOAD_OF.set(inst, load);
  const view = hfConfigView(load);
  if (resolved?.layout) load.layout = resolved.layout;
  else if (view && !resolved?.framework) { const l = readConfig(() => linearLayout(view, className, tv)); load.layout = l instanceof UnknownConfigField ? { why: l.message } : l; }
  // Sizes: the local checkpoint's safetensors headers (exact), else config.json arithmetic per model_type.
  const stored = weights && 'tensors' in weights && weights.tensors ? weights.tensors : undefined;
  let unknownRead: UnknownConfigField | undefined;
  let sizes: ModuleSize[] = stored ? groupTensors(stored) : resolved?.framework ? resolved.sizes ?? [] : view ? (() => { const r = readConfig(() => moduleSizes(view, className, true)); if (r instanceof UnknownConfigField) { unknownRead = r; return []; } return r; })() : [];
  let quantWhy: string | undefined;
  if (qSpec && 'why' in qSpec) quantWhy = qSpec.why;
  else if (qSpec && sizes.length) {
    const layout = load.layout;
    if (!layout || 'why' in layout) quantWhy = `${qSpec.how}: ${layout?.why ?? 'the architecture is not known'}, so which layers are quantised is not known`;
    else if (stored) quantWhy = `${qSpec.how}: quantising a checkpoint sized from its safetensors headers is not modelled`;
    else { sizes = quantizeSizes(sizes, layout, qSpec); load.quant = qSpec; }
  }
  load.sizedFrom = fromConfig ? `the config given to ${className} (model_type ${config?.model_type})` : stored ? `${weights && 'source' in weights ? weights.source : 'safetensors headers'} in ${dir}` : resolved?.source ? resolved.source : local && 'config' in local ? `${local.path} (model_type ${config?.model_type})` : entry ? entry.source : undefined;
  if (weights && 'unknown' in weights) it.note(`checkpoint files of "${id}": ${weights.unknown}`, node);
  if (resolved?.why && !stored) {
    it.note(`checkpoint "${id}": ${resolved.why}; its size is unknown`, node);
  } else if (!config && !stored) {
    it.note(`unknown checkpoint "${id}": not in oomlens's table, and neither a local folder nor the Hugging Face cache (${'HF_HUB_CACHE / HF_HOME / ~/.cache/huggingface/hub'}) holds its config.json or weights: its size is unknown`, node);
  } else if (unknownRead) {
    it.note(`${fromConfig ? `the config of ${className}` : `checkpoint "${id}"`}: ${unknownRead.message}, and the parameter formula needs it: the model's size is unknown`, node);
  } else if (!sizes.length) {
    const mt = String(config?.model_type ?? '?');
    const known = KNOWN_MODEL_TYPES.includes(mt);
    const headOnly = known && config && moduleSizes(config, 'AutoModel').length > 0;
    it.note(headOnly
      ? `checkpoint "${id}": the ${className} head of model_type "${mt}" is not listed by oomlens (the base model is): its size is unknown`
      : known
      ? `checkpoint "${id}": config.json (model_type "${mt}") lacks a field the parameter formula needs: its size is unknown`
      : `checkpoint "${id}": model_type "${mt}" has no parameter formula in oomlens${config?.auto_map ? ' (custom code, trust_remote_code)' : ''} and no local safetensors weights: its size is unknown`, node);
  } else if (!dtype && !stored) {
    it.note(`the dtype the weights load in is not known (${why})`, node);
  } else if (quantWhy) {
    it.note(`quantised loading: ${quantWhy}; its size is unknown`, node);
  } else {
    const loadDtype: DType = dtype ?? storedFloatDtype(stored!) ?? 'float32';
    if (!dtype) { load.dtype = loadDtype; load.dtypeWhy = `${why}; the checkpoint's safetensors store ${loadDtype}`; }
    const dtypeOf = (s: ModuleSize): DType => (s.keepDtype as DType | undefined) ?? loadDtype;
    const bytes = dtypeBytes(loadDtype);
    let places: Placement[] = sizes.map(() => ({ kind: 'device', index: 0 }) as Placement);
    const mode = deviceMap && /^(auto|balanced|balanced_low_0|sequential)$/.test(deviceMap) ? deviceMap as MapMode : undefined;
    if (mode && !meta) {
      // transformers ≥ 5 runs its own copy of accelerate's placement (integrations/accelerate.py); 4.x calls accelerate's.
      const variant = tv && Number(tv.split('.')[0]) < 5 ? 'accelerate' : 'transformers';
      const tree = treeFromSizes(sizes.map((s) => ({ name: s.name, bytes: s.params * (s.keepDtype ? dtypeBytes(dtypeOf(s)) : bytes) })));
      // bitsandbytes quantizers keep 10% of every cap free (quantizer_bnb_4bit.py / _8bit.py adjust_max_memory).
      const r = placeModules(it, tree, mode, kw.get('max_memory'), node, variant, `from_pretrained(device_map="${mode}")`, load.quant?.method.startsWith('bnb') ? 0.9 : undefined);
      if (r) places = sizes.map((s) => r.placementOf(s.name));
    } else if (deviceMap?.startsWith('cuda:')) {
      places = sizes.map(() => ({ kind: 'device', index: Number(deviceMap.split(':')[1]) || 0 }) as Placement);
    }
    if (meta) it.memory.abstractDepth++;
    let total = 0;
    const tensors = sizes.map((s, i) => {
      total += s.holds ?? s.params;
      const dt = dtypeOf(s);
      const group = s.holds !== undefined && load.quant ? `${s.name.replace(/\.\d+$/, '')} quantised (${load.quant.method})` : s.name.replace(/\.\d+$/, '') + ` (${dt})`;
      const citation = s.holds !== undefined && load.quant ? `${describeQuant(load.quant)} (frameworks/transformers/quantization.ts)` : stored ? `${load.sizedFrom}: dtype and shape of every tensor from the safetensors headers` : `transformers modeling code for model_type "${config?.model_type}" (see frameworks/transformers/catalog.ts, families.ts)`;
      const t = it.memory.alloc({ shape: [s.params], dtype: dt, role: 'param', name: s.name, span: it.span(node), placement: places[i], lib: 'torch', citation });
      t.group = group;
      t.standIn = true;
      const last = rec?.events[rec.events.length - 1];
      if (last?.op === 'alloc' && last.tensor.id === t.id) last.tensor.group = group;
      inst.attrs.set(s.name, t);
      return t;
    });
    if (meta) it.memory.abstractDepth--;
    load.params = total;
    // A Flax model's from_pretrained first builds the class, whose FlaxPreTrainedModel.__init__ initialises random
    // weights on the device (`self.init_weights(self.key, input_shape)`), then puts the checkpoint's weights there
    // (`jax.tree_util.tree_map(jnp.array, state)`) and only then replaces the random ones: two copies at once
    // (modeling_flax_utils.py; huggingface/transformers#15766). `_do_init=False` (4.18+) skips the random copy.
    const doInit = kw.get('_do_init');
    if (/^Flax/.test(className) && !(doInit?.t === 'bool' && !doInit.v) && !meta && total > 0) {
      it.memory.transient({
        op: 'transient', label: `${className}.from_pretrained: the random initial weights beside the loaded ones`, bytesPerDevice: total * 4, role: 'temporary',
        span: it.span(node), formula: `${total} parameters × 4 B (float32 init_weights)`,
        citation: 'transformers modeling_flax_utils.py FlaxPreTrainedModel.__init__ (init_weights) and from_pretrained (tree_map(jnp.array, state)); huggingface/transformers#15766',
      });
    }
    // Built in the program (Model(config), from_config) on a real device: the head's own weight is made in
    // __init__ (e.g. modeling_gpt2.py GPT2LMHeadModel: `self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)`)
    // and replaced by the tied embedding only in post_init() (modeling_utils.py tie_weights), after every
    // module exists: at that instant every parameter and the untied head weight are alive.
    if (fromConfig && !meta && !stored && !load.quant && view) {
      const untied = readConfig(() => moduleSizes({ ...view, tie_word_embeddings: false } as HfConfig, className));
      const extra = untied instanceof UnknownConfigField ? 0 : untied.reduce((a, m) => a + m.params, 0) - total;
      if (extra > 0) {
        it.memory.transient({
          op: 'transient', label: `${className}.__init__: the head's own weight before tie_weights()`, bytesPerDevice: extra * bytes, role: 'temporary',
          span: it.span(node), formula: `${extra} parameters × ${bytes} B (${loadDtype})`,
          citation: 'transformers modeling_utils.py PreTrainedModel.post_init → tie_weights (v5.23): the head is tied after construction',
        });
      }
    }
    if (rec) rec.params = tensors;
  }
  if (rec) {
    rec.result = inst;
    it.memory.end(rec);
  }
  return inst;
}

/**
 * Quantised sizes: each converted Linear weight leaves its module's parameters and comes back
 * as the bytes of its quantised form (a uint8 entry that holds in × out parameters); biases,
 * norms, embeddings and unconverted layers stay in the load dtype.
 */
function quantizeSizes(sizes: ModuleSize[], layout: ModelLayout, spec: QuantSpec): ModuleSize[] {
  const out = sizes.map((s) => ({ ...s }));
  const qBytes = new Map<string, { bytes: number; holds: number }>();
  for (const l of layout.linears) {
    if (!isQuantized(l, spec, layout.outputLayer)) continue;
    const m = out.find((s) => l.name === s.name || l.name.startsWith(`${s.name}.`));
    if (!m) continue;
    m.params -= l.in * l.out;
    const e = qBytes.get(m.name) ?? { bytes: 0, holds: 0 };
    e.bytes += quantizedWeightBytes(l, spec);
    e.holds += l.in * l.out;
    qBytes.set(m.name, e);
  }
  const res: ModuleSize[] = [];
  for (const s of out) {
    if (s.params > 0) res.push(s);
    const q = qBytes.get(s.name);
    if (q) res.push({ name: s.name, params: q.bytes, keepDtype: 'uint8', holds: q.holds });
  }
  return res;
}

const ST_DTYPES: Record<string, DType> = { F32: 'float32', F16: 'float16', BF16: 'bfloat16', F64: 'float64', I8: 'int8', U8: 'uint8', I32: 'int32', I64: 'int64', I16: 'int16', U32: 'uint32', U16: 'uint16', BOOL: 'bool' } as Record<string, DType>;
const isFloat = (d: string) => /^(F|BF)\d/.test(d);

/** The stored floating dtype of most parameters (what dtype="auto" loads). */
function storedFloatDtype(ts: StoredTensor[]): DType | undefined {
  const by = new Map<string, number>();
  for (const t of ts) if (isFloat(t.dtype)) by.set(t.dtype, (by.get(t.dtype) ?? 0) + t.shape.reduce((a, d) => a * d, 1));
  const top = [...by].sort((a, b) => b[1] - a[1])[0];
  return top ? ST_DTYPES[top[0]] : undefined;
}

/**
 * Tensors from safetensors headers grouped into load-order modules: a name with a
 * layer index (`model.layers.3.mlp.up_proj.weight`) goes to its layer
 * (`model.layers.3`), others to their module (`lm_head`). Floating tensors
 * load in the requested dtype; integer ones (quantized weights, packed
 * int4, quantisation scales stored as integers) keep theirs.
 */
function groupTensors(ts: StoredTensor[]): ModuleSize[] {
  const out = new Map<string, ModuleSize>();
  for (const t of ts) {
    const m = /^(.*?\.\d+)\./.exec(t.name);
    const mod = m ? m[1] : t.name.includes('.') ? t.name.slice(0, t.name.lastIndexOf('.')) : t.name;
    const keep = isFloat(t.dtype) ? undefined : ST_DTYPES[t.dtype] ?? (SAFETENSORS_DTYPE_BYTES[t.dtype] === 1 ? 'uint8' : undefined);
    const key = keep ? `${mod}|${keep}` : mod;
    const n = t.shape.reduce((a, d) => a * d, 1);
    const e = out.get(key);
    if (e) e.params += n;
    else out.set(key, { name: mod, params: n, ...(keep ? { keepDtype: keep } : {}) });
  }
  return [...out.values()];
}

/** The part views made of each loaded model: (root, dotted prefix) → the view, so a part is the same object each time. */
const PARTS = new WeakMap<InstV, { root: InstV; prefix: string }>();
const PART_CACHE = new WeakMap<InstV, Map<string, InstV>>();

/**
 * A part of a loaded transformers model (`model.model.layers[3]`, `model.lm_head`): a view holding the tensors the
 * load made under that dotted name (the load sizes each module as one tensor: `model.layers.0` is a decoder
 * layer's parameters). Moving, freezing or counting the part then acts on the model's own tensors
 * (`layer.to("cuda:1")`: torch/nn/modules/module.py Module.to). A part whose children are numbered is a
 * ModuleList (modeling_llama.py LlamaModel: `self.layers = nn.ModuleList([...])`). Names the load did not make
 * (a Linear inside a layer) are not views: they stay unknown.
 */
function hfPart(it: Interpreter, obj: InstV, name: string): InstV | undefined {
  const up = PARTS.get(obj);
  const root = up?.root ?? (hfLoadOf(obj) ? obj : undefined);
  if (!root || name.startsWith('__')) return undefined;
  const prefix = up ? `${up.prefix}.${name}` : name;
  let cache = PART_CACHE.get(root);
  const hit = cache?.get(prefix);
  if (hit) return hit;
  // A stand-in read at the top (`model.lm_head`) is the module view; a name no load made falls through.
  let own: Value | undefined;
  const children = new Set<string>();
  for (const [k, v] of root.attrs) {
    if (v.t !== 'tensor') continue;
    if (k === prefix) own = v;
    else if (k.startsWith(`${prefix}.`)) children.add(k.slice(prefix.length + 1).split('.')[0]);
  }
  if (!own && !children.size) return undefined;
  const numbered = children.size > 0 && [...children].every((k) => /^\d+$/.test(k));
  const view = it.newInst(containerClass(it, numbered ? 'ModuleList' : 'Module'));
  PARTS.set(view, { root, prefix });
  if (!cache) PART_CACHE.set(root, (cache = new Map()));
  cache.set(prefix, view);
  if (own) view.attrs.set('_parameters', own);
  if (numbered) {
    view.items = [...children].sort((a, b) => Number(a) - Number(b)).map((k) => hfPart(it, view, k) ?? NONE);
    view.items.forEach((m, k) => view.attrs.set(String(k), m));
  } else for (const k of children) view.attrs.set(k, hfPart(it, view, k) ?? NONE);
  return view;
}

const LOADED_CONFIGS = new WeakMap<InstV, Value>();
/**
 * `model.config` of a loaded model: the config the load used (config.json of the checkpoint, else the shipped
 * table), as AutoConfig.from_pretrained gives it (configuration_utils.py; modeling_utils.py PreTrainedModel keeps it
 * as `self.config`). One object per model, so the program's assignments (`model.config.use_cache = False`) stay.
 */
function loadedConfig(inst: InstV): Value | undefined {
  const hit = LOADED_CONFIGS.get(inst);
  if (hit) return hit;
  const load = hfLoadOf(inst);
  if (!load?.config) return undefined;
  const v = configValue(load.config);
  CONFIG_ID.set(v, load.checkpoint);
  LOADED_CONFIGS.set(inst, v);
  return v;
}

/**
 * A config as the program reads it: under its class's field names (the shipped table writes the common names,
 * hidden_size for GPT-2's n_embd), with the class's attribute_map so either name reads the field
 * (configuration_utils.py PretrainedConfig.__getattribute__ / __setattr__ through attribute_map).
 */
function configValue(cfg: HfConfig): Value {
  const map = typeof cfg.model_type === 'string' ? configClassOf(cfg.model_type)?.attributeMap : undefined;
  if (!map) return fromData(cfg, true);
  const named: Record<string, unknown> = { ...cfg };
  for (const [alias, field] of Object.entries(map)) {
    if (Object.hasOwn(named, alias) && !Object.hasOwn(named, field)) { named[field] = named[alias]; delete named[alias]; }
  }
  const v = fromData(named, true);
  if (v.t === 'dict') v.aliases = map;
  return v;
}

/** Whether a from_pretrained device_map puts weights on an accelerator: "auto", "cuda", an int, a dict with one. */
function deviceMapOnAccelerator(dm: Value | undefined): boolean {
  if (!dm || dm.t === 'none') return false;
  if (dm.t === 'str') return !/^(cpu|meta|disk)$/.test(dm.v);
  if (dm.t === 'int') return true;
  if (dm.t === 'dict') return dm.vals.some((v) => v.t === 'int' || (v.t === 'str' && !/^(cpu|meta|disk)$/.test(v.v)));
  return false;
}

/**
 * What the program's own `__init__` of a transformers model subclass does beyond the library's: undefined when no
 * class of the program defines one, 'adds' when it only calls `super().__init__(...)` / `self.post_init()` and sets
 * new attributes (`self.projector = nn.Linear(...)`), else the text of the first statement that may replace the
 * library's modules (a call given `self`, a loop, an assignment to a module the checkpoint has).
 */
function subclassInit(cls: ClassV, model: InstV): string | undefined {
  const inits = linearize(cls).filter((k) => k.node).map((k) => k.ns.get('__init__')).filter((f): f is Value & { t: 'func' } => f?.t === 'func');
  if (!inits.length) return undefined;
  const existing = new Set([...model.attrs.keys()].map((k) => k.split('.')[0]));
  for (const f of inits) {
    const body = f.node?.childForFieldName('body');
    for (const st of body?.namedChildren ?? []) {
      if (!st || st.type === 'comment' || st.type === 'pass_statement') continue;
      const e = st.type === 'expression_statement' ? st.namedChildren[0] : null;
      if (e?.type === 'string') continue;
      if (e?.type === 'call' && /^(super\([^)]*\)\.__init__|self\.(post_init|init_weights|tie_weights))$/.test(e.childForFieldName('function')?.text ?? '')) continue;
      const left = e?.type === 'assignment' ? e.childForFieldName('left') : null;
      if (left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self' && !existing.has(left.childForFieldName('attribute')?.text ?? '')) continue;
      const text = st.text.split('\n')[0];
      return text.length > 50 ? `${text.slice(0, 47)}…` : text;
    }
  }
  return 'adds';
}
