/**
 * Initialisers (bootstrap version; the owner is writing the full
 * catalogue): which draw random numbers (Threefry bits in JAX) and which are
 * factories called with arguments (`lecun_normal()`), per
 * jax/_src/nn/initializers.py and flax.linen.initializers (re-exports).
 */
export interface InitializerEntry { names: string[]; citation: string; random: boolean; factory: boolean }

const FACTORIES = ['lecun_normal', 'lecun_uniform', 'glorot_normal', 'glorot_uniform', 'xavier_normal', 'xavier_uniform', 'he_normal', 'he_uniform', 'kaiming_normal', 'kaiming_uniform', 'normal', 'uniform', 'truncated_normal', 'variance_scaling', 'orthogonal'];
const PREFIXES = ['jax.nn.initializers', 'flax.linen.initializers'];

export const INITIALIZERS: InitializerEntry[] = [
  ...FACTORIES.map((n) => ({ names: PREFIXES.map((p) => `${p}.${n}`), citation: 'jax/_src/nn/initializers.py', random: true, factory: true })),
  { names: PREFIXES.flatMap((p) => [`${p}.zeros`, `${p}.ones`]), citation: 'jax/_src/nn/initializers.py zeros/ones', random: false, factory: false },
  { names: PREFIXES.map((p) => `${p}.constant`), citation: 'jax/_src/nn/initializers.py constant', random: false, factory: true },
];

/** flax.linen.with_partitioning(init, names): the same initialiser with logical axis names. */
export function withPartitioning<T extends { partition?: (string | null)[] }>(init: T, names: (string | null)[]): T {
  return { ...init, partition: names };
}
