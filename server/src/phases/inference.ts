/**
 * The inference phase: what running a model costs on top of its weights.
 *
 * While the interpreter runs, this records how the program uses each model:
 * transformers `model.generate(...)` (batch, prompt length, max_new_tokens /
 * max_length, num_beams / num_return_sequences, cache implementation) and
 * forward calls `model(**inputs)`, with whether autograd was on. Tokenizer
 * calls give the input shape when it is fixed by the code (`padding=
 * "max_length", max_length=N, truncation=True`); otherwise the prompt length
 * stays unknown with the reason (it depends on the vocabulary).
 *
 * After the run, `inferencePhases` turns those uses into an 'inference'
 * PhaseTrace: the weights as loaded, the KV cache per layer on its layer's
 * device (shared/src/kvcache.ts, transformers cache_utils.py), and the
 * working memory of the largest forward step as a transient with its
 * formula. Hand-written caches registered as buffers (`cache_k`, `cache_v`,
 * as in Meta's Llama reference model.py) count in the phase labelled
 * kv-cache. It also finds evaluation loops that keep forward outputs with
 * autograd on (rule OOM302) by reading the loop's statements.
 */
import type { DType, MemoryEvent, PhaseTrace, Placement, Span, TensorFact, Unknown } from '../../../shared/src/facts';
import { activationBytes, trainingActivationBytes } from '../../../shared/src/activations';
import { archOf } from './training';
import { dtypeBytes } from '../../../shared/src/dtypes';
import { liveAtEnd } from '../../../shared/src/timeline';
import { KV_CITATION, forwardStepBytes, generateBatch, generateCacheTokens, kvCacheBytes, kvLayerTensorBytes } from '../../../shared/src/kvcache';
import { readLocalConfig } from '../frameworks/transformers/hf-cache';
import { lookupCheckpoint, type HfConfig } from '../frameworks/transformers/catalog';
import type { Interpreter } from '../interp/interp';
import { keywordSlot } from '../frameworks/args';
import { type ModelRecord, visitTensors } from '../interp/memory';
import type { SyntaxNode } from '../interp/parser';
import { nodesWithin, syntaxIndex } from '../interp/syntaxIndex';
import { type Value, NONE, describe, num, unknown } from '../interp/values';
import { hfConfigView, hfLoadOf, hfLoads, readConfig, UnknownConfigField } from '../frameworks/transformers/semantics';
import { heldHidden, pythonActivation } from '../frameworks/transformers/activations';

const PASS = unknown('__pass__');

export interface GenerateUse {
  kind: 'generate';
  span: Span;
  /** Prompts before beam / return-sequence expansion. */
  batch: number | null;
  promptTokens: number | null;
  maxNewTokens?: number;
  maxLength?: number;
  numBeams: number;
  numReturnSequences: number;
  cache: 'dynamic' | 'static' | 'offloaded' | 'quantized' | 'none';
  /**
   * A `StaticCache(config, max_batch_size / batch_size, max_cache_len)` object passed as past_key_values: its
   * length, and its batch when transformers allocates it at construction (before 4.56) rather than at the first
   * update with the batch generate runs (4.56+, huggingface/transformers#39797 "all caches are initialized lazily").
   */
  staticCache?: { len: number | null; batch: number | null; eager: boolean };
  unknowns: Unknown[];
  /** The interpreter's step count when the call ran: its order among the program's training calls. */
  at?: number;
  /** The `max_new_tokens=` value in the call, when it is written there. */
  maxNewTokensArg?: Span;
  /** Offset just before the call's closing parenthesis, and whether it has arguments. */
  insertAt: number;
  hasArgs: boolean;
  /** Filled when the phase is built: the cache at its largest. */
  sized?: { tokens: number; batch: number; bytes: number; perToken: number; layerPerToken: number; formula: string; lowerBound: boolean; layers: number };
  /** Filled when the prefill computes logits for every prompt position (OOM303). */
  prefillLogits?: {
    bytes: number; positions: number; batch: number; vocab: number; upcast: boolean; version?: string; logitsFamily: boolean;
    /** The prefill step's whole transient, and what it would be without the logits term. */
    transient: number; rest: number; bytesPerElement: number;
  };
}

export interface ForwardUse {
  kind: 'forward';
  span: Span;
  batch: number | null;
  tokens: number | null;
  gradEnabled: boolean;
  outputHiddenStates: boolean;
  useCache: boolean;
  unknowns: Unknown[];
  /** The interpreter's step count when the call ran: its order among the program's training calls. */
  at?: number;
  /** User-defined modules: the allocations the interpreter traced while the forward ran (Python liveness). */
  trace?: { events: MemoryEvent[]; unknowns: Unknown[]; jitted: boolean };
}

export type InferenceUse = GenerateUse | ForwardUse;

/** A loop that runs a model with autograd on and keeps what comes out (OOM302). */
export interface GradLoop {
  /** The forward call inside the loop. */
  call: Span;
  callee: string;
  loop: Span;
  /** Where the output is kept (`outs.append(...)`, `total += loss`). */
  keep: Span;
  keepText: string;
  /** Offset of the loop's first line start and its indentation (for the fix). */
  loopLineStart: number;
  indent: string;
  /** The loop's text from its line start to its end (re-indented by the fix). */
  loopText: string;
  /** Bytes autograd keeps per iteration, when the model and input shape are known. */
  perIteration?: { bytes: number; formula: string; citation: string };
  /** The model record the callee resolves to, if any. */
  model?: string;
  /** The module-level name torch is bound to (`import torch as th` → 'th'); undefined when no name holds it. */
  torchName?: string;
}

const USES = new WeakMap<ModelRecord, InferenceUse[]>();

/** A cache the model's own code preallocates (`self.cache_k = torch.zeros((max_batch_size, max_seq_len, ...))`). */
export interface HandCache {
  label: string; shape: number[]; bytes: number; span?: Span;
  /** The integer literal the leading (batch) dimension was written as, when it reached the creating call unchanged. */
  batchLit?: Span;
}
const HAND = new WeakMap<ModelRecord, HandCache[]>();
/** The hand-written, preallocated KV cache tensors of a model (set when its inference phase is built). */
export function handCaches(rec: ModelRecord): HandCache[] {
  return HAND.get(rec) ?? [];
}
const LOOPS = new WeakMap<ModelRecord, GradLoop[]>();

export function inferenceUses(rec: ModelRecord): InferenceUse[] {
  return USES.get(rec) ?? [];
}

/** The program's loops that keep forward outputs with autograd on (the same list for every model of one analysis). */
export function gradLoops(rec: ModelRecord): GradLoop[] {
  return LOOPS.get(rec) ?? [];
}

/** Records a use of the model; `at` is the interpreter's step count when the call ran (its order among the program's calls). */
function addUse(rec: ModelRecord, u: InferenceUse, at?: number): void {
  if (at !== undefined) u.at = at;
  let l = USES.get(rec);
  if (!l) USES.set(rec, (l = []));
  l.push(u);
}

function recordOf(it: Interpreter, v: Value | undefined): ModelRecord | undefined {
  if (!v || v.t !== 'inst') return undefined;
  return it.memory.lastFinishedWithResult(v);
}

/** A config value under any of its names (GPT-2 and T5 config.json use their own keys). */
function cfg(c: HfConfig, ...keys: string[]): number | undefined {
  for (const k of keys) if (typeof c[k] === 'number') return c[k] as number;
  return undefined;
}

export function hfConfig(checkpoint: string): HfConfig | undefined {
  const local = readLocalConfig(checkpoint);
  return (local && 'config' in local ? (local.config as HfConfig) : undefined) ?? lookupCheckpoint(checkpoint)?.config;
}

interface Arch {
  layers: number; hidden: number; heads: number; kvHeads: number; headDim: number; intermediate: number; vocab: number;
  gatedMlp: boolean; encoderDecoder: boolean;
}

const GATED = new Set(['llama', 'mistral', 'mixtral', 'qwen2', 'gemma', 'gemma2', 'phi3']);

function arch(c: HfConfig): Arch | undefined {
  // A field the program set to an unknown value (semantics.ts hfConfigView) leaves the architecture unknown.
  const r = readConfig(() => archOfConfig(c));
  return r instanceof UnknownConfigField ? undefined : r;
}

function archOfConfig(c: HfConfig): Arch | undefined {
  const layers = cfg(c, 'num_hidden_layers', 'n_layer', 'num_layers');
  const hidden = cfg(c, 'hidden_size', 'n_embd', 'd_model');
  const heads = cfg(c, 'num_attention_heads', 'n_head', 'num_heads');
  const vocab = cfg(c, 'vocab_size');
  if (!layers || !hidden || !heads || !vocab) return undefined;
  return {
    layers, hidden, heads, vocab,
    kvHeads: cfg(c, 'num_key_value_heads') ?? heads,
    headDim: cfg(c, 'head_dim', 'd_kv') ?? Math.floor(hidden / heads),
    intermediate: cfg(c, 'intermediate_size', 'n_inner', 'd_ff') ?? 4 * hidden,
    gatedMlp: GATED.has(String(c.model_type)),
    encoderDecoder: c.model_type === 't5' || c.is_encoder_decoder === true,
  };
}

