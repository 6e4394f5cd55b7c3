/**
 * Temporaries of JAX's Threefry random-bit generation inside a jitted,
 * sharded computation (jax/_src/prng.py at jax-v0.4.30).
 * - Original implementation (`jax_threefry_partitionable=False`, the default
 *   before jax 0.5.0): `max_count = ceil(bit_width·n/32)` counters are made
 *   with an iota and hashed; the flat counters do not follow the output's
 *   sharding, so each device ends up holding the bits for the whole array
 *   and keeps its shard (on 8 CPU devices XLA's SPMD partitioner hashes a
 *   slice per device and all-gathers the full uint32 bits: test/truth,
 *   docs/accuracy.md "Sharded init on 8 devices"). Up to
 *   2^32−1 counters the iota, hash and conversion fuse into one full-size
 *   uint32 buffer; above it the counters are split into blocks mapped with
 *   `vmap` over sub-keys (`u32[2, 2^31]` halves), hashed, and concatenated:
 *   counter halves + hashed halves + the concatenation = 3 full-size uint32
 *   buffers. For a 2^33-element float32 kernel that is 96 GiB on every
 *   device, the figure XLA's buffer assignment shows in google/flax#3701.
 * - Partitionable implementation (`_threefry_random_bits_partitionable`,
 *   jax/_src/random/threefry2x32.py, jax 0.10.2): counters have the output's
 *   shape (`iota_2x32_shape`) and are sharded like it, so each device hashes
 *   only its shard's counters, and every step from the counters to the sample
 *   (iota, the Threefry rounds, `bits1 ^ bits2`, the float conversion and the
 *   initializer's arithmetic) is elementwise. On GPU and TPU `threefry2x32` is
 *   lowered to plain HLO (`_threefry2x32_lowering_rule`; CUDA/ROCm fall back to
 *   it while `jax_threefry_gpu_kernel_lowering` is off, its default: "lower
 *   threefry PRNG operations to a kernel implementation. This makes compile
 *   times faster at a potential runtime memory cost", jax/_src/config.py,
 *   jax 0.10.2), which XLA fuses into the sample: no bits buffer is left.
 *   Measured (test/truth, 8 CPU devices, the straight-line lowering registered
 *   for the CPU): a jitted, sharded Flax init has no temporaries at all, its
 *   peak is its output shards. Only the CPU's own rolled-loop lowering keeps
 *   loop state there (3 × 4 B per element of the shard), not an accelerator's.
 */
export interface ThreefryInput {
  elements: number;
  bitWidth: number;
  partitionable: boolean;
  shards: number;
  jitted: boolean;
}

const BLOCK = 2 ** 32 - 1;

export function threefryTemporaries(i: ThreefryInput): { bytesPerDevice: number; formula: string; citation: string } {
  const maxCount = Math.ceil((i.bitWidth * i.elements) / 32);
  const citation = 'jax/_src/prng.py (jax-v0.4.30) _threefry_random_bits_original / _partitionable; google/flax#3701';
  if (i.partitionable) {
    return {
      bytesPerDevice: 0, formula: `fused into the output (each device hashes only its shard's ceil(${maxCount} / ${i.shards}) counters, elementwise)`,
      citation: 'jax/_src/random/threefry2x32.py (jax 0.10.2) _threefry_random_bits_partitionable, _threefry2x32_lowering_rule; jax/_src/config.py jax_threefry_gpu_kernel_lowering; measured in test/truth (sharded init, accelerator lowering)',
    };
  }
  if (i.shards <= 1 && i.jitted && maxCount < BLOCK) return { bytesPerDevice: 0, formula: 'fused into the output', citation };
  const copies = maxCount >= BLOCK ? 3 : 1;
  return {
    bytesPerDevice: copies * maxCount * 4,
    formula: `${copies} × ${maxCount} counters × 4 B (${copies === 3 ? 'counter halves, hashed halves and their concatenation' : 'the full uint32 bits buffer'}, on every device)`,
    citation,
  };
}

