/**
 * diffusers `from_pretrained` of a model class: `UNet2DConditionModel.from_pretrained(id, subfolder="unet",
 * torch_dtype=…)`, `AutoencoderKL.from_pretrained(id, subfolder="vae")`. The config comes from the folder on
 * disk (a local folder or the Hugging Face cache, never the network), else from the shipped table of popular
 * checkpoints (catalog.ts); sizes from the config (catalog.ts formulas) or the safetensors headers on disk.
 *
 * The weights load in `torch_dtype` when given, else in the dtype the model is built in, torch's default
 * (diffusers 0.42.1 models/modeling_utils.py `from_pretrained`: the model is created by `cls.from_config`
 * under torch's default dtype unless torch_dtype is set; models/model_loading_utils.py
 * `load_model_dict_into_meta`: with no dtype, `param = param.to(old_param.dtype)`). Without a device_map the
 * model is on the CPU until `.to(device)` moves it, as for transformers.
 *
 * Model classes without a formula here, and pipelines, are reported with an unknown size (never dropped,
 * never zero).
 */
import type { DType } from '../../../../shared/src/facts';
import { linearize, type Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type InstV, type Value, NONE, describe, unknown } from '../../interp/values';
import { visitTensors } from '../../interp/memory';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointDir, readLocalSubfolder } from '../transformers/hf-cache';
import { moduleSizes, type HfConfig, type ModuleSize } from '../transformers/catalog';
import { hfLoadOf, loadResolved, type ResolvedCheckpoint } from '../transformers/semantics';
import { DIFFUSERS_CLASSES, diffusersSizes, lookupComponent, repoComponents, type DiffusersConfig } from './catalog';

/** diffusers classes that are not models: configs, schedulers, processors, utilities. */
const NOT_MODELS = /(Scheduler|Config|Processor|ImageProcessor|FeatureExtractor|Tokenizer|Output|Mixin)$/;
/** Model classes: ModelMixin subclasses are named like these (diffusers/models/__init__.py). */
const MODEL_CLASS = /^(UNet\w*Model|Autoencoder\w*|VQModel|\w*Transformer\w*Model|ControlNet\w*Model|\w*Adapter|PriorTransformer|ConsistencyDecoderVAE|AsymmetricAutoencoderKL)$/;
const PIPELINE = /(Pipeline|PipelineForText2Image|PipelineForImage2Image|PipelineForInpainting)$/;

/** The dtype a diffusers model is built in when no torch_dtype is given: torch's default (torch.set_default_dtype). */
function defaultDtype(it: Interpreter, why: (d: DType) => string): { dtype: DType; why: string } {
  const d = (it.state.get('torchDefaultDtype') as DType | undefined) ?? 'float32';
  return { dtype: d, why: why(d) };
}

