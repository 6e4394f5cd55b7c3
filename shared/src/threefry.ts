/**
 * Temporaries of JAX's Threefry random-bit generation inside a jitted,
 * sharded computation (jax/_src/prng.py at jax-v0.4.30).
 * - Original implementation (`jax_threefry_partitionable=False`, the default
 *   before jax 0.5.0): `max_count = ceil(bit_width·n/32)` counters are made
 *   with an iota and hashed; the SPMD partitioner cannot split this, so each
 *   device computes the bits for the whole array and keeps its shard. Up to
 *   2^32−1 counters the iota, hash and conversion fuse into one full-size
 *   uint32 buffer; above it the counters are split into blocks mapped with
 *   `vmap` over sub-keys (`u32[2, 2^31]` halves), hashed, and concatenated:
 *   counter halves + hashed halves + the concatenation = 3 full-size uint32
 *   buffers. For a 2^33-element float32 kernel that is 96 GiB on every
 *   device, the figure XLA's buffer assignment shows in google/flax#3701.
 * - Partitionable implementation: counters have the output's shape and are
 *   sharded like it, so each device generates only its shard's bits.
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
    const b = Math.ceil(maxCount / Math.max(1, i.shards)) * 4;
    return { bytesPerDevice: b, formula: `ceil(${maxCount} / ${i.shards}) counters × 4 B (bits of this device's shard)`, citation };
  }
  if (i.shards <= 1 && i.jitted && maxCount < BLOCK) return { bytesPerDevice: 0, formula: 'fused into the output', citation };
  const copies = maxCount >= BLOCK ? 3 : 1;
  return {
    bytesPerDevice: copies * maxCount * 4,
    formula: `${copies} × ${maxCount} counters × 4 B (${copies === 3 ? 'counter halves, hashed halves and their concatenation' : 'the full uint32 bits buffer'}, on every device)`,
    citation,
  };
}
