/**
 * Initialiser catalogue: which initialisers draw random numbers (and so cost
 * Threefry bits and a full-size temporary in JAX) and which are factories
 * that must be called to produce the initialiser (`lecun_normal()`), for
 * jax.nn.initializers, its flax.linen.initializers re-export, and
 * haiku.initializers. Also flax's `nn.with_partitioning` wrapper.
 */
import type { InitValue } from '../interp/catalog-types';

export interface InitializerEntry {
  names: string[];
  citation: string;
  random: boolean;
  /** For factories like lecun_normal() that return an initializer. */
  factory: boolean;
}

// jax/_src/nn/initializers.py (jax v0.4.30): these names are functions that
// take hyper-parameters and return an `Initializer`; every one of them draws
// from jax.random (normal, uniform, truncated_normal, or orthogonal via QR of
// a normal draw). flax/linen/initializers.py (v0.8.5) re-exports them all.
const JAX_RANDOM_FACTORIES = [
  'lecun_normal', 'lecun_uniform', 'glorot_normal', 'glorot_uniform', 'xavier_normal', 'xavier_uniform',
  'he_normal', 'he_uniform', 'kaiming_normal', 'kaiming_uniform', 'normal', 'uniform', 'truncated_normal',
  'variance_scaling', 'orthogonal', 'delta_orthogonal',
];
const JAX_PREFIXES = ['jax.nn.initializers', 'flax.linen.initializers', 'flax.nnx.initializers'];
const HAIKU_PREFIXES = ['haiku.initializers'];

export const INITIALIZERS: InitializerEntry[] = [
  ...JAX_RANDOM_FACTORIES.map((n) => ({
    names: JAX_PREFIXES.map((p) => `${p}.${n}`),
    citation: `jax/_src/nn/initializers.py (jax v0.4.30) ${n}: returns an initializer drawing from jax.random`,
    random: true, factory: true,
  })),
  // `zeros` and `ones` are plain initializer functions (key, shape, dtype) in
  // jax/_src/nn/initializers.py; they are passed uncalled (bias_init=zeros).
  { names: JAX_PREFIXES.map((p) => `${p}.zeros`), citation: 'jax/_src/nn/initializers.py (jax v0.4.30) zeros: jnp.zeros(shape, dtype)', random: false, factory: false },
  { names: JAX_PREFIXES.map((p) => `${p}.ones`), citation: 'jax/_src/nn/initializers.py (jax v0.4.30) ones: jnp.ones(shape, dtype)', random: false, factory: false },
  // `constant(value)` is a factory returning a jnp.full initializer.
  { names: JAX_PREFIXES.map((p) => `${p}.constant`), citation: 'jax/_src/nn/initializers.py (jax v0.4.30) constant(value): jnp.full', random: false, factory: true },
  // flax/linen/initializers.py (v0.8.5) adds zeros_init() / ones_init(),
  // factories that return jax's zeros / ones.
  { names: ['flax.linen.initializers.zeros_init', 'flax.nnx.initializers.zeros_init'], citation: 'flax/linen/initializers.py (v0.8.5) zeros_init() returns jax zeros', random: false, factory: true },
  { names: ['flax.linen.initializers.ones_init', 'flax.nnx.initializers.ones_init'], citation: 'flax/linen/initializers.py (v0.8.5) ones_init() returns jax ones', random: false, factory: true },
  // haiku/_src/initializers.py (dm-haiku v0.0.12): initialisers are classes,
  // constructed with hyper-parameters and then called (shape, dtype); the
  // random ones call jax.random with hk.next_rng_key(). Identity is jnp.eye
  // based and Constant is jnp.broadcast_to; haiku has no Zeros/Ones classes
  // (hk.initializers.Constant(0.0) is the idiom).
  ...['TruncatedNormal', 'RandomNormal', 'RandomUniform', 'VarianceScaling', 'UniformScaling', 'Orthogonal'].map((n) => ({
    names: HAIKU_PREFIXES.map((p) => `${p}.${n}`),
    citation: `haiku/_src/initializers.py (dm-haiku v0.0.12) ${n}: draws with hk.next_rng_key()`,
    random: true, factory: true,
  })),
  ...['Constant', 'Identity'].map((n) => ({
    names: HAIKU_PREFIXES.map((p) => `${p}.${n}`),
    citation: `haiku/_src/initializers.py (dm-haiku v0.0.12) ${n}: deterministic, no rng key`,
    random: false, factory: true,
  })),
];

