/**
 * Quantised loading: the bytes a quantised Linear layer's weight occupies,
 * quantisation constants included, and which layers are converted.
 *
 * - bitsandbytes 4-bit (`BitsAndBytesConfig(load_in_4bit=True)`): transformers replaces
 *   each Linear with `bnb.nn.Linear4bit` (transformers integrations/bitsandbytes.py
 *   `replace_with_bnb_linear`, blocksize left at Params4bit's default 64). bitsandbytes
 *   functional.py `quantize_4bit` (v0.45–0.50) packs two 4-bit codes per byte
 *   (`(n + 1) // 2` uint8) and keeps one float32 `absmax` per 64-element block; with
 *   `bnb_4bit_use_double_quant` (`compress_statistics`) the absmax is itself quantised
 *   by `quantize_blockwise(absmax - offset, blocksize=256)`: one uint8 per block, a
 *   float32 absmax per 256 blocks and a float32 offset; the 256-entry dynamic code
 *   is one tensor shared by every layer (`name2qmap["dynamic"]`), so it is not counted
 *   per layer. Each QuantState also holds its 16-entry float32 nf4/fp4 code
 *   (`get_4bit_type`): 64 B per layer.
 * - bitsandbytes 8-bit LLM.int8 (`load_in_8bit=True`): `bnb.nn.Linear8bitLt` with
 *   `Int8Params`: the int8 weight (1 B per parameter) and `SCB`, one float32 scale
 *   per output row (bitsandbytes nn/modules.py Int8Params `_quantize`,
 *   functional.py `int8_vectorwise_quant`).
 * - Both keep the output layer and tied weights unconverted (transformers
 *   integrations/bitsandbytes.py `get_keys_to_not_convert`) and anything in
 *   `llm_int8_skip_modules`; embeddings and norms are not Linear layers, so they
 *   stay in the load dtype, as do the Linear biases.
 * - GPTQ (auto-gptq nn_modules/qlinear/qlinear_cuda_old.py and the exllama kernels'
 *   QuantLinear, the layout transformers' GPTQ integration loads): qweight int32
 *   [in·bits/32, out], qzeros int32 [groups, out·bits/32], scales float16 [groups, out],
 *   g_idx int32 [in], groups = ceil(in / group_size) (one group when group_size is -1).
 * - AWQ (autoawq awq/modules/linear/gemm.py WQLinear_GEMM): qweight int32
 *   [in, out·bits/32], qzeros int32 [in / group_size, out·bits/32], scales float16
 *   [in / group_size, out].
 *
 * Checked against bitsandbytes itself (a tiny model loaded with
 * BitsAndBytesConfig on the CPU, every parameter and quantisation-state tensor
 * counted): test/analysis/quantization.test.ts.
 */
import type { Value } from '../../interp/values';
import type { LinearModule } from './linears';

export type QuantMethod = 'bnb-4bit' | 'bnb-8bit' | 'gptq' | 'awq';

export interface QuantSpec {
  method: QuantMethod;
  /** 4-bit: nf4 or fp4; GPTQ/AWQ: the bits. */
  quantType?: string;
  doubleQuant?: boolean;
  bits?: number;
  groupSize?: number;
  /** Module names (suffixes) left in the load dtype. */
  skip: string[];
  /** bnb_4bit_compute_dtype as written (the matmul dtype; storage of the rest follows the load dtype). */
  computeDtype?: string;
  /** How the call or the checkpoint asked for it. */
  how: string;
}

function kwOf(v: Value | undefined): Map<string, Value> | undefined {
  if (v?.t === 'extern') return v.kw;
  if (v?.t === 'dict') return new Map(v.keys.map((k, i) => [k.t === 'str' ? k.v : '', v.vals[i]]));
  return undefined;
}
const bool = (v: Value | undefined) => (v?.t === 'bool' ? v.v : undefined);
const str = (v: Value | undefined) => (v?.t === 'str' ? v.v : undefined);
const strList = (v: Value | undefined): string[] => (v?.t === 'list' || v?.t === 'tuple' ? v.items.flatMap((x) => (x.t === 'str' ? [x.v] : [])) : []);
const dtypeText = (v: Value | undefined) => (v?.t === 'dtype' ? v.dtype : v?.t === 'str' ? v.v : undefined);

/** The quantisation a from_pretrained call asks for, from its keywords; `{ why }` when it is asked for but not readable. */
export function quantFromCall(kw: Map<string, Value>): QuantSpec | { why: string } | undefined {
  const qc = kw.get('quantization_config');
  // A quantization_config given with load_in_4bit / load_in_8bit: the config decides (transformers 4.3x
  // modeling_utils.py `from_pretrained`: `elif quantization_method_from_args == BITS_AND_BYTES: load_in_8bit =
  // quantization_config.load_in_8bit; load_in_4bit = quantization_config.load_in_4bit`; later versions refuse the
  // pair with a ValueError). Reading the bare keyword first dropped the config's quant type and double quantisation.
  if (!qc || qc.t === 'none') {
    if (bool(kw.get('load_in_4bit'))) return { method: 'bnb-4bit', quantType: 'fp4', doubleQuant: false, skip: [], how: 'load_in_4bit=True' };
    if (bool(kw.get('load_in_8bit'))) return { method: 'bnb-8bit', skip: [], how: 'load_in_8bit=True' };
    return undefined;
  }
  const q = kwOf(qc);
  if (!q) return { why: 'quantization_config is not a literal BitsAndBytesConfig / dict' };
  const skip = strList(q.get('llm_int8_skip_modules'));
  if (bool(q.get('load_in_4bit'))) {
    // BitsAndBytesConfig defaults (transformers utils/quantization_config.py): bnb_4bit_quant_type "fp4", no double quant.
    return { method: 'bnb-4bit', quantType: str(q.get('bnb_4bit_quant_type')) ?? 'fp4', doubleQuant: bool(q.get('bnb_4bit_use_double_quant')) ?? false, skip, computeDtype: dtypeText(q.get('bnb_4bit_compute_dtype')), how: 'BitsAndBytesConfig(load_in_4bit=True)' };
  }
  if (bool(q.get('load_in_8bit'))) return { method: 'bnb-8bit', skip, how: 'BitsAndBytesConfig(load_in_8bit=True)' };
  return fromConfigDict(q) ?? { why: 'quantization_config asks for neither load_in_4bit nor load_in_8bit as literals' };
}