function versionBelow(v: string | undefined, major: number, minor: number): boolean | undefined {
  if (!v) return undefined;
  const [a, b] = v.split('.').map((x) => Number(x));
  if (!Number.isFinite(a) || !Number.isFinite(b)) return undefined;
  return a < major || (a === major && b < minor);
}

// ------------------------------------------------------------- interpreter

export function installInference(it: Interpreter): void {
  const grad: boolean[] = [];
  const traced = new Set<string>();
  const tracedUses = new Map<string, ForwardUse>();
  const gradEnabled = (node: SyntaxNode) => !syntacticNoGrad(node) && (grad.length === 0 || grad[grad.length - 1]);

  // Grad-mode contexts carry whether they enable autograd (torch.ts answers them as plain contexts).
  const ctx = (enabled: boolean): Value => ({ t: 'extern', name: '__ctx__', args: [{ t: 'bool', v: enabled }] });
  it.externs.set('torch.no_grad', () => ctx(false));
  it.externs.set('torch.inference_mode', (_i, _s, c) => ctx(c.args[0]?.t === 'bool' ? !c.args[0].v : false));
  it.externs.set('torch.enable_grad', () => ctx(true));
  it.externs.set('torch.set_grad_enabled', (_i, _s, c) => ctx(c.args[0]?.t === 'bool' ? c.args[0].v : true));
  const prevEnter = it.externs.get('__enter__');
  const prevExit = it.externs.get('__exit__');
  const isGradCtx = (v: Value | undefined): v is Value & { t: 'extern' } => v?.t === 'extern' && v.name === '__ctx__' && v.args?.[0]?.t === 'bool';
  it.externs.set('__enter__', (i, self, c, node, f) => {
    if (isGradCtx(self)) grad.push((self.args![0] as { v: boolean }).v);
    return prevEnter ? prevEnter(i, self, c, node, f) : self ?? NONE;
  });
  it.externs.set('__exit__', (i, self, c, node, f) => {
    if (isGradCtx(self)) grad.pop();
    return prevExit ? prevExit(i, self, c, node, f) : NONE;
  });

  // Tokenizers: `tok(texts, return_tensors="pt", ...)` gives input_ids [batch, seq].
  it.externPrefixes.push(['transformers.', (_i, _self, c, node, fnv) => {
    if (fnv.name === 'transformers.GenerationConfig') return { t: 'extern', name: 'transformers.GenerationConfig', kw: c.kw };
    const m = /^transformers\.(\w+)\(instance\)(?:\.(\w+))?$/.exec(fnv.name);
    if (!m || !/(Tokenizer|TokenizerFast|Processor)$/.test(m[1])) return PASS;
    if (m[2] && !['__call__', 'encode_plus', 'batch_encode_plus'].includes(m[2])) return PASS;
    return tokenize(it, c.args[0] ?? c.kw.get('text') ?? NONE, c.kw, node);
  }]);
  // BatchEncoding.to(device) returns the same mapping.
  it.externs.set('builtins.dict.to', (_i, self) => self ?? NONE);

  // transformers.StaticCache(config=..., max_batch_size= / batch_size=, max_cache_len=, device=, dtype=): a value generate reads.
  for (const n of ['transformers.StaticCache', 'transformers.cache_utils.StaticCache']) {
    it.externs.set(n, (_i, _s, c) => {
      const kw = new Map(c.kw);
      // 4.4x positional order (cache_utils.py StaticCache.__init__): config, batch_size, max_cache_len, device, dtype.
      if (!kw.has('batch_size') && !kw.has('max_batch_size') && c.args[1]) kw.set('batch_size', c.args[1]);
      if (!kw.has('max_cache_len') && c.args[2]) kw.set('max_cache_len', c.args[2]);
      return { t: 'extern', name: 'transformers.StaticCache', kw };
    });
  }

  // generate() on a transformers model.
  for (const base of ['torch.nn.Module', 'transformers.PreTrainedModel']) {
    it.externs.set(`${base}.generate`, (_i, self, c, node) => generate(it, self, c.args, c.kw, node));
  }

  // Forward calls of models that have a record: transformers models are answered here, torch modules run their forward.
  const prevCall = it.externs.get('__call_inst__');
  it.externs.set('__call_inst__', (i, self, c, node, f) => {
    // A forward followed by .backward() in the same loop or function is a training step (the training phase's).
    if (inTrainingStep(node) || inTrainingCall(it)) return prevCall ? prevCall(i, self, c, node, f) : unknown('module call', it.span(node));
    const rec = recordOf(it, self);
    if (rec?.framework === 'transformers') return hfForward(it, rec, c.args, c.kw, node, gradEnabled(node));
    // A diffusers pipeline run: `__call__` is decorated with @torch.no_grad() (diffusers 0.42
    // pipelines/stable_diffusion/pipeline_stable_diffusion.py and every pipeline), and its denoising loop (UNet
    // activations, latents, the VAE decode) is not modelled: the weights are counted, the working memory is unknown.
    const load = hfLoadOf(self);
    if (rec && load?.library === 'diffusers' && /Pipeline/.test(load.className)) {
      addUse(rec, {
        kind: 'forward', span: it.span(node), batch: null, tokens: null, gradEnabled: false, outputHiddenStates: false, useCache: false,
        unknowns: [{ what: 'inference activations', reason: `${load.className}.__call__ (under torch.no_grad()): the working memory of its denoising loop (UNet activations, latents, the VAE decode) is not modelled`, span: it.span(node) }],
      }, it.steps);
      return unknown(`the output of ${load.className}(...) is not modelled`, it.span(node));
    }
    const run = () => (prevCall ? prevCall(i, self, c, node, f) : unknown('module call', it.span(node)));
    // One traced forward per call site: a loop calls the same forward at the same shapes, and tracing
    // (a liveness pass at every allocation) is far dearer than running it.
    const site = `${node.startIndex}:${node.endIndex}`;
    const eager = rec && (rec.framework === 'torch' || rec.framework === 'equinox' || (self?.t === 'inst' && self.cls.kind === 'nnx'));
    if (rec && eager) it.memory.abortPlainInit();
    // The same call site again (a loop, a function called twice): its use is the one traced first, now run later too.
    const again = rec && eager ? tracedUses.get(`${site}@${rec.span.start}`) : undefined;
    if (again && !it.memory.current) again.at = it.steps;
    if (rec && eager && !it.memory.current && !traced.has(site)) {
      traced.add(site);
      // Trace the forward's allocations in a record of its own (not a model: taken out of `finished`).
      const x = c.args[0];
      const shape = x?.t === 'tensor' ? x.shape : undefined;
      const jitted = it.memory.jitDepth > 0;
      const { value: out, rec: tmp } = it.memory.aside({ name: `${rec.name} forward`, framework: rec.framework, span: it.span(node), phase: 'inference', jitted, gc: true }, (t0) => {
        // The inputs live on the device during the call (made before it, outside any model record).
        const seenIn = new Set<number>();
        for (const a of [...c.args, ...c.kw.values()]) visitTensors(a, (t) => {
          if (seenIn.has(t.id) || t.role === 'param' || t.role === 'buffer' || t.abstract || t.virtual || !t.shape.every((d) => typeof d === 'number')) return;
          seenIn.add(t.id);
          t0.events.push({ op: 'alloc', tensor: {
            id: t.id, label: t.label, group: `forward input (${t.dtype})`, shape: t.shape as number[], dtype: t.dtype, role: 'input',
            placement: t.placement.kind === 'host' ? { kind: 'device', index: 0 } : t.placement, span: t.span,
          } });
        });
        return run();
      });
      // An input the analysis does not know (a batch from a loader of unknown items): what the forward makes from
      // it is not traced, so the phase cannot be a number (it was the weights alone, "fits").
      const unknownIn = [...c.args, ...c.kw.values()].find((a) => a.t === 'unknown' || (a.t === 'tensor' && !a.abstract && !a.shape.every((d) => typeof d === 'number')));
      const inUnknowns: Unknown[] = unknownIn ? [{
        what: 'forward activations',
        reason: `the input of ${rec.name}'s forward is not known (${unknownIn.t === 'unknown' ? unknownIn.reason : 'a dimension of it is not known'}): what the forward makes is not sized`,
        span: it.span(node),
      }] : [];
      const use: ForwardUse = {
        kind: 'forward', span: it.span(node), batch: typeof shape?.[0] === 'number' ? shape[0] : null,
        tokens: typeof shape?.[1] === 'number' && shape.length <= 3 ? shape[1] : null, gradEnabled: rec.framework === 'torch' && gradEnabled(node), outputHiddenStates: false, useCache: false, unknowns: inUnknowns,
        trace: { events: tmp.events, unknowns: tmp.unknowns, jitted },
      };
      tracedUses.set(`${site}@${rec.span.start}`, use);
      addUse(rec, use, it.steps);
      return out;
    }
    return run();
  });
  // Flax / Haiku forwards: `model.apply(params, x)` on the parameters an init produced. The forward itself is not
  // traced (its layers would re-create parameters); the phase holds the weights and says the activations are unknown.
  for (const name of ['flax.linen.Module.apply', 'haiku.Transformed.apply']) {
    const prev = it.externs.get(name);
    it.externs.set(name, (i, self, c, node, f) => {
      const params = c.args[0] ?? c.kw.get('variables') ?? c.kw.get('params');
      const rec = it.memory.finished.find((r) => r.result !== undefined && (r.result === params || (r.result.t === 'tuple' && r.result.items.includes(params!))));
      if (rec) {
        const x = c.args[name.startsWith('haiku') ? 2 : 1];
        addUse(rec, {
          kind: 'forward', span: it.span(node), batch: x?.t === 'tensor' && typeof x.shape[0] === 'number' ? x.shape[0] : null, tokens: null,
          gradEnabled: false, outputHiddenStates: false, useCache: false,
          unknowns: [{ what: 'forward activations', reason: `${name.startsWith('haiku') ? 'haiku' : 'flax'} apply: the forward's working memory is not traced yet (the weights are counted)`, span: it.span(node) }],
        }, it.steps);
      }
      return prev ? prev(i, self, c, node, f) : unknown(`${name} is not modelled`, it.span(node));
    });
  }
  void describe;
}

