/**
 * The PyTorch layer catalogue: for each `torch.nn` module, the parameters and
 * buffers its constructor creates, computed from the constructor arguments
 * alone (PyTorch is eager, so shapes never depend on the first input).
 *
 * Every entry mirrors the module's `__init__` / `reset_parameters` in the
 * PyTorch source, version 2.1 unless stated (pytorch/pytorch
 * torch/nn/modules/*.py). test/catalog/torch.test.ts checks the names,
 * shapes and dtypes against the real library (meta device) for a grid of
 * constructor calls, so a mistake here fails a test.
 *
 * Parameters default to float32 (torch.get_default_dtype()); a `dtype=`
 * keyword overrides it through `factory_kwargs`, as every module with
 * parameters does in 2.1.
 */
import type { DType } from '../../../../shared/src/facts';
import type { ArrayValue, Args, CatValue, Dim, LayerEntry, ParamSpec, UnknownValue } from '../../interp/catalog-types';
import { isUnknown as isUnknownArg } from '../args';

const V = 'PyTorch 2.1';

/** The dtype from a `dtype=` keyword, else the default float32. */
function dt(v: CatValue | undefined): DType {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dtype' ? v.dtype : 'float32';
}

const unk = (reason: string): UnknownValue => ({ kind: 'unknown', reason });

