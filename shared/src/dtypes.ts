/**
 * Element sizes and dtype names. Sizes are the storage sizes of the types
 * (IEEE 754 binary16/32/64, bfloat16 = 16 bits; int4 packs two per byte as
 * bitsandbytes and torch.uint4 do).
 */
import type { DType } from './facts';

const BYTES: Record<DType, number> = {
  float64: 8, float32: 4, float16: 2, bfloat16: 2, float8: 1,
  int64: 8, int32: 4, int16: 2, int8: 1, uint32: 4, uint16: 2, uint8: 1, bool: 1,
  complex64: 8, int4: 0.5,
};

export function dtypeBytes(d: DType): number {
  return BYTES[d];
}

const NAMES: Record<string, DType> = {
  float64: 'float64', f64: 'float64', double: 'float64', fp64: 'float64',
  float32: 'float32', f32: 'float32', float: 'float32', fp32: 'float32',
  float16: 'float16', f16: 'float16', half: 'float16', fp16: 'float16',
  bfloat16: 'bfloat16', bf16: 'bfloat16',
  float8: 'float8', fp8: 'float8', float8_e4m3fn: 'float8', float8_e5m2: 'float8',
  int64: 'int64', long: 'int64', int32: 'int32', int: 'int32', int16: 'int16', int8: 'int8',
  uint32: 'uint32', uint16: 'uint16', uint8: 'uint8', bool: 'bool', bool_: 'bool', complex64: 'complex64', int4: 'int4',
};

/** Accepts 'float16', 'fp16', 'torch.float16', 'jnp.bfloat16', 'np.float32'... */
export function parseDType(name: string): DType | undefined {
  const short = name.trim().replace(/^['"]|['"]$/g, '').split('.').pop()!.toLowerCase();
  return NAMES[short];
}