function tokenize(it: Interpreter, text: Value, kw: Map<string, Value>, node: SyntaxNode): Value {
  const rt = kw.get('return_tensors');
  if (rt?.t !== 'str' || rt.v !== 'pt') return unknown('tokenizer output without return_tensors="pt" (Python lists) is not modelled', it.span(node));
  const batch = text.t === 'str' ? 1 : text.t === 'list' || text.t === 'tuple' ? text.items.length : undefined;
  const padding = kw.get('padding');
  const maxLen = kw.get('max_length');
  const trunc = kw.get('truncation');
  const truncates = trunc !== undefined && ((trunc.t === 'bool' && trunc.v) || (trunc.t === 'str' && trunc.v !== 'do_not_truncate'));
  let seq: number | { unknown: string };
  if (padding?.t === 'str' && padding.v === 'max_length' && maxLen?.t === 'int' && truncates) seq = maxLen.v;
  else if (padding?.t === 'str' && padding.v === 'max_length' && maxLen?.t === 'int') seq = { unknown: `padded to max_length=${maxLen.v} but not truncated: longer texts keep their own length` };
  else seq = { unknown: 'the prompt length in tokens depends on the tokenizer\'s vocabulary (pad and truncate to a fixed max_length to make it known)' };
  const b = batch ?? { unknown: 'the number of texts passed to the tokenizer is not known' };
  const mk = (name: string) => it.memory.alloc({ shape: [b, seq], dtype: 'int64', role: 'input', name, span: it.span(node), placement: { kind: 'host' }, lib: 'torch' });
  return { t: 'dict', keys: [{ t: 'str', v: 'input_ids' }, { t: 'str', v: 'attention_mask' }], vals: [mk('input_ids'), mk('attention_mask')] };
}

/** The input tensor of a generate / forward call: positional, input_ids=, inputs=, or from **batch. */
function inputTensor(it: Interpreter, args: Value[], kw: Map<string, Value>, node: SyntaxNode, kind: 'generate' | 'forward'): { batch: number | null; tokens: number | null; unknowns: Unknown[] } {
  const v = args[0] ?? kw.get('input_ids') ?? kw.get('inputs') ?? kw.get('inputs_embeds');
  const unknowns: Unknown[] = [];
  if (!v || v.t !== 'tensor') {
    const why = v?.t === 'unknown' ? v.reason : kw.get('**')?.t === 'unknown' ? (kw.get('**') as { reason: string }).reason : v ? `the input is ${describe(v)}` : 'no input_ids given';
    unknowns.push({ what: 'input shape', reason: why, span: it.span(node) });
    return { batch: null, tokens: null, unknowns };
  }
  const d = (i: number, what: string): number | null => {
    const x = v.shape[i];
    if (typeof x === 'number') return x;
    unknowns.push({ what, reason: x ? x.unknown : 'the input has fewer than 2 dimensions', span: it.span(node) });
    return null;
  };
  return { batch: d(0, 'batch size'), tokens: d(1, kind === 'generate' ? 'prompt length' : 'sequence length'), unknowns };
}

function intArg(it: Interpreter, kw: Map<string, Value>, name: string, node: SyntaxNode, unknowns: Unknown[]): number | undefined {
  const v = kw.get(name);
  if (v === undefined || v.t === 'none') return undefined;
  const n = num(v);
  if (n === undefined || !Number.isInteger(n)) { unknowns.push({ what: name, reason: `${name} is not a known integer (${describe(v)})`, span: it.span(node) }); return undefined; }
  return n;
}

function generate(it: Interpreter, self: Value | undefined, args: Value[], kw0: Map<string, Value>, node: SyntaxNode): Value {
  const rec = recordOf(it, self);
  const gc = kw0.get('generation_config');
  const kw = new Map<string, Value>([...(gc?.t === 'extern' && gc.kw ? gc.kw : []), ...kw0]);
  const inp = inputTensor(it, args, kw, node, 'generate');
  const unknowns = [...inp.unknowns];
  const maxNewTokens = intArg(it, kw, 'max_new_tokens', node, unknowns);
  const maxLength = intArg(it, kw, 'max_length', node, unknowns);
  if (maxNewTokens === undefined && maxLength === undefined && !unknowns.some((u) => u.what === 'max_new_tokens' || u.what === 'max_length')) {
    unknowns.push({ what: 'generated length', reason: 'neither max_new_tokens nor max_length is given: the checkpoint\'s generation_config.json decides (GenerationConfig defaults to max_length=20)', span: it.span(node) });
  }
  const impl = kw.get('cache_implementation');
  const useCache = kw.get('use_cache');
  const cache: GenerateUse['cache'] = useCache?.t === 'bool' && !useCache.v ? 'none'
    : impl?.t === 'str' && (impl.v === 'static' || impl.v === 'offloaded' || impl.v === 'quantized') ? impl.v : 'dynamic';
  if (impl?.t === 'str' && !['static', 'dynamic', 'offloaded', 'quantized'].includes(impl.v)) unknowns.push({ what: 'cache_implementation', reason: `cache_implementation="${impl.v}" is not modelled; sized as a dynamic cache`, span: it.span(node) });
  let staticCache: GenerateUse['staticCache'];
  const pkv = kw.get('past_key_values');
  if (pkv?.t === 'extern' && pkv.name === 'transformers.StaticCache') {
    const len = num(pkv.kw?.get('max_cache_len') ?? NONE);
    const bV = pkv.kw?.get('max_batch_size') ?? pkv.kw?.get('batch_size');
    const b = bV ? num(bV) : undefined;
    const tv = ((it.state.get('versions') as Record<string, string> | undefined) ?? {}).transformers;
    const below = versionBelow(tv, 4, 56);
    if (len === undefined) unknowns.push({ what: 'cache length', reason: 'StaticCache(max_cache_len=...) is not a known integer', span: it.span(node) });
    if (below === undefined) unknowns.push({ what: 'StaticCache', reason: 'transformers is not pinned: before 4.56 a StaticCache is allocated at construction for its batch_size, from 4.56 at the first update for the batch generate runs', span: it.span(node) });
    else if (below && b === undefined) unknowns.push({ what: 'StaticCache batch', reason: 'StaticCache(max_batch_size / batch_size=...) is not a known integer', span: it.span(node) });
    staticCache = { len: len ?? null, batch: b ?? null, eager: below === true };
  }
  const argList = node.childForFieldName('arguments');
  const mnt = argList?.namedChildren.find((a) => a?.type === 'keyword_argument' && a.childForFieldName('name')?.text === 'max_new_tokens')?.childForFieldName('value');
  const use: GenerateUse = {
    kind: 'generate', span: it.span(node), batch: inp.batch, promptTokens: inp.tokens, maxNewTokens, maxLength,
    numBeams: intArg(it, kw, 'num_beams', node, unknowns) ?? 1, numReturnSequences: intArg(it, kw, 'num_return_sequences', node, unknowns) ?? 1,
    cache: staticCache ? 'static' : cache, staticCache, unknowns, maxNewTokensArg: mnt && mnt.type === 'integer' ? it.span(mnt) : undefined,
    ...keywordSlot(node),
  };
  if (rec) addUse(rec, use, it.steps);
  const total = maxNewTokens !== undefined && inp.tokens !== null ? inp.tokens + maxNewTokens : maxNewTokens === undefined ? maxLength : undefined;
  return it.memory.alloc({
    shape: [inp.batch === null ? { unknown: 'batch size' } : inp.batch * use.numReturnSequences, total ?? { unknown: 'generated length' }],
    dtype: 'int64', role: 'activation', name: 'sequences', span: it.span(node), lib: 'torch',
  });
}