function int(a: Args, k: string): number | undefined {
  const v = a[k];
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

/** Python truthiness for the flags (bias=False, affine=0 ...); undefined stays undefined. */
function flag(v: CatValue | undefined, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return dflt;
}

/** An int or a tuple of ints, expanded to `n` entries (torch/nn/modules/utils.py `_ntuple`). */
export function ntuple(v: CatValue | undefined, n: number): number[] | undefined {
  if (typeof v === 'number') return Array.from({ length: n }, () => v);
  if (Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number')) return v as number[];
  return undefined;
}

function p(name: string, shape: Dim[], dtype: DType, init: ParamSpec['init'] = 'random'): ParamSpec {
  return { name, shape, dtype, role: 'param', init };
}
function b(name: string, shape: Dim[], dtype: DType, init: ParamSpec['init']): ParamSpec {
  return { name, shape, dtype, role: 'buffer', init };
}

/** Prefix every spec's name with `prefix.` (sub-modules of composite layers). */
function under(prefix: string, specs: ParamSpec[]): ParamSpec[] {
  return specs.map((s) => ({ ...s, name: `${prefix}.${s.name}` }));
}

function isUnknown(v: ParamSpec[] | UnknownValue): v is UnknownValue {
  return !Array.isArray(v);
}

/** A module with neither parameters nor buffers: activations, dropout, pooling, reshaping. */
function none(short: string, file: string, signature: string[] = []): LayerEntry {
  return {
    names: [`torch.nn.${short}`, `torch.nn.modules.${file}.${short}`],
    framework: 'torch',
    citation: `torch/nn/modules/${file}.py (${V}) ${short}: no parameters or buffers`,
    signature,
    defaults: {},
    params: () => [],
  };
}

function names(short: string, file: string): string[] {
  return [`torch.nn.${short}`, `torch.nn.modules.${file}.${short}`];
}

// ---------------------------------------------------------------------------
// Linear layers: torch/nn/modules/linear.py

/** Linear: weight [out, in] and bias [out] (linear.py Linear.__init__). */
function linearParams(inF: number, outF: number, bias: boolean, dtype: DType): ParamSpec[] {
  const s = [p('weight', [outF, inF], dtype)];
  if (bias) s.push(p('bias', [outF], dtype));
  return s;
}

function lastDimOut(input: ArrayValue, out: Dim): ArrayValue {
  return { kind: 'array', shape: [...input.shape.slice(0, -1), out], dtype: input.dtype };
}

// ---------------------------------------------------------------------------
// Convolutions: torch/nn/modules/conv.py _ConvNd.__init__:
//   transposed: weight (in_channels, out_channels // groups, *kernel_size)
//   otherwise:  weight (out_channels, in_channels // groups, *kernel_size)
//   bias (out_channels) when bias=True.
// in_channels and out_channels must both be divisible by groups (it raises).

function convEntry(n: 1 | 2 | 3, transposed: boolean): LayerEntry {
  const short = `Conv${transposed ? 'Transpose' : ''}${n}d`;
  const signature = transposed
    ? ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'output_padding', 'groups', 'bias', 'dilation', 'padding_mode', 'device', 'dtype']
    : ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups', 'bias', 'padding_mode', 'device', 'dtype'];
  return {
    names: names(short, 'conv'),
    framework: 'torch',
    citation: `torch/nn/modules/conv.py (${V}) ${short} / _ConvNd.__init__`,
    signature,
    defaults: { stride: 1, padding: 0, dilation: 1, groups: 1, bias: true, padding_mode: 'zeros', ...(transposed ? { output_padding: 0 } : {}) },
    params: (a) => {
      const cin = int(a, 'in_channels');
      const cout = int(a, 'out_channels');
      const k = ntuple(a.kernel_size, n);
      const g = int(a, 'groups') ?? 1;
      if (cin === undefined || cout === undefined) return unk('in_channels / out_channels not known');
      if (!k) return unk('kernel_size not known');
      if (cin % g !== 0 || cout % g !== 0) return unk(`in_channels and out_channels must be divisible by groups (${cin}, ${cout}, ${g}); PyTorch raises ValueError`);
      const d = dt(a.dtype);
      const w = transposed ? [cin, cout / g, ...k] : [cout, cin / g, ...k];
      const s = [p('weight', w, d)];
      if (flag(a.bias, true)) s.push(p('bias', [cout], d));
      return s;
    },
    output: (a, input) => convOutput(a, input, n, transposed),
  };
}

/**
 * Output shape of a convolution, from the formulas in the Conv*d /
 * ConvTranspose*d docstrings (conv.py): H_out = floor((H + 2p - d(k-1) - 1)/s + 1),
 * transposed H_out = (H-1)s - 2p + d(k-1) + output_padding + 1.
 * String padding ('same', 'valid') is handled for the non-transposed case.
 */
function convOutput(a: Args, input: ArrayValue, n: number, transposed: boolean): ArrayValue | UnknownValue {
  const cout = int(a, 'out_channels');
  const k = ntuple(a.kernel_size, n);
  const s = ntuple(a.stride ?? 1, n);
  const d = ntuple(a.dilation ?? 1, n);
  const op = ntuple(a.output_padding ?? 0, n);
  if (cout === undefined || !k || !s || !d || !op) return unk('convolution arguments not known');
  if (input.shape.length !== n + 1 && input.shape.length !== n + 2) return unk(`expected a ${n + 1}-d or ${n + 2}-d input`);
  const lead = input.shape.slice(0, input.shape.length - n - 1);
  const spatial = input.shape.slice(-n);
  let pad: number[] | undefined;
  if (a.padding === 'valid') pad = Array.from({ length: n }, () => 0);
  else if (a.padding === 'same' && !transposed) {
    return { kind: 'array', shape: [...lead, cout, ...spatial], dtype: input.dtype };
  } else pad = ntuple(a.padding ?? 0, n);
  if (!pad) return unk('padding not known');
  const out: Dim[] = spatial.map((h, i) => {
    if (typeof h !== 'number') return h;
    return transposed
      ? (h - 1) * s[i] - 2 * pad![i] + d[i] * (k[i] - 1) + op[i] + 1
      : Math.floor((h + 2 * pad![i] - d[i] * (k[i] - 1) - 1) / s[i] + 1);
  });
  return { kind: 'array', shape: [...lead, cout, ...out], dtype: input.dtype };
}

/** Pooling output size (torch/nn/modules/pooling.py; the formula of the MaxPool2d docs, ceil_mode=False). */
export function poolOutput(a: Args, input: ArrayValue, n: number): ArrayValue | UnknownValue {
  const k = ntuple(a.kernel_size, n);
  const s = a.stride === null || a.stride === undefined ? k : ntuple(a.stride, n);
  const pad = ntuple(a.padding ?? 0, n);
  const d = ntuple(a.dilation ?? 1, n);
  if (!k || !s || !pad || !d || a.ceil_mode === true) return unk('pooling arguments not known');
  if (input.shape.length < n + 1) return unk(`expected a ${n + 1}-d or ${n + 2}-d input`);
  const lead = input.shape.slice(0, input.shape.length - n);
  const out: Dim[] = input.shape.slice(-n).map((h, i) => (typeof h === 'number' ? Math.floor((h + 2 * pad[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1) : h));
  return { kind: 'array', shape: [...lead, ...out], dtype: input.dtype };
}

// ---------------------------------------------------------------------------
// Batch / instance norm: torch/nn/modules/batchnorm.py _NormBase.__init__:
//   affine: weight (num_features) ones, bias (num_features) zeros
//   track_running_stats: running_mean zeros, running_var ones (both with
//   factory_kwargs, so they follow dtype=), num_batches_tracked a 0-d
//   torch.long tensor (dtype removed from factory_kwargs).
// instancenorm.py _InstanceNorm: affine=False, track_running_stats=False by default.

function normBase(short: string, file: string, affineDefault: boolean, trackDefault: boolean): LayerEntry {
  return {
    names: names(short, file),
    framework: 'torch',
    citation: `torch/nn/modules/${file}.py (${V}) ${short} / batchnorm.py _NormBase.__init__`,
    signature: ['num_features', 'eps', 'momentum', 'affine', 'track_running_stats', 'device', 'dtype'],
    defaults: { eps: 1e-5, momentum: 0.1, affine: affineDefault, track_running_stats: trackDefault },
    params: (a) => {
      const n = int(a, 'num_features');
      if (n === undefined) return unk('num_features not known');
      const d = dt(a.dtype);
      const out: ParamSpec[] = [];
      if (flag(a.affine, affineDefault)) out.push(p('weight', [n], d, 'ones'), p('bias', [n], d, 'zeros'));
      if (flag(a.track_running_stats, trackDefault)) {
        out.push(b('running_mean', [n], d, 'zeros'), b('running_var', [n], d, 'ones'), b('num_batches_tracked', [], 'int64', 'zeros'));
      }
      return out;
    },
    output: (_a, input) => input,
  };
}

/** LayerNorm's normalized_shape: an int or a tuple of ints (normalization.py: `if isinstance(normalized_shape, numbers.Integral)`). */
function normShape(v: CatValue | undefined): number[] | undefined {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return undefined;
}

// ---------------------------------------------------------------------------
// MultiheadAttention: torch/nn/modules/activation.py MultiheadAttention.__init__:
//   _qkv_same_embed_dim = kdim == embed_dim and vdim == embed_dim
//   same: in_proj_weight (3E, E); else q_proj_weight (E, E), k_proj_weight (E, kdim), v_proj_weight (E, vdim)
//   bias: in_proj_bias (3E)
//   out_proj = NonDynamicallyQuantizableLinear(E, E, bias=bias)
//   add_bias_kv: bias_k, bias_v (1, 1, E)

function mhaParams(a: Args): ParamSpec[] | UnknownValue {
  const e = int(a, 'embed_dim');
  const h = int(a, 'num_heads');
  if (e === undefined || h === undefined) return unk('embed_dim / num_heads not known');
  if (h <= 0 || e % h !== 0) return unk(`embed_dim must be divisible by num_heads (${e}, ${h}); PyTorch asserts`);
  const kdim = a.kdim === undefined || a.kdim === null ? e : int(a, 'kdim');
  const vdim = a.vdim === undefined || a.vdim === null ? e : int(a, 'vdim');
  if (kdim === undefined || vdim === undefined) return unk('kdim / vdim not known');
  const d = dt(a.dtype);
  const bias = flag(a.bias, true);
  const out: ParamSpec[] = [];
  if (kdim === e && vdim === e) out.push(p('in_proj_weight', [3 * e, e], d));
  else out.push(p('q_proj_weight', [e, e], d), p('k_proj_weight', [e, kdim], d), p('v_proj_weight', [e, vdim], d));
  if (bias) out.push(p('in_proj_bias', [3 * e], d, 'zeros'));
  if (flag(a.add_bias_kv, false)) out.push(p('bias_k', [1, 1, e], d), p('bias_v', [1, 1, e], d));
  out.push(...under('out_proj', linearParams(e, e, bias, d)));
  return out;
}

const MHA_SIG = ['embed_dim', 'num_heads', 'dropout', 'bias', 'add_bias_kv', 'add_zero_attn', 'kdim', 'vdim', 'batch_first', 'device', 'dtype'];

// ---------------------------------------------------------------------------
// Recurrent layers: torch/nn/modules/rnn.py _RNNBase.__init__:
//   gate_size = 4h (LSTM), 3h (GRU), h (RNN)
//   real_hidden_size = proj_size if proj_size > 0 else hidden_size
//   per layer k and direction (suffix '_reverse' for the second):
//     layer_input_size = input_size if k == 0 else real_hidden_size * num_directions
//     weight_ih_l{k} (gate, layer_input_size), weight_hh_l{k} (gate, real_hidden_size)
//     bias_ih_l{k}, bias_hh_l{k} (gate) when bias
//     weight_hr_l{k} (proj_size, hidden_size) when proj_size > 0

function rnnParams(a: Args, gates: number, allowProj: boolean): ParamSpec[] | UnknownValue {
  const inp = int(a, 'input_size');
  const hid = int(a, 'hidden_size');
  const layers = int(a, 'num_layers') ?? (a.num_layers === undefined ? 1 : undefined);
  const proj = allowProj ? (int(a, 'proj_size') ?? (a.proj_size === undefined ? 0 : undefined)) : 0;
  if (inp === undefined || hid === undefined) return unk('input_size / hidden_size not known');
  if (layers === undefined) return isUnknownArg(a.num_layers) ? a.num_layers : unk('num_layers not known');
  if (proj === undefined) return unk('proj_size not known');
  if (proj < 0 || (proj > 0 && proj >= hid)) return unk('proj_size must be in [0, hidden_size); PyTorch raises ValueError');
  const dirs = flag(a.bidirectional, false) ? 2 : 1;
  const bias = flag(a.bias, true);
  const d = dt(a.dtype);
  const gate = gates * hid;
  const real = proj > 0 ? proj : hid;
  const out: ParamSpec[] = [];
  for (let k = 0; k < layers; k++) {
    for (let dir = 0; dir < dirs; dir++) {
      const sfx = dir === 1 ? '_reverse' : '';
      const li = k === 0 ? inp : real * dirs;
      out.push(p(`weight_ih_l${k}${sfx}`, [gate, li], d), p(`weight_hh_l${k}${sfx}`, [gate, real], d));
      if (bias) out.push(p(`bias_ih_l${k}${sfx}`, [gate], d), p(`bias_hh_l${k}${sfx}`, [gate], d));
      if (proj > 0) out.push(p(`weight_hr_l${k}${sfx}`, [proj, hid], d));
    }
  }
  return out;
}

function rnnEntry(short: 'RNN' | 'LSTM' | 'GRU', gates: number): LayerEntry {
  // RNN's fourth positional is `nonlinearity` in 2.1 (rnn.py RNN.__init__: `if len(args) > 3: self.nonlinearity = args[3]`).
  const signature = short === 'RNN'
    ? ['input_size', 'hidden_size', 'num_layers', 'nonlinearity', 'bias', 'batch_first', 'dropout', 'bidirectional', 'device', 'dtype']
    : ['input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout', 'bidirectional', ...(short === 'LSTM' ? ['proj_size'] : []), 'device', 'dtype'];
  return {
    names: names(short, 'rnn'),
    framework: 'torch',
    citation: `torch/nn/modules/rnn.py (${V}) ${short} / _RNNBase.__init__`,
    signature,
    defaults: { num_layers: 1, bias: true, batch_first: false, dropout: 0, bidirectional: false, ...(short === 'LSTM' ? { proj_size: 0 } : {}), ...(short === 'RNN' ? { nonlinearity: 'tanh' } : {}) },
    params: (a) => rnnParams(a, gates, short === 'LSTM'),
  };
}

/** rnn.py RNNCellBase.__init__: weight_ih (chunks*h, input), weight_hh (chunks*h, h), bias_ih / bias_hh (chunks*h). */
function cellEntry(short: 'RNNCell' | 'LSTMCell' | 'GRUCell', chunks: number): LayerEntry {
  return {
    names: names(short, 'rnn'),
    framework: 'torch',
    citation: `torch/nn/modules/rnn.py (${V}) ${short} / RNNCellBase.__init__`,
    signature: ['input_size', 'hidden_size', 'bias', ...(short === 'RNNCell' ? ['nonlinearity'] : []), 'device', 'dtype'],
    defaults: { bias: true },
    params: (a) => {
      const inp = int(a, 'input_size');
      const hid = int(a, 'hidden_size');
      if (inp === undefined || hid === undefined) return unk('input_size / hidden_size not known');
      const d = dt(a.dtype);
      const out = [p('weight_ih', [chunks * hid, inp], d), p('weight_hh', [chunks * hid, hid], d)];
      if (flag(a.bias, true)) out.push(p('bias_ih', [chunks * hid], d), p('bias_hh', [chunks * hid], d));
      return out;
    },
  };
}

// ---------------------------------------------------------------------------
// Transformer layers: torch/nn/modules/transformer.py.
// TransformerEncoderLayer: self_attn = MultiheadAttention(d_model, nhead, bias=bias),
//   linear1 = Linear(d_model, dim_feedforward, bias), linear2 = Linear(dim_feedforward, d_model, bias),
//   norm1, norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias).
// TransformerDecoderLayer adds multihead_attn (cross attention) and norm3.
// The `bias` argument is new in 2.1.

function transformerLayer(a: Args, decoder: boolean): ParamSpec[] | UnknownValue {
  const dm = int(a, 'd_model');
  const nh = int(a, 'nhead');
  const ff = a.dim_feedforward === undefined ? 2048 : int(a, 'dim_feedforward');
  if (dm === undefined || nh === undefined) return unk('d_model / nhead not known');
  if (ff === undefined) return unk('dim_feedforward not known');
  const bias = flag(a.bias, true);
  const d = dt(a.dtype);
  const mha = mhaParams({ embed_dim: dm, num_heads: nh, bias, dtype: a.dtype });
  if (isUnknown(mha)) return mha;
  const norm = (n: string) => under(n, bias ? [p('weight', [dm], d, 'ones'), p('bias', [dm], d, 'zeros')] : [p('weight', [dm], d, 'ones')]);
  const out = [...under('self_attn', mha)];
  if (decoder) out.push(...under('multihead_attn', mha));
  out.push(...under('linear1', linearParams(dm, ff, bias, d)), ...under('linear2', linearParams(ff, dm, bias, d)));
  out.push(...norm('norm1'), ...norm('norm2'));
  if (decoder) out.push(...norm('norm3'));
  return out;
}

const TRANSFORMER_SIG = ['d_model', 'nhead', 'dim_feedforward', 'dropout', 'activation', 'layer_norm_eps', 'batch_first', 'norm_first', 'bias', 'device', 'dtype'];

// nn.Transformer (transformer.py Transformer.__init__, 2.1): unless custom_encoder /
// custom_decoder are given,
//   encoder = TransformerEncoder(TransformerEncoderLayer(d_model, nhead, dim_feedforward, ..., bias=bias),
//                                num_encoder_layers, LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
//   decoder = TransformerDecoder(TransformerDecoderLayer(...), num_decoder_layers, LayerNorm(...))
// and TransformerEncoder/Decoder hold `layers = _get_clones(layer, num_layers)` (deep copies, so
// num_layers independent sets of parameters) and `norm`. Parameter names: encoder.layers.{i}.*,
// encoder.norm.*, decoder.layers.{i}.*, decoder.norm.*.
const FULL_TRANSFORMER_SIG = ['d_model', 'nhead', 'num_encoder_layers', 'num_decoder_layers', 'dim_feedforward', 'dropout', 'activation',
  'custom_encoder', 'custom_decoder', 'layer_norm_eps', 'batch_first', 'norm_first', 'bias', 'device', 'dtype'];

function fullTransformer(a: Args): ParamSpec[] | UnknownValue {
  if ((a.custom_encoder !== undefined && a.custom_encoder !== null) || (a.custom_decoder !== undefined && a.custom_decoder !== null)) {
    return unk('nn.Transformer with custom_encoder / custom_decoder: the custom modules are not followed');
  }
  const ne = a.num_encoder_layers === undefined ? 6 : int(a, 'num_encoder_layers');
  const nd = a.num_decoder_layers === undefined ? 6 : int(a, 'num_decoder_layers');
  if (ne === undefined || nd === undefined) return unk('num_encoder_layers / num_decoder_layers not known');
  const layerArgs: Args = {
    d_model: a.d_model === undefined ? 512 : a.d_model, nhead: a.nhead === undefined ? 8 : a.nhead,
    dim_feedforward: a.dim_feedforward, bias: a.bias, dtype: a.dtype,
  };
  const enc = transformerLayer(layerArgs, false);
  if (isUnknown(enc)) return enc;
  const dec = transformerLayer(layerArgs, true);
  if (isUnknown(dec)) return dec;
  const dm = layerArgs.d_model as number;
  const d = dt(a.dtype);
  const norm = flag(a.bias, true) ? [p('weight', [dm], d, 'ones'), p('bias', [dm], d, 'zeros')] : [p('weight', [dm], d, 'ones')];
  const out: ParamSpec[] = [];
  for (let i = 0; i < ne; i++) out.push(...under(`encoder.layers.${i}`, enc));
  out.push(...under('encoder.norm', norm));
  for (let i = 0; i < nd; i++) out.push(...under(`decoder.layers.${i}`, dec));
  out.push(...under('decoder.norm', norm));
  return out;
}

/**
 * Names that code probes with `hasattr(torch..., name)` to detect a feature, with
 * the release that introduced them; hasattr is answered from the pinned torch.
 */
export const TORCH_API_SINCE: Record<string, { version: string; citation: string }> = {
  'torch.nn.functional.scaled_dot_product_attention': { version: '2.0', citation: 'added in PyTorch 2.0 (release notes, beta feature); hasattr is False on torch 1.13 (checked by test/analysis/torch_modules.test.ts)' },
  'torch.compile': { version: '2.0', citation: 'added in PyTorch 2.0 (release notes); absent from torch 1.13' },
  'torch.nn.RMSNorm': { version: '2.4', citation: 'added in PyTorch 2.4 (torch/nn/modules/normalization.py RMSNorm; absent from 2.3)' },
};

/** Compares dotted release numbers numerically ('2.1.0' ≥ '2.0'); pre-release tags after the numbers are ignored. */
export function versionAtLeast(v: string, min: string): boolean {
  const parse = (x: string) => (/^\d+(?:\.\d+)*/.exec(x.trim())?.[0] ?? '0').split('.').map(Number);
  const a = parse(v);
  const b = parse(min);
  for (let i = 0; i < b.length; i++) {
    const x = a[i] ?? 0;
    if (x !== b[i]) return x > b[i];
  }
  return true;
}

// ---------------------------------------------------------------------------

export const TORCH_LAYERS: LayerEntry[] = [
  {
    names: names('Linear', 'linear'),
    framework: 'torch',
    citation: `torch/nn/modules/linear.py (${V}) Linear.__init__: weight (out_features, in_features), bias (out_features)`,
    signature: ['in_features', 'out_features', 'bias', 'device', 'dtype'],
    defaults: { bias: true },
    params: (a) => {
      const i = int(a, 'in_features');
      const o = int(a, 'out_features');
      if (i === undefined || o === undefined) return unk('in_features / out_features not known');
      return linearParams(i, o, flag(a.bias, true), dt(a.dtype));
    },
    output: (a, input) => (int(a, 'out_features') !== undefined ? lastDimOut(input, a.out_features as number) : unk('out_features not known')),
  },
  {
    // LazyLinear's in_features is taken from the first input (linear.py LazyLinear.initialize_parameters).
    names: names('LazyLinear', 'linear'),
    framework: 'torch',
    citation: `torch/nn/modules/linear.py (${V}) LazyLinear: in_features = input.shape[-1] at the first call`,
    signature: ['out_features', 'bias', 'device', 'dtype'],
    defaults: { bias: true },
    params: (a, input) => {
      const o = int(a, 'out_features');
      const i = input?.shape[input.shape.length - 1];
      if (o === undefined) return unk('out_features not known');
      if (typeof i !== 'number') return unk('LazyLinear takes in_features from the first input, which is not known here');
      return linearParams(i, o, flag(a.bias, true), dt(a.dtype));
    },
    output: (a, input) => (int(a, 'out_features') !== undefined ? lastDimOut(input, a.out_features as number) : unk('out_features not known')),
  },
  {
    names: names('Bilinear', 'linear'),
    framework: 'torch',
    citation: `torch/nn/modules/linear.py (${V}) Bilinear.__init__: weight (out_features, in1_features, in2_features), bias (out_features)`,
    signature: ['in1_features', 'in2_features', 'out_features', 'bias', 'device', 'dtype'],
    defaults: { bias: true },
    params: (a) => {
      const i1 = int(a, 'in1_features');
      const i2 = int(a, 'in2_features');
      const o = int(a, 'out_features');
      if (i1 === undefined || i2 === undefined || o === undefined) return unk('in1_features / in2_features / out_features not known');
      const d = dt(a.dtype);
      const s = [p('weight', [o, i1, i2], d)];
      if (flag(a.bias, true)) s.push(p('bias', [o], d));
      return s;
    },
  },
  {
    names: names('Embedding', 'sparse'),
    framework: 'torch',
    citation: `torch/nn/modules/sparse.py (${V}) Embedding.__init__: weight (num_embeddings, embedding_dim), or the given _weight`,
    signature: ['num_embeddings', 'embedding_dim', 'padding_idx', 'max_norm', 'norm_type', 'scale_grad_by_freq', 'sparse', '_weight', '_freeze', 'device', 'dtype'],
    defaults: { padding_idx: null, max_norm: null, norm_type: 2.0, scale_grad_by_freq: false, sparse: false, _weight: null, _freeze: false },
    params: (a) => embeddingParams(a),
    output: (a, input) => (int(a, 'embedding_dim') !== undefined
      ? { kind: 'array', shape: [...input.shape, a.embedding_dim as number], dtype: dt(a.dtype) }
      : unk('embedding_dim not known')),
  },
  {
    names: names('EmbeddingBag', 'sparse'),
    framework: 'torch',
    citation: `torch/nn/modules/sparse.py (${V}) EmbeddingBag.__init__: weight (num_embeddings, embedding_dim), or the given _weight`,
    signature: ['num_embeddings', 'embedding_dim', 'max_norm', 'norm_type', 'scale_grad_by_freq', 'mode', 'sparse', '_weight', 'include_last_offset', 'padding_idx', 'device', 'dtype'],
    defaults: { max_norm: null, norm_type: 2.0, scale_grad_by_freq: false, mode: 'mean', sparse: false, _weight: null, include_last_offset: false, padding_idx: null },
    params: (a) => embeddingParams(a),
  },
  convEntry(1, false), convEntry(2, false), convEntry(3, false),
  convEntry(1, true), convEntry(2, true), convEntry(3, true),
  {
    names: names('LayerNorm', 'normalization'),
    framework: 'torch',
    citation: `torch/nn/modules/normalization.py (${V}) LayerNorm.__init__: weight ones / bias zeros of normalized_shape when elementwise_affine (bias= since 2.1)`,
    signature: ['normalized_shape', 'eps', 'elementwise_affine', 'bias', 'device', 'dtype'],
    defaults: { eps: 1e-5, elementwise_affine: true, bias: true },
    params: (a) => {
      const s = normShape(a.normalized_shape);
      if (!s) return unk('normalized_shape not known');
      if (!flag(a.elementwise_affine, true)) return [];
      const d = dt(a.dtype);
      const out = [p('weight', s, d, 'ones')];
      if (flag(a.bias, true)) out.push(p('bias', s, d, 'zeros'));
      return out;
    },
    output: (_a, input) => input,
  },
  {
    names: names('RMSNorm', 'normalization'),
    framework: 'torch',
    citation: 'torch/nn/modules/normalization.py (PyTorch 2.4, where RMSNorm was added) RMSNorm.__init__: weight ones of normalized_shape when elementwise_affine',
    signature: ['normalized_shape', 'eps', 'elementwise_affine', 'device', 'dtype'],
    defaults: { eps: null, elementwise_affine: true },
    params: (a) => {
      const s = normShape(a.normalized_shape);
      if (!s) return unk('normalized_shape not known');
      return flag(a.elementwise_affine, true) ? [p('weight', s, dt(a.dtype), 'ones')] : [];
    },
    output: (_a, input) => input,
  },
  {
    names: names('GroupNorm', 'normalization'),
    framework: 'torch',
    citation: `torch/nn/modules/normalization.py (${V}) GroupNorm.__init__: weight ones / bias zeros (num_channels) when affine`,
    signature: ['num_groups', 'num_channels', 'eps', 'affine', 'device', 'dtype'],
    defaults: { eps: 1e-5, affine: true },
    params: (a) => {
      const g = int(a, 'num_groups');
      const c = int(a, 'num_channels');
      if (g === undefined || c === undefined) return unk('num_groups / num_channels not known');
      if (g <= 0 || c % g !== 0) return unk(`num_channels must be divisible by num_groups (${c}, ${g}); PyTorch raises ValueError`);
      const d = dt(a.dtype);
      return flag(a.affine, true) ? [p('weight', [c], d, 'ones'), p('bias', [c], d, 'zeros')] : [];
    },
    output: (_a, input) => input,
  },
  normBase('BatchNorm1d', 'batchnorm', true, true),
  normBase('BatchNorm2d', 'batchnorm', true, true),
  normBase('BatchNorm3d', 'batchnorm', true, true),
  normBase('SyncBatchNorm', 'batchnorm', true, true),
  // The private bases user norms derive from (class SyncBN(_BatchNorm)): batchnorm.py _NormBase /
  // _BatchNorm.__init__(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True).
  normBase('_BatchNorm', 'batchnorm', true, true),
  normBase('_NormBase', 'batchnorm', true, true),
  normBase('InstanceNorm1d', 'instancenorm', false, false),
  normBase('InstanceNorm2d', 'instancenorm', false, false),
  normBase('InstanceNorm3d', 'instancenorm', false, false),
  {
    names: names('PReLU', 'activation'),
    framework: 'torch',
    citation: `torch/nn/modules/activation.py (${V}) PReLU.__init__: weight (num_parameters,) filled with init`,
    signature: ['num_parameters', 'init', 'device', 'dtype'],
    defaults: { num_parameters: 1, init: 0.25 },
    params: (a) => {
      const n = a.num_parameters === undefined ? 1 : int(a, 'num_parameters');
      return n === undefined ? unk('num_parameters not known') : [p('weight', [n], dt(a.dtype), 'constant')];
    },
    output: (_a, input) => input,
  },
  {
    names: names('MultiheadAttention', 'activation'),
    framework: 'torch',
    citation: `torch/nn/modules/activation.py (${V}) MultiheadAttention.__init__`,
    signature: MHA_SIG,
    defaults: { dropout: 0, bias: true, add_bias_kv: false, add_zero_attn: false, kdim: null, vdim: null, batch_first: false },
    params: mhaParams,
  },
  rnnEntry('RNN', 1), rnnEntry('LSTM', 4), rnnEntry('GRU', 3),
  cellEntry('RNNCell', 1), cellEntry('LSTMCell', 4), cellEntry('GRUCell', 3),
  {
    names: names('TransformerEncoderLayer', 'transformer'),
    framework: 'torch',
    citation: `torch/nn/modules/transformer.py (${V}) TransformerEncoderLayer.__init__`,
    signature: TRANSFORMER_SIG,
    defaults: { dim_feedforward: 2048, dropout: 0.1, layer_norm_eps: 1e-5, batch_first: false, norm_first: false, bias: true },
    params: (a) => transformerLayer(a, false),
  },
  {
    names: names('TransformerDecoderLayer', 'transformer'),
    framework: 'torch',
    citation: `torch/nn/modules/transformer.py (${V}) TransformerDecoderLayer.__init__`,
    signature: TRANSFORMER_SIG,
    defaults: { dim_feedforward: 2048, dropout: 0.1, layer_norm_eps: 1e-5, batch_first: false, norm_first: false, bias: true },
    params: (a) => transformerLayer(a, true),
  },
  {
    names: names('Transformer', 'transformer'),
    framework: 'torch',
    citation: `torch/nn/modules/transformer.py (${V}) Transformer.__init__: TransformerEncoder/Decoder stacks of cloned layers, each with a final LayerNorm`,
    signature: FULL_TRANSFORMER_SIG,
    defaults: { d_model: 512, nhead: 8, num_encoder_layers: 6, num_decoder_layers: 6, dim_feedforward: 2048, dropout: 0.1, custom_encoder: null, custom_decoder: null, layer_norm_eps: 1e-5, batch_first: false, norm_first: false, bias: true },
    params: fullTransformer,
  },
  // Modules without parameters: listed so the interpreter knows they cost nothing.
  // Elementwise: the output has the input's shape and dtype (torch/nn/modules/activation.py forward).
  ...['ReLU', 'ReLU6', 'LeakyReLU', 'ELU', 'SELU', 'CELU', 'GELU', 'SiLU', 'Mish', 'Sigmoid', 'Tanh', 'Softplus', 'Softsign',
    'Hardtanh', 'Hardswish', 'Hardsigmoid', 'LogSigmoid', 'Softmax', 'LogSoftmax', 'Softmin', 'Threshold', 'Tanhshrink',
    'Softshrink', 'Hardshrink'].map((n) => ({ ...none(n, 'activation'), output: (_a: Args, input: ArrayValue) => input })),
  none('GLU', 'activation'),
  // _DropoutNd.__init__(self, p: float = 0.5, inplace: bool = False) (torch/nn/modules/dropout.py): p decides whether masks are kept in training.
  ...['Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'AlphaDropout'].map((n) => ({ ...none(n, 'dropout', ['p', 'inplace']), defaults: { p: 0.5, inplace: false }, output: (_a: Args, input: ArrayValue) => input })),
  // _MaxPoolNd / _AvgPoolNd (torch/nn/modules/pooling.py): out = floor((h + 2p − d·(k − 1) − 1) / s + 1), stride defaults to kernel_size.
  ...([['MaxPool1d', 1], ['MaxPool2d', 2], ['MaxPool3d', 3], ['AvgPool1d', 1], ['AvgPool2d', 2], ['AvgPool3d', 3]] as const).map(([n, d]) => ({
    ...none(n, 'pooling', ['kernel_size', 'stride', 'padding', n.startsWith('Max') ? 'dilation' : 'ceil_mode']),
    defaults: { stride: null, padding: 0, dilation: 1, ceil_mode: false },
    output: (a: Args, input: ArrayValue) => poolOutput(a, input, d),
  })),
  ...([['AdaptiveAvgPool1d', 1], ['AdaptiveAvgPool2d', 2], ['AdaptiveAvgPool3d', 3], ['AdaptiveMaxPool1d', 1], ['AdaptiveMaxPool2d', 2], ['AdaptiveMaxPool3d', 3]] as const).map(([n, d]) => ({
    ...none(n, 'pooling', ['output_size']),
    output: (a: Args, input: ArrayValue): ArrayValue | UnknownValue => {
      const o = ntuple(a.output_size, d);
      if (!o || input.shape.length < d + 1) return unk('output_size not known');
      return { kind: 'array', shape: [...input.shape.slice(0, input.shape.length - d), ...o], dtype: input.dtype };
    },
  })),
  ...['LPPool1d', 'LPPool2d'].map((n) => none(n, 'pooling')),
  { ...none('Identity', 'linear'), output: (_a: Args, input: ArrayValue) => input }, none('Flatten', 'flatten'), none('Unflatten', 'flatten'),
  none('LocalResponseNorm', 'normalization'), none('Upsample', 'upsampling'),
  // PixelShuffle(r) / PixelUnshuffle(r) (torch/nn/modules/pixelshuffle.py): (N, C·r², H, W) ↔ (N, C, H·r, W·r), no parameters.
  ...(['PixelShuffle', 'PixelUnshuffle'] as const).map((n) => ({
    ...none(n, 'pixelshuffle', [n === 'PixelShuffle' ? 'upscale_factor' : 'downscale_factor']),
    output: (a: Args, input: ArrayValue): ArrayValue | UnknownValue => {
      const r = a[n === 'PixelShuffle' ? 'upscale_factor' : 'downscale_factor'];
      const [c, h, w] = input.shape.slice(-3);
      if (typeof r !== 'number' || input.shape.length < 3 || typeof c !== 'number' || typeof h !== 'number' || typeof w !== 'number') return unk(`${n}: factor or input not known`);
      const lead = input.shape.slice(0, -3);
      return { kind: 'array', shape: n === 'PixelShuffle' ? [...lead, c / (r * r), h * r, w * r] : [...lead, c * r * r, h / r, w / r], dtype: input.dtype };
    },
  })),
  // Padding layers (torch/nn/modules/padding.py): no parameters; `padding` an int pads each of the last d dimensions
  // on both sides, a 2d-tuple (left, right, top, bottom, front, back) pads the last dimension first (F.pad).
  ...(['ZeroPad', 'ConstantPad', 'ReflectionPad', 'ReplicationPad', 'CircularPad'] as const).flatMap((kind) => ([1, 2, 3] as const).map((d) => ({
    ...none(`${kind}${d}d`, 'padding', ['padding']),
    output: (a: Args, input: ArrayValue): ArrayValue | UnknownValue => {
      const p = a.padding;
      const pads = typeof p === 'number' ? Array.from({ length: 2 * d }, () => p) : Array.isArray(p) && p.length === 2 * d && p.every((x) => typeof x === 'number') ? p as number[] : undefined;
      if (!pads || input.shape.length < d) return unk('padding not known');
      const shape = [...input.shape];
      for (let k = 0; k < d; k++) {
        const at = shape.length - 1 - k;
        const dim = shape[at];
        shape[at] = typeof dim === 'number' ? dim + pads[2 * k] + pads[2 * k + 1] : dim;
      }
      return { kind: 'array', shape, dtype: input.dtype };
    },
  }))),
  // Loss modules (torch/nn/modules/loss.py): no parameters; a `weight` / `pos_weight` given to a weighted loss is
  // registered as a buffer that is the caller's tensor (register_buffer stores the reference, no copy).
  ...['L1Loss', 'MSELoss', 'CrossEntropyLoss', 'CTCLoss', 'NLLLoss', 'PoissonNLLLoss', 'GaussianNLLLoss', 'KLDivLoss', 'BCELoss',
    'BCEWithLogitsLoss', 'MarginRankingLoss', 'HingeEmbeddingLoss', 'MultiLabelMarginLoss', 'HuberLoss', 'SmoothL1Loss', 'SoftMarginLoss',
    'MultiLabelSoftMarginLoss', 'CosineEmbeddingLoss', 'MultiMarginLoss', 'TripletMarginLoss', 'TripletMarginWithDistanceLoss'].map((n) => none(n, 'loss')),
];

/** Embedding / EmbeddingBag: the weight is `_weight` when given, else (num_embeddings, embedding_dim). */
function embeddingParams(a: Args): ParamSpec[] | UnknownValue {
  const w = a._weight;
  if (w && typeof w === 'object' && !Array.isArray(w) && w.kind === 'array') return [p('weight', w.shape, w.dtype, 'constant')];
  const n = int(a, 'num_embeddings');
  const e = int(a, 'embedding_dim');
  if (n === undefined || e === undefined) return unk('num_embeddings / embedding_dim not known');
  return [p('weight', [n, e], dt(a.dtype))];
}

/**
 * Attributes a built layer exposes that code reads back (`model.fc.in_features`,
 * `self.conv.kernel_size[0]`): the constructor arguments PyTorch stores under
 * the same name, normalised as its __init__ does: conv.py _ConvNd stores
 * kernel_size / stride / dilation / output_padding (and non-string padding) as
 * tuples via _ntuple; normalization.py LayerNorm stores normalized_shape as a
 * tuple; activation.py MultiheadAttention sets kdim / vdim to embed_dim when
 * None and head_dim = embed_dim // num_heads; sparse.py Embedding turns a
 * negative padding_idx into num_embeddings + padding_idx. An optional `bias` /
 * affine `weight` that was not created is None (register_parameter(name, None)).
 * Anything else: undefined (not known).
 */
const LAYER_ATTRS: Record<string, string[]> = {
  Linear: ['in_features', 'out_features'],
  Bilinear: ['in1_features', 'in2_features', 'out_features'],
  Embedding: ['num_embeddings', 'embedding_dim', 'padding_idx', 'max_norm', 'norm_type', 'scale_grad_by_freq', 'sparse'],
  EmbeddingBag: ['num_embeddings', 'embedding_dim', 'mode', 'padding_idx'],
  Conv: ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups', 'padding_mode', 'output_padding'],
  LayerNorm: ['normalized_shape', 'eps', 'elementwise_affine'],
  RMSNorm: ['normalized_shape', 'eps', 'elementwise_affine'],
  GroupNorm: ['num_groups', 'num_channels', 'eps', 'affine'],
  Norm: ['num_features', 'eps', 'momentum', 'affine', 'track_running_stats'],
  MultiheadAttention: ['embed_dim', 'num_heads', 'dropout', 'batch_first', 'kdim', 'vdim', 'head_dim'],
  RNN: ['input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout', 'bidirectional', 'proj_size', 'nonlinearity', 'mode'],
  Cell: ['input_size', 'hidden_size', 'bias'],
  Dropout: ['p'],
};

export function torchLayerAttr(entry: LayerEntry, a: Args, name: string, has: (n: string) => boolean): CatValue | undefined {
  const short = entry.names[0].split('.').pop()!;
  const family = /^Conv/.test(short) ? 'Conv'
    : /^(BatchNorm|SyncBatchNorm|InstanceNorm)/.test(short) ? 'Norm'
      : /^(RNN|LSTM|GRU)$/.test(short) ? 'RNN'
        : /Cell$/.test(short) ? 'Cell'
          : /^(Dropout|AlphaDropout)/.test(short) ? 'Dropout' : short;
  if ((name === 'bias' && entry.signature.includes('bias')) || (name === 'weight' && (entry.signature.includes('elementwise_affine') || entry.signature.includes('affine')))) {
    return has(name) ? undefined : null;
  }
  const list = LAYER_ATTRS[family];
  if (!list || !list.includes(name)) return undefined;
  const n = Number(/(\d)d$/.exec(short)?.[1] ?? 0);
  if (family === 'Conv' && ['kernel_size', 'stride', 'dilation', 'output_padding'].includes(name)) return ntuple(a[name] ?? (name === 'kernel_size' ? undefined : name === 'output_padding' ? 0 : 1), n);
  if (family === 'Conv' && name === 'padding') return typeof a.padding === 'string' ? a.padding : ntuple(a.padding ?? 0, n);
  if ((short === 'LayerNorm' || short === 'RMSNorm') && name === 'normalized_shape') return normShape(a.normalized_shape);
  if (family === 'MultiheadAttention') {
    const e = int(a, 'embed_dim');
    if ((name === 'kdim' || name === 'vdim') && (a[name] === null || a[name] === undefined)) return e;
    if (name === 'head_dim') { const h = int(a, 'num_heads'); return e !== undefined && h ? Math.floor(e / h) : undefined; }
  }
  if (family === 'Embedding' && name === 'padding_idx') {
    const p = a.padding_idx; const ne = int(a, 'num_embeddings');
    return typeof p === 'number' && p < 0 ? (ne === undefined ? undefined : ne + p) : p ?? null;
  }
  if (family === 'RNN' && name === 'mode') return short;
  const v = a[name];
  return v === undefined ? undefined : v;
}

/** Looks an entry up by any of its qualified names. */
export function torchLayer(name: string): LayerEntry | undefined {
  return TORCH_LAYERS.find((e) => e.names.includes(name));
}