export function installDiffusers(it: Interpreter): void {
  const prevAttr = it.externs.get('__getattr__');
  it.externs.set('__getattr__', (i, self, c, node, fnv) => {
    const name = c.args[0];
    const given = self?.t === 'inst' && name?.t === 'str' ? PASSED.get(self)?.get(name.v) : undefined;
    if (given) return given;
    // The program's subclass of a diffusers model class (`class UNet(UNet2DConditionModel)` overriding forward):
    // its class methods are the library class's, so `UNet.from_pretrained(...)` loads the library's model.
    if (self?.t === 'class' && name?.t === 'str' && (name.v === 'from_pretrained' || name.v === 'from_config')) {
      const base = linearize(self).flatMap((k) => k.bases).find((b) => b.t === 'extern' && b.name.startsWith('diffusers.'));
      if (base?.t === 'extern') return { t: 'extern', name: `${base.name}.${name.v}`, self };
    }
    return prevAttr ? prevAttr(i, self, c, node, fnv) : unknown('__pass__');
  });
  // pipeline_utils.py DiffusionPipeline.enable_model_cpu_offload / enable_sequential_cpu_offload: the components
  // stay on the CPU and move to the accelerator while they run (accelerate hooks).
  for (const m of ['enable_model_cpu_offload', 'enable_sequential_cpu_offload']) {
    it.externs.set(`torch.nn.Module.${m}`, (_i, self) => {
      if (self?.t === 'inst') it.state.set(`offload:${self.id}`, `${m}()`);
      return NONE;
    });
  }
  it.externPrefixes.push(['diffusers.', (_i, _self, c, node, fnv) => {
    const parts = fnv.name.split('.');
    const last = parts[parts.length - 1];
    const className = parts[parts.length - 2];
    if (last === 'from_unet' && className === 'ControlNetModel') return controlNetFromUnet(it, c.args, c.kw, node);
    if (last !== 'from_pretrained' || !className || NOT_MODELS.test(className)) return unknown('__pass__');
    if (PIPELINE.test(className) && (c.args[0] ?? c.kw.get('pretrained_model_name_or_path'))?.t === 'str') return loadPipeline(it, className, c.args, c.kw, node);
    if (PIPELINE.test(className)) {
      // A pipeline loads every component of the repository (model_index.json): not modelled yet, so the
      // models it holds are an unknown of the program rather than absent.
      // A model record of unknown size (reported with the reason), never a missing model or zero.
      const idV = c.args[0] ?? c.kw.get('pretrained_model_name_or_path');
      const name = `${className} (${idV?.t === 'str' ? idV.v : 'checkpoint not known'})`;
      const rec = it.memory.current || it.state.get('torchMeta') === true ? undefined : it.memory.begin({ name, framework: 'torch', span: it.span(node), phase: 'load', jitted: false, gc: false });
      it.note(`${className}.from_pretrained(${idV?.t === 'str' ? `"${idV.v}"` : '…'}): the models of a diffusers pipeline (UNet, VAE, text encoders …) are not sized by oomlens; load them one by one (UNet2DConditionModel.from_pretrained(…, subfolder="unet")) to have them sized`, node);
      const inst = it.newInst({ t: 'class', name: className, bases: [], ns: new Map(), kind: 'torch', dataclass: false, fields: [] });
      if (rec) { rec.result = inst; it.memory.end(rec); }
      return inst;
    }
    if (!MODEL_CLASS.test(className) && !Object.hasOwn(DIFFUSERS_CLASSES, className)) return unknown('__pass__');
    return loadModel(it, className, c.args, c.kw, node);
  }]);
}

/**
 * `XPipeline.from_pretrained(id, torch_dtype=…, <component>=…)` (pipelines/pipeline_utils.py DiffusionPipeline.
 * from_pretrained): every component model_index.json lists is loaded from its folder, except one the call passes
 * (`unet=my_unet` is used as given; `safety_checker=None` loads none), all in torch_dtype (else float32). The
 * components come from model_index.json on disk, else from the table (catalog.ts repoComponents); a component
 * without a formula, or a repository the table does not list completely, is an unknown part of the pipeline.
 * `enable_model_cpu_offload()` / `enable_sequential_cpu_offload()` keep it on the host (transformers/semantics.ts
 * hostOnlyReason).
 */
