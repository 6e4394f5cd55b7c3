// The shape of a catalogue-signature table: for each layer of a framework,
// a base call and, per constructor argument that changes parameter shapes or
// dtypes, the values to try (each alone on top of the base call). The test in
// ../signatures.test.ts builds every resulting call in the real framework and
// through the interpreter, and compares parameter counts and dtypes.

/** A Python literal: lists are tuples; `{ dtype }` is the framework's dtype object. */
export type Py = number | string | boolean | null | Py[] | { dtype: string };

export interface SignatureRow {
  /** Attribute of the framework's layer namespace (torch.nn, flax.linen, flax.nnx, haiku, equinox.nn). */
  layer: string;
  /** Where the constructor is defined in the installed package. */
  source: string;
  args: Py[];
  kwargs?: Record<string, Py>;
  /** Flax / Haiku build parameters at the first call: the input's shape. */
  input?: number[];
  /** The input's dtype when not float32 (Embed takes integer ids). */
  inputDtype?: string;
  /** Haiku BatchNorm keeps state: built with transform_with_state and called with is_training=True. */
  state?: boolean;
  /** Haiku MultiHeadAttention takes (query, key, value): the input is passed this many times. */
  inputs?: number;
  /**
   * Argument → values tried one at a time. `$input_dtype` varies the input's
   * dtype (Haiku parameters take the input's dtype).
   */
  vary: Record<string, Py[]>;
}

export interface SignatureTable {
  framework: 'torch' | 'flax' | 'haiku' | 'equinox' | 'nnx';
  /** The installed version the rows were read from; the test checks it. */
  version: string;
  rows: SignatureRow[];
}

export const bf16: Py = { dtype: 'bfloat16' };
export const f16: Py = { dtype: 'float16' };
export const f64: Py = { dtype: 'float64' };