/** config.json `quantization_config` of a pre-quantised checkpoint (GPTQ / AWQ / bitsandbytes). */
export function quantFromConfig(c: Record<string, unknown> | undefined): QuantSpec | { why: string } | undefined {
  const q = c?.quantization_config;
  if (!q || typeof q !== 'object') return undefined;
  const m = new Map<string, Value>();
  for (const [k, v] of Object.entries(q as Record<string, unknown>)) {
    if (typeof v === 'number') m.set(k, Number.isInteger(v) ? { t: 'int', v } : { t: 'float', v });
    else if (typeof v === 'string') m.set(k, { t: 'str', v });
    else if (typeof v === 'boolean') m.set(k, { t: 'bool', v });
    else if (Array.isArray(v)) m.set(k, { t: 'list', items: v.filter((x) => typeof x === 'string').map((x) => ({ t: 'str', v: x as string })) });
  }
  const method = str(m.get('quant_method'));
  if (method === 'bitsandbytes') return quantFromCall(new Map([['quantization_config', { t: 'dict', keys: [...m.keys()].map((k) => ({ t: 'str', v: k })), vals: [...m.values()] } as Value]])) as QuantSpec | { why: string };
  return fromConfigDict(m) ?? { why: `config.json quantization_config quant_method "${method ?? '?'}" is not modelled (bitsandbytes, gptq and awq are)` };
}

function fromConfigDict(q: Map<string, Value>): QuantSpec | { why: string } | undefined {
  const method = str(q.get('quant_method'));
  if (method !== 'gptq' && method !== 'awq') return undefined;
  const bits = q.get('bits') ?? q.get('w_bit');
  const group = q.get('group_size') ?? q.get('q_group_size');
  if (bits?.t !== 'int' || group?.t !== 'int') return { why: `${method}: bits / group_size are not literal integers` };
  return { method, bits: bits.v, groupSize: group.v, skip: strList(q.get('modules_to_not_convert')), how: `quantization_config quant_method "${method}" (${bits.v}-bit, group_size ${group.v})` };
}

/** Whether a Linear layer is converted: not the output layer, not skipped (suffix match, as get_keys_to_not_convert / modules_to_not_convert). */
export function isQuantized(l: LinearModule, spec: QuantSpec, outputLayer: string | undefined): boolean {
  if (outputLayer && l.name === outputLayer) return false;
  return !spec.skip.some((s) => l.name === s || l.name.endsWith(`.${s}`) || l.name.split('.').includes(s));
}

/** Bytes of one quantised Linear weight (in × out), constants included; the bias is not part of it. */
export function quantizedWeightBytes(l: LinearModule, spec: QuantSpec): number {
  const n = l.in * l.out;
  switch (spec.method) {
    case 'bnb-4bit': {
      const blocks = Math.ceil(n / 64);
      const packed = Math.floor((n + 1) / 2);
      const absmax = spec.doubleQuant ? blocks + 4 * Math.ceil(blocks / 256) + 4 : 4 * blocks;
      return packed + absmax + 16 * 4;
    }
    case 'bnb-8bit':
      return n + 4 * l.out;
    case 'gptq': {
      const b = spec.bits!;
      const groups = spec.groupSize! > 0 ? Math.ceil(l.in / spec.groupSize!) : 1;
      return 4 * Math.ceil((l.in * b) / 32) * l.out + 4 * groups * Math.ceil((l.out * b) / 32) + 2 * groups * l.out + 4 * l.in;
    }
    case 'awq': {
      const b = spec.bits!;
      const groups = Math.ceil(l.in / spec.groupSize!);
      return 4 * l.in * Math.ceil((l.out * b) / 32) + 4 * groups * Math.ceil((l.out * b) / 32) + 2 * groups * l.out;
    }
  }
}

export function describeQuant(spec: QuantSpec): string {
  switch (spec.method) {
    case 'bnb-4bit': return `bitsandbytes 4-bit ${spec.quantType}${spec.doubleQuant ? ', double quantisation' : ''}: 0.5 B per weight + ${spec.doubleQuant ? 'a uint8 absmax per 64 weights (+ a float32 per 256 blocks)' : 'a float32 absmax per 64 weights'}`;
    case 'bnb-8bit': return 'bitsandbytes LLM.int8: 1 B per weight + a float32 scale per output row';
    case 'gptq': return `GPTQ ${spec.bits}-bit, group_size ${spec.groupSize}: qweight + qzeros + float16 scales + g_idx`;
    case 'awq': return `AWQ ${spec.bits}-bit, group_size ${spec.groupSize}: qweight + qzeros + float16 scales`;
  }
}