function hfForward(it: Interpreter, rec: ModelRecord, args: Value[], kw: Map<string, Value>, node: SyntaxNode, gradEnabled: boolean): Value {
  const inp = inputTensor(it, args, kw, node, 'forward');
  const ohs = kw.get('output_hidden_states');
  const uc = kw.get('use_cache');
  const use: ForwardUse = {
    kind: 'forward', span: it.span(node), batch: inp.batch, tokens: inp.tokens, gradEnabled,
    outputHiddenStates: ohs?.t === 'bool' && ohs.v, useCache: !(uc?.t === 'bool' && !uc.v), unknowns: inp.unknowns,
  };
  addUse(rec, use, it.steps);
  const load = hfLoads(it).find((l) => l.span.start === rec.span.start && l.span.end === rec.span.end);
  const c = load ? (hfConfigView(load) ?? hfConfig(load.checkpoint)) : undefined;
  const a = c ? arch(c) : undefined;
  const dtype = rec.params?.[0]?.dtype ?? 'float32';
  const b: number | { unknown: string } = inp.batch ?? { unknown: 'batch size' };
  const s: number | { unknown: string } = inp.tokens ?? { unknown: 'sequence length' };
  const cls = { t: 'class' as const, name: 'CausalLMOutputWithPast', bases: [], ns: new Map(), kind: 'plain' as const, dataclass: false, fields: [] };
  const outInst = it.newInst(cls);
  const mk = (name: string, shape: (number | { unknown: string })[]) => it.memory.alloc({ shape, dtype, role: 'activation', name, span: it.span(node), lib: 'torch' });
  if (a) {
    outInst.attrs.set('logits', mk('logits', [b, s, a.vocab]));
    outInst.attrs.set('last_hidden_state', mk('last_hidden_state', [b, s, a.hidden]));
    if (use.outputHiddenStates) outInst.attrs.set('hidden_states', { t: 'tuple', items: Array.from({ length: a.layers + 1 }, (_, i) => mk(`hidden_states.${i}`, [b, s, a.hidden])) });
  } else {
    outInst.attrs.set('logits', unknown('the model\'s configuration is not known', it.span(node)));
  }
  // With labels the model computes its own loss, a float32 scalar (loss/loss_utils.py ForCausalLMLoss upcasts the
  // logits, v5.23; modeling_outputs.py CausalLMOutputWithPast.loss): the training step is then `outputs.loss.backward()`.
  const labels = kw.get('labels');
  if (labels && labels.t !== 'none') {
    const logits = outInst.attrs.get('logits');
    outInst.attrs.set('loss', it.memory.alloc({ shape: [], dtype: 'float32', role: 'activation', name: 'loss', span: it.span(node), lib: 'torch', ...(logits?.t === 'tensor' ? { from: [logits] } : {}) }));
  }
  outInst.attrs.set('past_key_values', { t: 'extern', name: 'transformers.DynamicCache' });
  return outInst;
}

// -------------------------------------------------------------- phase build

/** A label naming a cache: one of its dotted segments is `cache_k`, `k_cache`, `kv_cache`, `key_cache`... */
export function isKvName(label: string): boolean {
  return label.split('.').some((seg) => /^(cache_[kv]|[kv]_cache|kv_cache|cache_(keys?|values?)|keys?_cache|values?_cache|past_(keys|values))$/i.test(seg));
}

/**
 * The inference phase of one model, when the program runs it: weights (and
 * buffers, hand-written KV caches relabelled), then for each generate /
 * forward call the cache it builds and its largest step. Empty when the
 * model is never run.
 */