function loadPipeline(it: Interpreter, className: string, args: Value[], kw: Map<string, Value>, node: SyntaxNode): Value {
  const id = (args[0] ?? kw.get('pretrained_model_name_or_path')) as { t: 'str'; v: string };
  const dtype = defaultDtype(it, (d) => `no torch_dtype given: a diffusers pipeline loads every component in torch's default dtype (${d}; pipeline_utils.py from_pretrained → each component's from_pretrained)`);
  const baseDir = it.state.get('fileDir') as string | undefined;
  const unknowns: string[] = [];
  let parts: { name: string; className: string; config: DiffusersConfig; source: string }[] = [];
  const index = readModelIndex(id.v, baseDir);
  if (index && 'unknown' in index) unknowns.push(index.unknown);
  else if (index) {
    for (const [name, spec] of Object.entries(index.components)) {
      const local = readLocalSubfolder(id.v, name, process.env, baseDir);
      if (!local || 'unknown' in local) { unknowns.push(`component ${name} (${spec}): ${local ? local.unknown : 'its folder is not on disk'}`); continue; }
      parts.push({ name, className: spec, config: local.config, source: local.path });
    }
  } else {
    const repo = repoComponents(id.v);
    if (!repo) unknowns.push(`the components of "${id.v}" are not known (not in oomlens's table, and no model_index.json on disk)`);
    else {
      parts = repo.entries.map((e) => ({ name: e.subfolder, className: e.className, config: e.config, source: e.source }));
      if (!repo.complete && !kw.has('safety_checker')) unknowns.push(`whether "${id.v}" ships a safety checker (model_index.json) is not in oomlens's table`);
    }
  }
  // Components the call passes are not loaded by the pipeline: None loads nothing, a model is used as given.
  const passed = parts.filter((p) => kw.has(p.name)).map((p) => p.name);
  parts = parts.filter((p) => !kw.has(p.name));
  const sizes: ModuleSize[] = [];
  for (const p of parts) {
    const cfg = p.config;
    if (typeof cfg.model_type === 'string') {
      const m = moduleSizes(cfg as unknown as HfConfig, p.className);
      if (!m.length) { unknowns.push(`component ${p.name} (${p.className}): no parameter formula for model_type ${cfg.model_type}`); continue; }
      sizes.push(...m.map((x) => ({ ...x, name: `${p.name}.${x.name}` })));
    } else {
      const named = typeof cfg._class_name === 'string' ? cfg._class_name : p.className;
      const d = diffusersSizes(named, cfg);
      if ('why' in d) { unknowns.push(`component ${p.name}: ${d.why}`); continue; }
      sizes.push(...d.modules.map((x) => ({ ...x, name: `${p.name}.${x.name}` })));
    }
  }
  const resolved: ResolvedCheckpoint = {
    framework: 'torch', library: 'diffusers', source: parts.length ? `${className}: ${parts.map((p) => p.name).join(', ')} (${parts[0].source.replace(/ \S+\/config\.json$/, '')})` : undefined,
    ...(sizes.length ? { sizes, config: { model_type: `diffusers:${className}` } as unknown as HfConfig } : { why: unknowns[0] ?? 'no component of the pipeline is sized' }),
  };
  const model = loadResolved(it, className, args, kw, node, resolved, dtype);
  const rec = it.memory.reported().at(-1);
  if (rec && rec.result === model && sizes.length) for (const u of unknowns) rec.unknowns.push({ what: 'parameters', reason: `${className}.from_pretrained("${id.v}"): ${u}`, span: it.span(node) });
  if (model.t === 'inst' && sizes.length) splitComponents(it, model, parts, passed, kw);
  return model;
}

/** The components a pipeline loaded, by attribute name (`pipe.unet`), as loaded. */
const COMPONENTS = new WeakMap<InstV, Map<string, InstV>>();
/** The components the call passed in, by name. */
const PASSED = new WeakMap<InstV, Map<string, Value>>();

/**
 * A pipeline's components are modules of their own, attributes of the pipeline (pipeline_utils.py
 * DiffusionPipeline.register_modules: `setattr(self, name, module)`): `pipe.unet.parameters()` is the UNet's,
 * `pipe.vae.requires_grad_(False)` freezes the VAE's, `pipe.unet.to("cuda", dtype=torch.float16)` moves and casts
 * the UNet alone, and `pipe.safety_checker = None` lets the safety checker go. The pipeline stays one model in
 * the report; what of it reaches the accelerator is settled once the program has run (placeComponents).
 */
function splitComponents(it: Interpreter, pipe: InstV, parts: { name: string; className: string }[], passed: string[], kw: Map<string, Value>): void {
  const comps = new Map<string, InstV>();
  for (const p of parts) {
    const comp = it.newInst({ t: 'class', name: p.className, bases: [], ns: new Map(), kind: 'torch', dataclass: false, fields: [] });
    for (const [k, v] of [...pipe.attrs]) {
      if (!k.startsWith(`${p.name}.`)) continue;
      comp.attrs.set(k.slice(p.name.length + 1), v);
      pipe.attrs.delete(k);
    }
    pipe.attrs.set(p.name, comp);
    comps.set(p.name, comp);
  }
  // A component the call passes (`unet=unet`, `vae=None`) is the pipeline's attribute too, read through PASSED rather
  // than held in its attributes: a model the program built and handed over stays a model of its own, not a part.
  PASSED.set(pipe, new Map(passed.map((n) => [n, kw.get(n)!])));
  COMPONENTS.set(pipe, comps);
  const finish = (it.state.get('beforePhases') as (() => void)[] | undefined) ?? [];
  finish.push(() => placeComponents(it, pipe, comps));
  it.state.set('beforePhases', finish);
}

