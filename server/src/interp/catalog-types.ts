/**
 * The catalogue contract: how a framework layer or an array operation is
 * described, independent of the interpreter that calls it. Entries are pure
 * functions of already-evaluated arguments, each citing the framework source
 * it mirrors. The interpreter binds call arguments to `signature`, fills
 * `defaults`, calls the entry, and turns the result into tensors and
 * allocation events.
 */
import type { DType } from '../../../shared/src/facts';

/** A dimension: a known size or an explanation of why it is not known. */
export type Dim = number | { unknown: string };

/** An array argument as the catalogue sees it. */
export interface ArrayValue { kind: 'array'; shape: Dim[]; dtype: DType }

/** A dtype object such as jnp.float16 or torch.bfloat16. */
export interface DTypeValue { kind: 'dtype'; dtype: DType }

/**
 * An initializer passed as an argument (kernel_init=..., w_init=...).
 * `random` draws from jax.random (Threefry); `partition` carries
 * flax `nn.with_partitioning` logical axis names, one per dimension.
 */
export interface InitValue {
  kind: 'init';
  name: string;
  random: boolean;
  partition?: (string | null)[];
  /** The dtype the factory was given (`normal(0.02, dtype=jnp.bfloat16)`), the default of the initializer it returns. */
  dtype?: string;
}

/** A callable or object known only by its qualified name (e.g. jax.nn.relu). */
export interface OpaqueValue { kind: 'opaque'; name: string }

/** A value the interpreter could not resolve. */
export interface UnknownValue { kind: 'unknown'; reason: string }

export type CatValue =
  | number | string | boolean | null
  | CatValue[]
  | ArrayValue | DTypeValue | InitValue | OpaqueValue | UnknownValue;

/** Arguments after binding: positional names from `signature`, then keywords, then defaults. */
export type Args = Record<string, CatValue | undefined>;
/** Key of Args naming the arguments that hold a Python float (a whole-number float is a plain number otherwise). */
export const PY_FLOATS = '__py_floats__';

export interface ParamSpec {
  /** Dotted path inside the layer, e.g. 'weight', 'layers.0.bias', 'in_proj_weight'. */
  name: string;
  shape: Dim[];
  dtype: DType;
  /** 'param' counts as a parameter; 'buffer' is state kept in memory but not trained. */
  role: 'param' | 'buffer';
  /** How the values are produced: random draws cost Threefry bits in JAX. */
  init: 'random' | 'zeros' | 'ones' | 'constant' | 'empty';
  /** Logical partition names (flax with_partitioning), one per dimension. */
  partition?: (string | null)[];
  /** The jax.random sampler a random fill draws with, when known (frameworks/initializers.ts initSampler). */
  sampler?: 'normal' | 'truncated_normal' | 'uniform' | 'none';
}

export type LayerFramework = 'equinox' | 'flax' | 'nnx' | 'haiku' | 'torch';

export interface LayerEntry {
  /** Fully-qualified names this entry matches, e.g. ['equinox.nn.Linear', 'equinox.nn._linear.Linear']. */
  names: string[];
  framework: LayerFramework;
  /** The framework source this entry mirrors, with version: 'equinox/nn/_linear.py (v0.11.4) Linear.__init__'. */
  citation: string;
  /** Constructor parameters in positional order (no self, no key if keyword-only is fine to list). */
  signature: string[];
  defaults: Args;
  /**
   * Parameters and buffers. Eager frameworks (equinox, torch) compute them
   * from the constructor arguments alone and receive `input` undefined; lazy
   * ones (flax, haiku) create them at the first call and receive the first
   * positional array argument (shape and dtype: haiku's Linear takes its
   * parameter dtype from the input). Return { unknown } with the reason when
   * a needed argument is unknown.
   */
  params(args: Args, input?: ArrayValue): ParamSpec[] | UnknownValue;
  /** Output of a forward call given the input array, when it can be computed. */
  output?(args: Args, input: ArrayValue): ArrayValue | UnknownValue;
}

/**
 * An array operation (jnp.*, jax.nn.*, lax.*, jax.random.*, torch.*) or an
 * array method (qualified as 'jax.Array.reshape', 'torch.Tensor.view').
 * For methods the array itself is bound to the first signature name.
 */
export interface OpEntry {
  names: string[];
  citation: string;
  signature: string[];
  defaults?: Args;
  /**
   * The result: an array (a new buffer), several arrays, or a plain value.
   * `view: true` marks results that alias their input (torch views), which
   * allocate nothing.
   */
  result(args: Args): OpResult;
}

export type OpResult =
  | { kind: 'array'; shape: Dim[]; dtype: DType; view?: boolean; random?: boolean }
  | { kind: 'arrays'; items: { shape: Dim[]; dtype: DType }[]; view?: boolean }
  | { kind: 'value'; value: CatValue }
  | UnknownValue;