/**
 * XLA temporaries on every device when a random draw is made whole inside a jitted call and then resharded
 * (a mesh with Explicit axes: an array made inside `jit` without an `out_sharding` of its own is replicated by
 * type, and `jax.sharding.reshard` — what flax NNX calls for a Variable with sharding metadata under an Explicit
 * mesh, flax/core/spmd.py `_apply_sharding`, flax 0.12.8 — slices each device's shard out of it).
 * What is left of the whole draw is what XLA does not fuse into the slice, measured with XLA's CPU compiler on
 * the straight-line Threefry lowering (test/truth `nnx_sharded_init`; ad hoc on 8 CPU devices, jax 0.10.2: one,
 * two and three 1024×8192 float32 kernels give 67.1, 134.2 and 201.3 MB of temporaries, the same through
 * `jax.random.normal`, `jax.random.truncated_normal`, `jax.nn.initializers.normal` and NNX's lecun_normal):
 * - `normal` and `truncated_normal` in float32: 2 × elements × 4 B. Both samplers end in `lax.erf_inv`
 *   (jax/_src/random/core.py `_normal_real`: `sqrt(2) * erf_inv(uniform(-1, 1))`; `_truncated_normal`:
 *   `sqrt2 * erf_inv(uniform(erf(lower/√2), erf(upper/√2)))`), lowered to `chlo.erf_inv` (jax/_src/lax/special.py),
 *   whose float32 expansion (Giles' approximation, openxla/xla xla/hlo/builder/lib/math.cc `ErfInv32`) computes
 *   `w = -log1p(-x²)` and picks, element by element, a polynomial in `w − 2.5` or in `sqrt(w) − 3`. XLA keeps
 *   `w` and `sqrt(w)` of the whole draw as two buffers (`multiply_log-plus-one_fusion`, `negate_sqrt_fusion` in
 *   the buffer assignment) that the slicing fusion reads; every draw's pair is alive at once (the total grows
 *   by the pair with each kernel).
 * - `uniform` in float32 and deterministic fills (zeros): nothing; the slice fuses into the draw (measured: 0 B).
 * - Any other dtype or sampler is not known: bfloat16 keeps one whole bfloat16 copy of a normal draw, float16
 *   two float32 buffers, a bfloat16 uniform draw one whole copy (measured, the same compiler): heuristics of the
 *   fusion pass, not one formula. Not measured on a GPU (XLA's GPU fusion passes differ).
 */
export function explicitReshardDrawTemporaries(i: { sampler: 'normal' | 'truncated_normal' | 'uniform' | 'none' | undefined; dtype: string; elements: number }):
  { bytesPerDevice: number; formula: string; citation: string } | { unknown: string } {
  const citation = 'jax/_src/random/core.py (jax 0.10.2) _normal_real, _truncated_normal → lax.erf_inv; openxla/xla xla/hlo/builder/lib/math.cc ErfInv32; XLA buffer assignment measured in test/truth (nnx_sharded_init)';
  if (i.sampler === 'none') return { bytesPerDevice: 0, formula: 'a deterministic fill: fused into the shard', citation: 'measured in test/truth (ad hoc: jnp.zeros resharded, 0 B of temporaries)' };
  if (i.sampler === undefined) return { unknown: 'the initializer\'s sampler is not known' };
  if (i.dtype !== 'float32') return { unknown: `a ${i.dtype} draw: what XLA keeps of it is not modelled (measured only for float32)` };
  if (i.sampler === 'uniform') return { bytesPerDevice: 0, formula: 'a float32 uniform draw: fused into the shard', citation: 'measured in test/truth (ad hoc: jax.random.uniform resharded, 0 B of temporaries)' };
  return {
    bytesPerDevice: 2 * i.elements * 4,
    formula: `2 × ${i.elements} elements × 4 B (erf_inv's w = −log1p(−x²) and sqrt(w) of the whole ${i.sampler} draw, on every device)`,
    citation,
  };
}