/**
 * Where each component of a pipeline is once the program has run: `pipe.to(device)` moves every component the
 * pipeline still holds (pipeline_utils.py DiffusionPipeline.to: each module in `self.components`); a component moved
 * by itself is on the accelerator; a component the program took out of the pipeline (`pipe.safety_checker = None`)
 * and does not move is never there. When the program moves components one by one and not the pipeline, the others
 * stay on the host. A pipeline neither moved nor with a moved component keeps the load phase's usual reading.
 */
function placeComponents(it: Interpreter, pipe: InstV, comps: Map<string, InstV>): void {
  const onDevice = (v: Value) => { const m = it.state.get(`moved:${v.t === 'inst' ? v.id : ''}`); return typeof m === 'string' && m !== 'cpu' && m !== 'meta'; };
  const pipeMoved = onDevice(pipe);
  const moved = [...comps.values()].filter(onDevice);
  if (!pipeMoved && !moved.length) return;
  for (const [name, comp] of comps) {
    const there = onDevice(comp) || (pipeMoved && pipe.attrs.get(name) === comp);
    // On the host for good (`offloaded:`, as accelerate's CPU placement): the phases do not take it for a module
    // built on the host and moved later.
    visitTensors(comp, (t) => {
      const p = t.placement as { kind: string; index?: number };
      if (there && p.kind === 'host') { p.kind = 'device'; p.index = 0; it.state.delete(`offloaded:${t.id}`); }
      else if (!there && p.kind === 'device') { p.kind = 'host'; delete p.index; it.state.set(`offloaded:${t.id}`, true); }
    });
  }
  if (!pipeMoved) it.state.set(`moved:${pipe.id}`, 'cuda');
}

/** A pipeline's components as loaded (undefined for anything else). */
export function pipelineComponents(v: Value | undefined): Map<string, InstV> | undefined {
  return v?.t === 'inst' ? COMPONENTS.get(v) : undefined;
}

/** model_index.json of a pipeline on disk: each component with a [library, class] pair (null pairs are absent components). */
function readModelIndex(id: string, baseDir: string | undefined): { components: Record<string, string> } | { unknown: string } | undefined {
  const dir = checkpointDir(id, process.env, baseDir);
  if (!dir) return undefined;
  const p = join(dir, 'model_index.json');
  if (!existsSync(p)) return undefined;
  try {
    const j = JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
    const components: Record<string, string> = {};
    for (const [k, v] of Object.entries(j)) {
      if (k.startsWith('_') || !Array.isArray(v) || v.length !== 2 || typeof v[1] !== 'string' || v[0] === null) continue;
      if (/Scheduler|Tokenizer|Processor|FeatureExtractor|Watermark/.test(v[1])) continue;
      components[k] = v[1];
    }
    return { components };
  } catch (e) {
    return { unknown: `${p} is not valid JSON: ${(e as Error).message}` };
  }
}

/**
 * `ControlNetModel.from_unet(unet, conditioning_embedding_out_channels=…, conditioning_channels=…)`
 * (models/controlnets/controlnet.py from_unet): a ControlNetModel built from the UNet's config, in torch's default
 * dtype (`cls(...)`), with the UNet's encoder weights copied in (load_state_dict keeps the ControlNet's dtype).
 */