/**
 * flax.linen.with_partitioning(init_fn, names) (flax/linen/spmd.py, v0.8.5)
 * returns an initializer that calls `init_fn` unchanged and wraps the result
 * in `nn.Partitioned(value, names)`: the values (and so whether they are
 * random) are those of `init_fn`; only the logical axis names, one per
 * dimension of the parameter, are added.
 */
export function withPartitioning(init: InitValue, names: (string | null)[]): InitValue {
  return { ...init, partition: [...names] };
}

/**
 * How a parameter made by an initializer argument is filled, for ParamSpec
 * `init`: a known random initializer is 'random'; jax zeros / ones /
 * constant and haiku Constant map to their deterministic fills. A missing or
 * unrecognised argument falls back to the layer's documented default.
 */
export function initFill(v: unknown, fallback: 'random' | 'zeros' | 'ones'): 'random' | 'zeros' | 'ones' | 'constant' {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || (v as { kind?: string }).kind !== 'init') return fallback;
  const i = v as InitValue;
  if (i.random) return 'random';
  const last = i.name.split('.').pop() ?? '';
  if (last === 'zeros' || last === 'zeros_init') return 'zeros';
  if (last === 'ones' || last === 'ones_init') return 'ones';
  return 'constant';
}

/** The partition names carried by an initializer argument, if any. */
export function initPartition(v: unknown): (string | null)[] | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || (v as { kind?: string }).kind !== 'init') return undefined;
  return (v as InitValue).partition;
}

/**
 * The jax.random sampler a random initializer draws with, for the temporaries XLA keeps when the draw is
 * made whole and then resharded (phases/sharding.ts):
 * - jax/_src/nn/initializers.py (jax 0.10.2): lecun_normal, glorot_normal / xavier_normal, he_normal /
 *   kaiming_normal are `variance_scaling(..., "truncated_normal")` → `random.truncated_normal(...) * stddev`;
 *   lecun_uniform, glorot_uniform / xavier_uniform, he_uniform / kaiming_uniform are
 *   `variance_scaling(..., "uniform")` → `random.uniform(...) * sqrt(3 * variance)`; `normal(stddev)` →
 *   `random.normal`, `uniform(scale)` → `random.uniform`, `truncated_normal(stddev)` → `random.truncated_normal`.
 * - haiku/_src/initializers.py (dm-haiku 0.0.12): TruncatedNormal → `jax.random.truncated_normal`,
 *   RandomNormal → `jax.random.normal`, RandomUniform and UniformScaling → `jax.random.uniform`.
 * `variance_scaling` / `VarianceScaling` (the distribution is an argument not kept here), `orthogonal` (a QR of
 * a normal draw) and anything else: not known. Deterministic fills (zeros, ones, constant) draw nothing.
 */
export type Sampler = 'normal' | 'truncated_normal' | 'uniform' | 'none';

const SAMPLER_OF: Record<string, Sampler> = {
  lecun_normal: 'truncated_normal', glorot_normal: 'truncated_normal', xavier_normal: 'truncated_normal',
  he_normal: 'truncated_normal', kaiming_normal: 'truncated_normal', truncated_normal: 'truncated_normal',
  lecun_uniform: 'uniform', glorot_uniform: 'uniform', xavier_uniform: 'uniform', he_uniform: 'uniform',
  kaiming_uniform: 'uniform', uniform: 'uniform', normal: 'normal',
  TruncatedNormal: 'truncated_normal', RandomNormal: 'normal', RandomUniform: 'uniform', UniformScaling: 'uniform',
};

/** The sampler of an initializer argument; `fallback` (the layer's documented default) when none is given. */
export function initSampler(v: unknown, fallback?: Sampler): Sampler | undefined {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'object' || Array.isArray(v) || (v as { kind?: string }).kind !== 'init') return undefined;
  const i = v as InitValue;
  if (!i.random) return 'none';
  return SAMPLER_OF[i.name.split('.').pop() ?? ''];
}