export function inferencePhases(rec: ModelRecord, it: Interpreter, phases: PhaseTrace[]): PhaseTrace[] {
  let loops = it.state.get('gradLoops') as GradLoop[] | undefined;
  if (!loops) it.state.set('gradLoops', (loops = findGradLoops(it)));
  LOOPS.set(rec, loops);
  // A call inside a loop is seen once per iteration: one use per call site and shape is enough for a peak.
  const uses: InferenceUse[] = [];
  const kept = new Map<string, InferenceUse>();
  for (const u of inferenceUses(rec)) {
    const key = JSON.stringify({ ...u, sized: undefined, trace: undefined, at: undefined });
    const k = kept.get(key);
    if (!k) { kept.set(key, u); uses.push(u); } else if (u.at !== undefined && (k.at === undefined || u.at > k.at)) k.at = u.at;
  }
  if (!uses.length && rec.framework === 'torch') for (const u of syntacticForwards(it, rec)) { uses.push(u); addUse(rec, u); }
  if (!uses.length) return [];
  const base = phases.find((p) => p.phase === 'load' || p.phase === 'init');
  if (!base) return [];
  let nextId = 1_000_000_000;
  const events: MemoryEvent[] = [];
  const notes: string[] = [];
  const unknowns: Unknown[] = [...base.unknowns];
  const weights = liveAtEnd(base);
  let handKv = 0;
  const batchLits = new Map<number, Span>();
  for (const t of weights) {
    if (t.role === 'buffer' && isKvName(t.label)) {
      handKv++;
      events.push({ op: 'alloc', tensor: { ...t, role: 'kv-cache', group: `KV cache buffers (${t.dtype})`, note: 'preallocated cache buffer: its full size is held from construction', citation: KV_CITATION } });
    } else {
      if (t.role === 'kv-cache') handKv++; // a plain cache attribute, already in the load phase (analyze.ts)
      events.push({ op: 'alloc', tensor: t });
    }
  }
  // Plain tensor attributes named like a cache (`self.cache_k = torch.zeros(...).cuda()` in Meta's Llama
  // model.py) are neither parameters nor buffers, but they hold memory for as long as the model lives.
  if (rec.framework === 'torch' && rec.result) {
    const seen = new Set(weights.map((t) => t.id));
    visitTensors(rec.result, (t) => {
      if (t.dimLits?.[0]) batchLits.set(t.id, t.dimLits[0]);
      if (seen.has(t.id) || t.role === 'param' || t.role === 'buffer' || !isKvName(t.label)) return;
      if (!t.shape.every((d) => typeof d === 'number')) { unknowns.push({ what: `size of ${t.label}`, reason: 'a dimension of the cache is unknown', span: t.span }); return; }
      seen.add(t.id);
      handKv++;
      events.push({ op: 'alloc', tensor: {
        id: t.id, label: t.label, group: `KV cache tensors (${t.dtype})`, shape: t.shape as number[], dtype: t.dtype, role: 'kv-cache',
        placement: t.placement.kind === 'host' ? { kind: 'device', index: 0 } : t.placement, span: t.span,
        note: 'preallocated cache tensor: its full size is held from construction', citation: KV_CITATION,
      } });
    });
  }
  if (handKv) notes.push(`${handKv} hand-written KV cache tensor(s) are preallocated at their full size`);
  HAND.set(rec, events.flatMap((ev) => (ev.op === 'alloc' && ev.tensor.role === 'kv-cache'
    ? [{ label: ev.tensor.label, shape: ev.tensor.shape, bytes: ev.tensor.shape.reduce((a, d) => a * d, 1) * dtypeBytes(ev.tensor.dtype), span: ev.tensor.span, batchLit: batchLits.get(ev.tensor.id) }] : [])));

  const load = hfLoads(it).find((l) => l.span.start === rec.span.start && l.span.end === rec.span.end);
  const config = load ? (hfConfigView(load) ?? hfConfig(load.checkpoint)) : undefined;
  const a = config ? arch(config) : undefined;
  const dtype: DType = rec.params?.[0]?.dtype ?? load?.dtype ?? 'float32';
  const e = dtypeBytes(dtype);
  const tv = load?.transformersVersion;
  // Layer → device from the weights (device_map splits whole layers; the cache of a layer lives with it).
  const layerPlace = new Map<number, Placement>();
  for (const t of weights) {
    const m = /(?:^|\.)(?:layers|h|layer|block)\.(\d+)$/.exec(t.label);
    if (m) layerPlace.set(Number(m[1]), t.placement);
  }
  // Attention: transformers uses SDPA by default "for torch>=2.1.1 when an implementation is available" (model docs,
  // from 4.36); before, or with attn_implementation="eager", the [heads, s, kv] scores are materialised.
  const versions = (it.state.get('versions') as Record<string, string> | undefined) ?? {};
  const tt = versions.torch?.split('.').map((x) => Number(x));
  const oldTorch = !!tt && tt.length >= 2 && tt.every((x) => Number.isFinite(x)) && (tt[0] < 2 || (tt[0] === 2 && (tt[1] < 1 || (tt[1] === 1 && (tt[2] ?? 0) < 1))));
  const askedEager = !!load && /attn_implementation\s*=\s*["']eager["']/.test(it.text.slice(load.span.start, load.span.end));
  const eager = versionBelow(tv, 4, 36) === true || oldTorch || askedEager;
  const fullLogits = versionBelow(tv, 4, 45) === true;
  // generate() asks for the last position's logits only (logits_to_keep=1) from transformers 4.45
  // (huggingface/transformers#31292) in the Llama-family models; before, and in models without the
  // argument (GPT-2, BERT-style), the prefill computes logits for every prompt position.
  // From 5.0 every causal LM of the families oomlens sizes takes `logits_to_keep` (generation/utils.py
  // `_supports_logits_to_keep`, v5.23; checked for each family in test/analysis/hf-generate-from-config.test.ts);
  // an unpinned version is a current release.
  const pyA = config && a ? readConfig(() => pythonActivation(config as Record<string, unknown>, a.hidden)) : undefined;
  const pyAct = pyA instanceof UnknownConfigField ? undefined : pyA;
  if (pyAct) notes.push(`${pyAct.name}: the MLP activation is written in Python, its intermediates are separate tensors (${pyAct.citation})`);
  const keepsLast = !fullLogits && (a?.gatedMlp === true || versionBelow(tv, 5, 0) !== true);
  // Llama-family forwards before 4.45 upcast all logits (`logits = logits.float()`): float32 on top.
  const upcast = a?.gatedMlp === true && fullLogits;

  for (const u of uses) {
    unknowns.push(...u.unknowns);
    if (u.kind === 'forward' && (rec.framework === 'torch' || rec.framework === 'equinox' || rec.framework === 'flax' || rec.framework === 'haiku' || rec.framework === 'jax')) {
      const line = it.text.slice(0, u.span.start).split('\n').length;
      if (!u.trace) {
        if (!u.unknowns.length) unknowns.push({ what: 'forward activations', reason: `the working memory of ${rec.name}'s forward (line ${line}) is not estimated for user-defined modules yet`, span: u.span });
        continue;
      }
      // A loop that keeps this forward's output with autograd on (OOM302) keeps each iteration's graph, and with it
      // what autograd saved for the backward (tools/autograd/derivatives.yaml: linear/matmul their inputs, softmax
      // its result, layer_norm input and statistics; _log_softmax its result, which nll_loss reads). Sized per
      // transformer block (Korthikanti et al. 2022) when the model reads as one; the graphs of the iterations before
      // this one are alive while it runs.
      const kept = u.gradEnabled ? keptGraphs(it, rec, u) : undefined;
      const keptIds: number[] = [];
      if (kept) {
        for (let k = 0; k < kept.iterations; k++) {
          const id = nextId++;
          keptIds.push(id);
          const bytes = k < kept.iterations - 1 ? kept.perGraph : kept.saved;
          events.push({ op: 'alloc', tensor: { id, label: k < kept.iterations - 1 ? `graph kept from iteration ${k + 1}` : 'activations saved by autograd (this iteration)', group: `activations kept by autograd (${kept.iterations} iterations, no torch.no_grad)`, shape: [bytes], dtype: 'uint8', role: 'activation', placement: { kind: 'device', index: 0 }, span: u.span, note: k < kept.iterations - 1 ? kept.formula : kept.savedFormula, citation: kept.citation } });
        }
        notes.push(`the loop keeps each forward's output with autograd on: ${kept.iterations} iterations' graphs are alive at the last one (${kept.formula} each)`);
      }
      // The traced forward: its buffers alloc'd and freed as Python references go, then whatever it returned is dropped.
      const live = new Set<number>();
      for (const ev of u.trace.events) {
        events.push(ev);
        if (ev.op === 'alloc') live.add(ev.tensor.id);
        else if (ev.op === 'free') live.delete(ev.id);
      }
      // A loss on the returned logits: F.cross_entropy is nll_loss(log_softmax(input)) (aten/src/ATen/native/LossNLL.cpp
      // `cross_entropy_loss`), whose log_softmax result is a second tensor like the logits while both exist.
      const outName = assignedName(it, u.span);
      if (outName && new RegExp(`(?:cross_entropy|criterion|loss_fn|loss_func|log_softmax)\\s*\\(\\s*${outName}\\b`).test(it.text)) {
        let biggest: TensorFact | undefined;
        for (const ev of u.trace.events) if (ev.op === 'alloc' && live.has(ev.tensor.id) && ev.tensor.role === 'activation' && (!biggest || shapeSize(ev.tensor) > shapeSize(biggest))) biggest = ev.tensor;
        if (biggest) {
          events.push({ op: 'transient', label: `activations: log_softmax of ${outName} (cross-entropy)`, bytesPerDevice: shapeSize(biggest) * dtypeBytes(biggest.dtype), role: 'activation', span: u.span,
            formula: `like the forward's output [${biggest.shape.join(', ')}] (${biggest.dtype})`, citation: 'aten/src/ATen/native/LossNLL.cpp cross_entropy_loss (log_softmax then nll_loss)' });
        }
      }
      for (const id of live) events.push({ op: 'free', id });
      unknowns.push(...u.trace.unknowns);
      if (u.trace.jitted) unknowns.push({ what: 'forward activations', reason: `the forward at line ${line} runs under jit: XLA's temporaries inside it are not modelled, only its outputs`, span: u.span });
      for (const id of keptIds) events.push({ op: 'free', id });
      if (u.gradEnabled && !kept) unknowns.push({ what: 'forward activations', reason: `the forward at line ${line} runs with autograd on: the activations it saves for backward are not counted (wrap it in torch.inference_mode())`, span: u.span });
      continue;
    }
    if (!a) {
      unknowns.push({ what: 'inference memory', reason: load ? `the configuration of "${load.checkpoint}" is not known` : 'the model\'s configuration is not known', span: u.span });
      continue;
    }
    if (a.encoderDecoder) {
      unknowns.push({ what: 'inference memory', reason: 'encoder-decoder caches (self- and cross-attention) are not modelled yet', span: u.span });
      continue;
    }
    const step = (tokens: number, batch: number, kvLen: number, logitsPositions: number, cat: number) => forwardStepBytes({
      batch, tokens, kvLen, hidden: a.hidden, intermediate: a.intermediate, heads: a.heads, kvHeads: a.kvHeads, headDim: a.headDim, vocab: a.vocab,
      gatedMlp: a.gatedMlp, bytesPerElement: e, attention: eager ? 'eager' : 'sdpa', logitsPositions,
      logitsFloat32: logitsPositions <= 1 || upcast, catCopyBytes: cat, mlpActExtra: pyAct?.liveExtra, heldHidden: config ? heldHidden(config) : undefined,
    });
    const kvAlloc = (seq: number, batch: number, why: string, span: Span, onDevice = a.layers): number[] => {
      const ids: number[] = [];
      const per = kvCacheBytes({ layers: a.layers, kvHeads: a.kvHeads, headDim: a.headDim, seq, batch, bytesPerElement: e });
      for (let l = 0; l < onDevice; l++) {
        const id = nextId++;
        ids.push(id);
        events.push({
          op: 'alloc', tensor: {
            id, label: `KV cache layer ${l}`, group: `KV cache (${why}, ${dtype})`, shape: [2, batch, a.kvHeads, seq, a.headDim], dtype, role: 'kv-cache',
            placement: layerPlace.get(l) ?? { kind: 'device', index: 0 }, span, note: per.formula, citation: `${KV_CITATION}; ${generateCacheTokens({ promptTokens: null }).citation}`,
          },
        });
      }
      return ids;
    };
    const free = (ids: number[]) => { for (const id of ids) events.push({ op: 'free', id }); };

    if (u.kind === 'generate') {
      const g = generateBatch(u.batch ?? 1, u.numBeams, u.numReturnSequences);
      if (u.batch === null) notes.push('batch size unknown: sized for 1 prompt (a lower bound)');
      const len = generateCacheTokens({ promptTokens: u.promptTokens, maxNewTokens: u.maxNewTokens, maxLength: u.maxLength });
      // A StaticCache object holds max_cache_len positions whatever is generated, for its own batch when allocated eagerly.
      const sc = u.staticCache;
      const T = sc?.len ?? len.tokens ?? len.atLeast;
      const kvBatch = sc?.eager && sc.batch !== null ? sc.batch : g.batch;
      if (sc?.eager && sc.batch !== null && sc.batch !== g.batch) notes.push(`StaticCache preallocated for ${sc.batch} sequences while generate runs ${g.batch}: transformers < 4.56 copies keys into it by index and needs the same batch (it fails at the first update); sized as allocated`);
      if (len.tokens === null && T > 0) notes.push(`KV cache sized for the ${T} positions known (${len.formula}): a lower bound`);
      const kind = u.cache === 'static' ? 'StaticCache' : u.cache === 'dynamic' ? 'DynamicCache' : u.cache;
      // OffloadedCache (cache_utils.py): layer k runs while k+1 is prefetched and k-1 is evicted: at most 3 layers on the device.
      const onDevice = u.cache === 'offloaded' ? Math.min(3, a.layers) : a.layers;
      if (u.cache === 'offloaded') notes.push(`offloaded cache: ${onDevice} of ${a.layers} layers' cache on the accelerator at a time (layer k, k+1 prefetched, k-1 being evicted: transformers cache_utils.py OffloadedCache); the rest in CPU memory`);
      if (u.cache === 'quantized') notes.push('quantized cache: sized at the model dtype (an upper bound)');
      const P = u.promptTokens;
      // Prefill: the prompt's cache (or the whole static cache) plus the prompt's forward.
      if (P !== null && P > 0) {
        const ids = u.cache === 'none' ? [] : kvAlloc(u.cache === 'static' ? T : P, u.cache === 'static' ? kvBatch : g.batch, kind, u.span, onDevice);
        const s = step(P, g.batch, P, keepsLast ? 1 : P, 0);
        if (!keepsLast && P > 1) {
          u.prefillLogits = {
            bytes: s.parts.logits, positions: P, batch: g.batch, vocab: a.vocab, upcast, version: tv, logitsFamily: a.gatedMlp, transient: s.bytes,
            rest: s.parts.residual + Math.max(s.parts.mlp, s.parts.attention), bytesPerElement: e,
          };
        }
        events.push({ op: 'transient', label: `prefill forward (${P} tokens × ${g.batch})`, bytesPerDevice: s.bytes, role: 'activation', span: u.span, formula: s.formula, citation: s.citation });
        free(ids);
      }
      // Last decode step: the cache at its final length, one token through the model.
      // Decode steps exist only when more than one token is generated (the prefill samples the first).
      if (T > 0 && u.cache !== 'none' && (P === null || T > P)) {
        const ids = kvAlloc(T, kvBatch, kind, u.span, onDevice);
        const kvAll = kvCacheBytes({ layers: a.layers, kvHeads: a.kvHeads, headDim: a.headDim, seq: T, batch: kvBatch, bytesPerElement: e });
        const layerPerToken = kvLayerTensorBytes({ kvHeads: a.kvHeads, headDim: a.headDim, seq: 1, batch: kvBatch, bytesPerElement: e });
        u.sized = { tokens: T, batch: kvBatch, bytes: kvAll.bytes, perToken: 2 * a.layers * layerPerToken, layerPerToken, formula: kvAll.formula, lowerBound: sc?.len != null ? false : len.tokens === null, layers: a.layers };
        const cat = u.cache === 'dynamic' || u.cache === 'offloaded' ? kvLayerTensorBytes({ kvHeads: a.kvHeads, headDim: a.headDim, seq: T, batch: g.batch, bytesPerElement: e }) : 0;
        const s = step(1, g.batch, T, 1, cat);
        events.push({ op: 'transient', label: `decode step (1 token × ${g.batch}, cache ${T})`, bytesPerDevice: s.bytes, role: 'activation', span: u.span, formula: s.formula, citation: s.citation });
        free(ids);
      } else if (u.cache === 'none' && T > 0) {
        // Without a cache every step runs the whole sequence again.
        const s = step(T, g.batch, T, keepsLast ? 1 : T, 0);
        events.push({ op: 'transient', label: `last step without cache (${T} tokens × ${g.batch})`, bytesPerDevice: s.bytes, role: 'activation', span: u.span, formula: s.formula, citation: s.citation });
      }
    } else {
      if (u.tokens === null || u.batch === null) continue;
      const ids: number[] = [];
      const out = (label: string, shape: number[], group: string, note: string) => {
        const id = nextId++;
        ids.push(id);
        events.push({ op: 'alloc', tensor: { id, label, group, shape, dtype, role: 'activation', placement: { kind: 'device', index: 0 }, span: u.span, note, citation: 'transformers modeling_llama.py LlamaForCausalLM.forward' } });
      };
      // modeling_llama.py 4.36–4.44 upcast the logits (`logits = logits.float()`); later versions keep the model dtype.
      const logitsDtype: DType = fullLogits && a.gatedMlp && e < 4 ? 'float32' : dtype;
      const id0 = nextId++;
      ids.push(id0);
      events.push({ op: 'alloc', tensor: { id: id0, label: 'logits', group: `forward output: logits (${logitsDtype})`, shape: [u.batch, u.tokens, a.vocab], dtype: logitsDtype, role: 'activation', placement: { kind: 'device', index: 0 }, span: u.span, note: `${u.batch}×${u.tokens}×${a.vocab}: a plain forward returns every position's logits`, citation: 'transformers modeling_llama.py LlamaForCausalLM.forward' } });
      if (u.outputHiddenStates) for (let l = 0; l <= a.layers; l++) out(`hidden_states.${l}`, [u.batch, u.tokens, a.hidden], `forward output: hidden_states (${dtype})`, `${a.layers + 1} × ${u.batch}×${u.tokens}×${a.hidden} (output_hidden_states=True)`);
      const kvIds = u.useCache ? kvAlloc(u.tokens, u.batch, 'returned past_key_values', u.span) : [];
      if (u.gradEnabled) {
        const act = activationBytes({ seq: u.tokens, batch: u.batch, hidden: a.hidden, heads: a.heads, layers: a.layers, bytesPerElement: e === 4 ? 4 : 2 });
        const id = nextId++;
        ids.push(id);
        events.push({ op: 'alloc', tensor: { id, label: 'activations kept by autograd', group: 'activations kept by autograd (no torch.no_grad)', shape: [act.total], dtype: 'uint8', role: 'activation', placement: { kind: 'device', index: 0 }, span: u.span, note: act.formula, citation: act.citation } });
        notes.push('the forward runs with autograd on: activations are kept for a backward pass (Korthikanti et al. 2022 estimate)');
      }
      // The logits are an output (allocated above), not part of the step's working set.
      const s = step(u.tokens, u.batch, u.tokens, 0, 0);
      events.push({ op: 'transient', label: `forward (${u.tokens} tokens × ${u.batch})`, bytesPerDevice: s.bytes, role: 'activation', span: u.span, formula: s.formula, citation: s.citation });
      free([...ids, ...kvIds]);
    }
  }
  if (eager) notes.push(askedEager ? 'attn_implementation="eager": attention scores are materialised' : `eager attention (SDPA is the default from transformers 4.36 with torch>=2.1.1; here ${tv ? `transformers==${tv}` : ''}${oldTorch ? ` torch==${versions.torch}` : ''}): attention scores are materialised`);
  return [{ phase: 'inference', events, span: uses[0].span, notes: [...new Set(notes)], unknowns }];
}

const shapeSize = (t: TensorFact) => t.shape.reduce((a, d) => a * d, 1);

/** The name a call's result is assigned to (`logits = model(x)`), if it is a plain name. */
function assignedName(it: Interpreter, span: Span): string | undefined {
  const line = it.text.lastIndexOf('\n', span.start) + 1;
  const m = /^\s*([A-Za-z_]\w*)\s*(?:,[^=]*)?=\s*$/.exec(it.text.slice(line, span.start));
  return m?.[1];
}

/**
 * The module-level names bound to each value, in binding order: built once while the namespace is unchanged
 * (asked once per model, each time a scan of every module-level name).
 */
function globalNamesByValue(it: Interpreter): Map<Value, string[]> {
  const vars = it.globals.vars;
  const hit = it.state.get('globalNamesByValue') as { version: number; byValue: Map<Value, string[]> } | undefined;
  if (hit && hit.version === vars.version) return hit.byValue;
  const byValue = new Map<Value, string[]>();
  for (const [k, v] of vars) {
    const l = byValue.get(v);
    if (l) l.push(k); else byValue.set(v, [k]);
  }
  it.state.set('globalNamesByValue', { version: vars.version, byValue });
  return byValue;
}

/** Calls of a module-level name bound to the model (`model(x)`, `model.forward(x)`) found in the source. */
function syntacticForwards(it: Interpreter, rec: ModelRecord): ForwardUse[] {
  const names = new Set(globalNamesByValue(it).get(rec.result as Value) ?? []);
  if (!names.size) return [];
  const out: ForwardUse[] = [];
  const byReceiver = callsByReceiver(it);
  const calls = [...names].flatMap((nm) => byReceiver.get(nm) ?? []).sort((a, b) => a.startIndex - b.startIndex);
  for (const n of calls) {
    if (inTrainingStep(n)) continue;
    // The input's shape when the first argument names a module-level tensor (`tokens = torch.zeros((4, 64))`).
    const a0 = n.childForFieldName('arguments')?.namedChildren[0];
    const x = a0?.type === 'identifier' ? it.globals.vars.get(a0.text) : undefined;
    const dim = (i: number) => (x?.t === 'tensor' && typeof x.shape[i] === 'number' ? x.shape[i] as number : null);
    out.push({ kind: 'forward', span: { start: n.startIndex, end: n.endIndex }, batch: dim(0), tokens: dim(1), gradEnabled: !syntacticNoGrad(n), outputHiddenStates: false, useCache: false, unknowns: [] });
  }
  return out;
}

/**
 * The file's calls by the text of what they call, `.forward` taken off (`model(x)` and `model.forward(x)`
 * both under "model"), once per tree: a file with thousands of models looks each one's calls up instead
 * of walking every call once per model.
 */
function callsByReceiver(it: Interpreter): Map<string, SyntaxNode[]> {
  const hit = it.state.get('callsByReceiver') as Map<string, SyntaxNode[]> | undefined;
  if (hit) return hit;
  const out = new Map<string, SyntaxNode[]>();
  for (const n of nodesOfType(it, 'call')) {
    let f = n.childForFieldName('function');
    if (f?.type === 'attribute' && f.childForFieldName('attribute')?.text === 'forward') f = f.childForFieldName('object');
    if (!f) continue;
    const k = f.text;
    const l = out.get(k);
    if (l) l.push(n); else out.set(k, [n]);
  }
  it.state.set('callsByReceiver', out);
  return out;
}

/** Every call or loop of the file, found once per analysis (interp/syntaxIndex.ts). */
function nodesOfType(it: Interpreter, type: 'call' | 'loop'): SyntaxNode[] {
  return syntaxIndex(it.tree)[type];
}

// ------------------------------------------------------------ grad loops (OOM302)


/** Per tree, answers already computed for a node id (a body's text is read once, not once per call inside it). */
const memo = new WeakMap<object, Map<string, boolean>>();
function memoised(node: SyntaxNode, what: string, f: () => boolean): boolean {
  let m = memo.get(node.tree);
  if (!m) memo.set(node.tree, (m = new Map()));
  const key = `${what}:${node.id}`;
  let v = m.get(key);
  if (v === undefined) m.set(key, (v = f()));
  return v;
}

/** Whether a trainer is running the program's training-step hook now (Lightning's training_step, frameworks/lightning). */
export function inTrainingCall(it: { state: Map<string, unknown> }): boolean {
  return Number(it.state.get('trainingStepDepth') ?? 0) > 0;
}

/** Whether the nearest enclosing loop (else function) of `node` calls `.backward(`. */
export function inTrainingStep(node: SyntaxNode): boolean {
  // Asked at every module call (a forward body runs once per layer and again per phase): one walk up per call node.
  return memoised(node, 'inTrainingStep', () => enclosingCallsBackward(node));
}

function enclosingCallsBackward(node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) {
    // LightningModule.training_step: Lightning runs the backward on what it returns (frameworks/lightning).
    if (p.type === 'function_definition' && p.childForFieldName('name')?.text === 'training_step') return true;
    if (p.type === 'for_statement' || p.type === 'while_statement' || p.type === 'function_definition') {
      return memoised(p, 'backward', () => {
        const body = p.childForFieldName('body');
        return !!body && /\.backward\s*\(/.test(body.text);
      });
    }
  }
  return false;
}

/**
 * Call sites by callee name (`f(...)` under "f", `obj.f(...)` under "f"), built once per analysis
 * from the file's call nodes, so a question about one function's callers does not rescan them all.
 */
function callsByCallee(it: Interpreter): Map<string, SyntaxNode[]> {
  let index = it.state.get('callsByCallee') as Map<string, SyntaxNode[]> | undefined;
  if (index) return index;
  index = new Map();
  for (const x of nodesOfType(it, 'call')) {
    const f = x.childForFieldName('function');
    const name = !f ? undefined : f.type === 'attribute' ? f.childForFieldName('attribute')?.text : f.text;
    if (!name) continue;
    let list = index.get(name);
    if (!list) index.set(name, (list = []));
    list.push(x);
  }
  it.state.set('callsByCallee', index);
  return index;
}

const NO_GRAD_WITH = /\b(no_grad|inference_mode)\s*\(|\bset_grad_enabled\s*\(\s*False\b/;

/** Whether `node` sits inside `with torch.no_grad():` / `inference_mode()` or a function decorated with them. */
function syntacticNoGrad(node: SyntaxNode): boolean {
  return memoised(node, 'noGrad', () => underNoGrad(node));
}

function underNoGrad(node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'with_statement') {
      const clause = p.namedChildren.find((c) => c?.type === 'with_clause');
      if (clause && NO_GRAD_WITH.test(clause.text)) return true;
    }
    if (p.type === 'decorated_definition') {
      for (const d of p.namedChildren) if (d?.type === 'decorator' && /\b(no_grad|inference_mode)\b/.test(d.text)) return true;
    }
  }
  return false;
}

/**
 * A call of a function of this file whose every `return` runs under `torch.no_grad()` / `inference_mode()` (or that
 * is decorated with one): what it returns carries no autograd history whatever it was given (the classic
 * `accuracy(output, target)` helper): torch records no graph for ops under no_grad (torch/autograd/grad_mode.py).
 */
function graphFreeCall(rhs: SyntaxNode, root: SyntaxNode): boolean {
  // `kept.append(score(out))`: the argument list's one argument.
  const inner = rhs.type === 'argument_list' && rhs.namedChildCount === 1 ? rhs.namedChild(0) : rhs;
  const call = inner?.type === 'call' ? inner : undefined;
  const f = call?.childForFieldName('function');
  if (f?.type !== 'identifier') return false;
  return memoised(root, `graphFree:${f.text}`, () => {
    let def: SyntaxNode | undefined;
    for (const st of root.namedChildren) {
      const d = st?.type === 'decorated_definition' ? st.childForFieldName('definition') : st;
      if (d?.type === 'function_definition' && d.childForFieldName('name')?.text === f.text) def = d;
    }
    if (!def) return false;
    const returns: SyntaxNode[] = [];
    walk(def, (x) => { if (x.id !== def!.id && (x.type === 'function_definition' || x.type === 'class_definition' || x.type === 'lambda')) return false; if (x.type === 'return_statement') returns.push(x); return undefined; });
    return returns.length > 0 && returns.every((r) => underNoGrad(r));
  });
}

// Results that carry no autograd history: Python numbers, detached or host copies, integer and boolean tensors.
const DETACH = /\.(item|detach|cpu|tolist|numpy|argmax|argmin|argsort|long|int|bool|eq|ne|gt|lt|ge|le)\s*\(|\b(float|int|bool)\s*\(|\btorch\.(argmax|argmin)\s*\(/;

function walk(n: SyntaxNode, f: (x: SyntaxNode) => boolean | void): void {
  if (f(n) === false) return;
  for (const c of n.namedChildren) if (c) walk(c, f);
}

function mentions(n: SyntaxNode, names: Set<string>): boolean {
  let hit = false;
  walk(n, (x) => { if (hit) return false; if (x.type === 'identifier' && names.has(x.text) && !(x.parent?.type === 'attribute' && x.parent.childForFieldName('attribute')?.id === x.id)) hit = true; return undefined; });
  return hit;
}

/** Names a function assigns from an expression that contains the construction call of a model record. */
function localModelNames(fn: SyntaxNode, keys: Set<string>): string[] {
  const out: string[] = [];
  walk(fn, (x) => {
    if (x.id !== fn.id && (x.type === 'function_definition' || x.type === 'class_definition')) return false;
    if (x.type !== 'assignment') return undefined;
    const left = x.childForFieldName('left');
    const right = x.childForFieldName('right');
    if (left?.type !== 'identifier' || !right) return undefined;
    let built = false;
    walk(right, (y) => { if (built) return false; if (keys.has(`${y.startIndex}:${y.endIndex}`)) built = true; return undefined; });
    if (built) out.push(left.text);
    return undefined;
  });
  return out;
}

/**
 * Finds loops that call a model with autograd on and keep the result
 * across iterations. A callee is a model when it names a model the
 * interpreter built (a module-level variable) or when `.eval()` is called
 * on the same name in the enclosing scope (an nn.Module method). Loops
 * that call `.backward(` or `.step(` are training loops (OOM4xx), not this.
 */
export function findGradLoops(it: Interpreter): GradLoop[] {
  const found: GradLoop[] = [];
  const root = it.tree.rootNode;
  const modelNames = new Map<string, ModelRecord>();
  for (const [k, v] of it.globals.vars) {
    const r = recordOf(it, v);
    if (r) modelNames.set(k, r);
  }
  // `.eval()` evidence per enclosing scope, read once per scope (not once per loop in it).
  const evalNamesOf = new Map<number, Set<string>>();
  // Construction spans of the records built, as `start:end` keys (made at the first scope that asks).
  let builtSpans: Set<string> | undefined;
  for (const loop of nodesOfType(it, 'loop')) {
    const body = loop.childForFieldName('body');
    if (!body || syntacticNoGrad(loop)) continue;
    // A body with no call cannot call a model (and nothing in it comes from one).
    if (!nodesWithin(nodesOfType(it, 'call'), body).length) continue;
    if (/\.backward\s*\(|\.step\s*\(/.test(body.text)) continue;
    // Enclosing scope text (function body or module) for `.eval()` evidence.
    let scope: SyntaxNode = root;
    for (let p = loop.parent; p; p = p.parent) if (p.type === 'function_definition') { scope = p; break; }
    // A function whose every call site is under no_grad / inference_mode runs its loops without autograd.
    if (scope !== root) {
      const fname = scope.childForFieldName('name')?.text;
      const sites = fname ? callsByCallee(it).get(fname) ?? [] : [];
      if (sites.length && sites.every((x) => syntacticNoGrad(x))) continue;
    }
    let evalNames = evalNamesOf.get(scope.id);
    if (!evalNames) {
      evalNames = new Set<string>();
      for (const m of scope.text.matchAll(/([A-Za-z_][\w.]*)\.eval\s*\(\s*\)/g)) evalNames.add(m[1]);
      // Inside a function, a local assigned from the construction of a model the interpreter built
      // (`model = LM.from_pretrained(...).to("cuda")` in main()) names that model as well.
      if (scope !== root) for (const n of localModelNames(scope, (builtSpans ??= new Set(it.memory.finished.map((r) => `${r.span.start}:${r.span.end}`))))) evalNames.add(n);
      evalNamesOf.set(scope.id, evalNames);
    }
    // Statements of the body in order: tainted names come from a model call.
    const tainted = new Set<string>();
    let callSpan: Span | undefined;
    let callee = '';
    let model: ModelRecord | undefined;
    let keep: SyntaxNode | undefined;
    const isModelCall = (c: SyntaxNode): boolean => {
      if (c.type !== 'call') return false;
      let f = c.childForFieldName('function');
      if (!f) return false;
      if (f.type === 'attribute' && f.childForFieldName('attribute')?.text === 'forward') f = f.childForFieldName('object')!;
      const name = f.text;
      if (syntacticNoGrad(c)) return false;
      if (modelNames.has(name) || evalNames.has(name)) {
        if (!callSpan) { callSpan = { start: c.startIndex, end: c.endIndex }; callee = name; model = modelNames.get(name); }
        return true;
      }
      return false;
    };
    const containsModelCall = (n: SyntaxNode): boolean => {
      let hit = false;
      walk(n, (x) => { if (hit) return false; if (isModelCall(x)) { hit = true; return false; } return undefined; });
      return hit;
    };
    const exprs: SyntaxNode[] = [];
    walk(body, (x) => { if (x.type === 'expression_statement') { exprs.push(x); return false; } if (x.type === 'function_definition' || x.type === 'class_definition') return false; return undefined; });
    for (const st of exprs) {
      const e = st.namedChildren[0];
      if (!e) continue;
      const fromModel = (rhs: SyntaxNode) => !DETACH.test(rhs.text) && !graphFreeCall(rhs, root) && (containsModelCall(rhs) || mentions(rhs, tainted));
      if (e.type === 'assignment') {
        const left = e.childForFieldName('left');
        const right = e.childForFieldName('right');
        if (!left || !right) continue;
        if (fromModel(right)) {
          // `total = total + loss` keeps the graph like `+=`.
          if (left.type === 'identifier' && mentions(right, new Set([left.text])) && !tainted.has(left.text)) { keep ??= e; continue; }
          walk(left, (x) => { if (x.type === 'identifier') tainted.add(x.text); return undefined; });
        }
      } else if (e.type === 'augmented_assignment') {
        const right = e.childForFieldName('right');
        if (right && fromModel(right)) keep ??= e;
      } else if (e.type === 'call') {
        const f = e.childForFieldName('function');
        const a = e.childForFieldName('arguments');
        if (f?.type === 'attribute' && /^(append|extend|add|insert)$/.test(f.childForFieldName('attribute')?.text ?? '') && a && fromModel(a)) keep ??= e;
      }
    }
    if (callSpan && keep && !backwardAfter(scope, loop, keptName(keep))) {
      const text = it.text;
      const lineStart = text.lastIndexOf('\n', loop.startIndex - 1) + 1;
      const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
      const perIteration = model ? autogradPerIteration(it, model) : undefined;
      found.push({
        call: callSpan, callee, loop: { start: loop.startIndex, end: loop.endIndex }, keep: { start: keep.startIndex, end: keep.endIndex }, keepText: keep.text,
        loopLineStart: lineStart, indent, loopText: text.slice(lineStart, loop.endIndex), perIteration, model: model?.name, torchName: it.nameFor('torch'),
      });
    }
  }
  return found;
}

/** The name a keep statement accumulates into: `X.append(...)`, `X += ...`, `X = X + ...`. */
function keptName(keep: SyntaxNode): string | undefined {
  if (keep.type === 'call') {
    const f = keep.childForFieldName('function');
    const o = f?.type === 'attribute' ? f.childForFieldName('object') : null;
    return o?.type === 'identifier' ? o.text : undefined;
  }
  const left = keep.childForFieldName('left');
  return left?.type === 'identifier' ? left.text : undefined;
}

/**
 * Whether what the loop kept feeds a `.backward(` later in the same scope
 * (gradient accumulation: `torch.stack(losses).mean().backward()`): then
 * the graphs are kept on purpose.
 */
function backwardAfter(scope: SyntaxNode, loop: SyntaxNode, name: string | undefined): boolean {
  if (!name) return false;
  const names = new Set([name]);
  let found = false;
  const body = scope.type === 'function_definition' ? scope.childForFieldName('body') : scope;
  walk(body ?? scope, (x) => {
    if (found || x.startIndex < loop.endIndex) return x.endIndex > loop.endIndex ? undefined : false;
    if (x.type !== 'expression_statement') return undefined;
    const e = x.namedChildren[0];
    if (e?.type === 'assignment' && e.childForFieldName('right') && mentions(e.childForFieldName('right')!, names)) {
      walk(e.childForFieldName('left')!, (y) => { if (y.type === 'identifier') names.add(y.text); return undefined; });
    }
    if (/\.backward\s*\(/.test(x.text) && mentions(x, names)) found = true;
    return false;
  });
  return found;
}

/** Saved activations of one forward of a transformers model at the input shape seen, when known. */
function autogradPerIteration(it: Interpreter, rec: ModelRecord): GradLoop['perIteration'] {
  const f = inferenceUses(rec).find((u): u is ForwardUse => u.kind === 'forward' && u.batch !== null && u.tokens !== null);
  const load = hfLoads(it).find((l) => l.span.start === rec.span.start && l.span.end === rec.span.end);
  const c = load ? (hfConfigView(load) ?? hfConfig(load.checkpoint)) : undefined;
  const a = c ? arch(c) : undefined;
  if (!f || !a || f.batch === null || f.tokens === null) return undefined;
  const e = dtypeBytes(rec.params?.[0]?.dtype ?? 'float32');
  const act = activationBytes({ seq: f.tokens, batch: f.batch, hidden: a.hidden, heads: a.heads, layers: a.layers, bytesPerElement: e === 4 ? 4 : 2 });
  return { bytes: act.total, formula: act.formula, citation: act.citation };
}

/**
 * The graphs a grad-enabled loop keeps (OOM302) for a user-defined torch transformer: the loop's iteration count
 * from `range(N)` with N an integer literal, and per iteration what autograd saves in each block (Korthikanti et al.
 * 2022 §4.1; no dropout after `.eval()`), plus the cross-entropy's saved log-probs when a loss is taken on the output
 * (derivatives.yaml `_log_softmax: result`; `nll_loss_forward: self`). Undefined when any of it is not known.
 */
function keptGraphs(it: Interpreter, rec: ModelRecord, u: ForwardUse): { iterations: number; perGraph: number; saved: number; formula: string; savedFormula: string; citation: string } | undefined {
  if (rec.framework !== 'torch' || !rec.result || u.batch === null || u.tokens === null) return undefined;
  const loop = gradLoops(rec).find((l) => l.loop.start <= u.span.start && u.span.end <= l.loop.end);
  if (!loop) return undefined;
  const n = /^\s*for\s+[^:]+\s+in\s+range\s*\(\s*(\d+)\s*\)\s*:/.exec(loop.loopText);
  if (!n) return undefined;
  const a = archOf(rec.result);
  if ('why' in a && !('layers' in a)) return undefined;
  const arch = a as Exclude<typeof a, { why: string }>;
  const dtype: DType = rec.params?.[0]?.dtype ?? 'float32';
  const e = dtypeBytes(dtype);
  if (e !== 2 && e !== 4) return undefined;
  const fused = /scaled_dot_product_attention|flash_attn|memory_efficient_attention/.test(it.text);
  const dropout = /\.eval\s*\(\s*\)/.test(it.text) ? false : (arch.dropout ?? true);
  const act = trainingActivationBytes({ seq: u.tokens, batch: u.batch, hidden: arch.hidden, heads: arch.heads, layers: arch.layers, bytesPerElement: e, dropout, attention: fused ? 'fused' : 'materialized' });
  const outName = assignedName(it, u.span);
  const ce = !!outName && arch.vocab !== undefined && new RegExp(`(?:cross_entropy|criterion|loss_fn|loss_func|log_softmax)\\s*\\(\\s*${outName}\\b`).test(it.text);
  const logProbs = ce ? u.batch * u.tokens * arch.vocab! * e : 0;
  return {
    iterations: Number(n[1]), perGraph: act.total + logProbs, saved: act.total,
    formula: `${act.formula}${ce ? ` + log-probs b·s·V·${e} B = ${logProbs}` : ''}`, savedFormula: act.formula,
    citation: `${act.citation}; tools/autograd/derivatives.yaml (_log_softmax saves result, nll_loss_forward saves self)`,
  };
}