function controlNetFromUnet(it: Interpreter, args: Value[], kw: Map<string, Value>, node: SyntaxNode): Value {
  const unet = args[0] ?? kw.get('unet');
  const load = hfLoadOf(unet);
  const dtype = defaultDtype(it, (d) => `ControlNetModel.from_unet builds the model in torch's default dtype (${d}; controlnet.py from_unet: cls(...))`);
  const name = `ControlNetModel.from_unet(${load ? load.checkpoint : '…'})`;
  const resolved: ResolvedCheckpoint = { framework: 'torch', library: 'diffusers' };
  const cfg = load?.config as unknown as DiffusersConfig | undefined;
  if (!load || !cfg || !String(cfg.model_type ?? '').startsWith('diffusers:UNet2DConditionModel')) resolved.why = `the UNet given to ControlNetModel.from_unet is not one oomlens sized (${unet ? describe(unet) : 'none given'})`;
  else {
    const extra: DiffusersConfig = {};
    for (const k of ['conditioning_embedding_out_channels', 'conditioning_channels']) {
      const v = kw.get(k);
      if (!v || v.t === 'none') continue;
      if (v.t === 'int') extra[k] = v.v;
      else if ((v.t === 'list' || v.t === 'tuple') && v.items.every((x) => x.t === 'int')) extra[k] = v.items.map((x) => (x as { v: number }).v);
      else resolved.why = `ControlNetModel.from_unet(${k}=…): the value is not known`;
    }
    if (!resolved.why) {
      const s = diffusersSizes('ControlNetModel', { ...cfg, ...extra });
      if ('why' in s) resolved.why = s.why;
      else { resolved.sizes = s.modules; resolved.layout = { linears: s.linears, others: [] }; resolved.config = { ...cfg, ...extra, model_type: 'diffusers:ControlNetModel' } as unknown as ResolvedCheckpoint['config']; resolved.source = `the config of ${load.checkpoint} (ControlNetModel.from_unet)`; }
    }
  }
  return loadResolved(it, 'ControlNetModel', [{ t: 'str', v: name }], new Map(), node, resolved, dtype);
}

function loadModel(it: Interpreter, className: string, args: Value[], kw: Map<string, Value>, node: SyntaxNode): Value {
  const idV = args[0] ?? kw.get('pretrained_model_name_or_path');
  const subV = kw.get('subfolder');
  const dtype = defaultDtype(it, (d) => `no torch_dtype given: diffusers builds the model in torch's default dtype (${d}) and loads the weights into it (diffusers 0.42 modeling_utils.py from_pretrained; model_loading_utils.py load_model_dict_into_meta)`);
  if (idV?.t !== 'str') return loadResolved(it, className, args, kw, node, { framework: 'torch', library: 'diffusers' }, dtype);
  if (subV && subV.t !== 'str' && subV.t !== 'none') {
    return it.note(`${className}.from_pretrained("${idV.v}", subfolder=…): the subfolder is not known (${describe(subV)}), so which model is loaded is not known`, node);
  }
  const sub = subV?.t === 'str' ? subV.v.trim().replace(/^\/+|\/+$/g, '') : '';
  const baseDir = it.state.get('fileDir') as string | undefined;
  const resolved: ResolvedCheckpoint = { framework: 'torch', library: 'diffusers', weightsStem: 'diffusion_pytorch_model', ...(sub ? { subfolder: sub } : {}) };
  const local = readLocalSubfolder(idV.v, sub || '.', process.env, baseDir);
  let config: DiffusersConfig | undefined;
  if (local && 'unknown' in local) resolved.why = local.unknown;
  else if (local) { config = local.config; resolved.source = local.path; resolved.dir = local.dir; }
  else {
    const entry = lookupComponent(idV.v, sub);
    if (entry && entry.className === className) { config = entry.config; resolved.source = entry.source; }
    else if (entry) resolved.why = `folder "${sub}" of this repository holds a ${entry.className}, not a ${className}`;
  }
  if (config) {
    // The class the config names, when it names one (config.json `_class_name`), must be the class called.
    const named = typeof config._class_name === 'string' ? config._class_name : undefined;
    const cls = named && Object.hasOwn(DIFFUSERS_CLASSES, named) ? named : className;
    const s = diffusersSizes(cls, config);
    if ('why' in s) resolved.why = s.why;
    else { resolved.sizes = s.modules; resolved.layout = { linears: s.linears, others: [] }; }
    resolved.config = { model_type: `diffusers:${cls}`, ...config } as unknown as ResolvedCheckpoint['config'];
  }
  return loadResolved(it, className, args, kw, node, resolved, dtype);
}
