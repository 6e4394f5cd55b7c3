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
