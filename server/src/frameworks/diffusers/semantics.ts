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
import type { Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, describe, unknown } from '../../interp/values';
import { readLocalSubfolder } from '../transformers/hf-cache';
import { loadResolved, type ResolvedCheckpoint } from '../transformers/semantics';
import { DIFFUSERS_CLASSES, diffusersSizes, lookupComponent, type DiffusersConfig } from './catalog';

/** diffusers classes that are not models: configs, schedulers, processors, utilities. */
const NOT_MODELS = /(Scheduler|Config|Processor|ImageProcessor|FeatureExtractor|Tokenizer|Output|Mixin)$/;
/** Model classes: ModelMixin subclasses are named like these (diffusers/models/__init__.py). */
const MODEL_CLASS = /^(UNet\w*Model|Autoencoder\w*|VQModel|\w*Transformer\w*Model|ControlNet\w*Model|\w*Adapter|PriorTransformer|ConsistencyDecoderVAE|AsymmetricAutoencoderKL)$/;
const PIPELINE = /(Pipeline|PipelineForText2Image|PipelineForImage2Image|PipelineForInpainting)$/;

export function installDiffusers(it: Interpreter): void {
  it.externPrefixes.push(['diffusers.', (_i, _self, c, node, fnv) => {
    const parts = fnv.name.split('.');
    const last = parts[parts.length - 1];
    const className = parts[parts.length - 2];
    if (last !== 'from_pretrained' || !className || NOT_MODELS.test(className)) return unknown('__pass__');
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

function loadModel(it: Interpreter, className: string, args: Value[], kw: Map<string, Value>, node: SyntaxNode): Value {
  const idV = args[0] ?? kw.get('pretrained_model_name_or_path');
  const subV = kw.get('subfolder');
  const torchDefault = (it.state.get('torchDefaultDtype') as DType | undefined) ?? 'float32';
  const dtype = { dtype: torchDefault, why: `no torch_dtype given: diffusers builds the model in torch's default dtype (${torchDefault}) and loads the weights into it (diffusers 0.42 modeling_utils.py from_pretrained; model_loading_utils.py load_model_dict_into_meta)` };
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
