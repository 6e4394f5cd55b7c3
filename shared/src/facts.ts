/**
 * Model facts: the plain-data contract between the analyzer (server/) and the
 * cost engine (shared/). The analyzer reads source code and emits these; the
 * engine turns them into per-phase peaks for a target device. Nothing here
 * knows about LSP, VS Code or tree-sitter: positions are UTF-16 offsets into
 * the analysed file, never editor ranges.
 */

/** Element types the engine can size. Sizes live in `dtypes.ts`. */
export type DType =
  | 'float64' | 'float32' | 'float16' | 'bfloat16' | 'float8'
  | 'int64' | 'int32' | 'int16' | 'int8' | 'uint32' | 'uint16' | 'uint8' | 'bool'
  | 'complex64' | 'int4';

/** A half-open range of UTF-16 offsets into the analysed file. */
/**
 * A range of UTF-16 offsets in a source file: the analysed file itself, or,
 * when `file` is set, another file of the workspace (an imported module).
 */
export interface Span {
  start: number;
  end: number;
  /** Absolute path of the file, when it is not the analysed one. */
  file?: string;
  /** 1-based line in `file` (set with `file`). */
  line?: number;
}

/** Something the analysis could not resolve, with the reason and where. */
export interface Unknown {
  what: string; reason: string; span?: Span;
  /**
   * What is counted may be more than is there (a subclass's constructor that can replace the modules counted): the
   * phase has no lower bound either, so no peak and no verdict, only the unknown.
   */
  noBound?: boolean;
}

/**
 * Where a tensor lives. JAX arrays without a sharding live on device 0;
 * PyTorch tensors are created on the host until moved.
 */
export type Placement =
  | { kind: 'device'; index: number }
  | { kind: 'sharded'; over: number }
  | { kind: 'replicated' }
  | { kind: 'host' };

export type TensorRole =
  | 'param' | 'buffer' | 'activation' | 'temporary' | 'input' | 'gradient'
  | 'optimizer' | 'kv-cache' | 'rng' | 'workspace';

export interface TensorFact {
  /** Unique within one ModelFacts. */
  id: number;
  /** Human label, e.g. "layers.feed_forward.w1.weight (vmapped ×32)". */
  label: string;
  /**
   * Breakdown group: tensors with the same group are reported as one
   * contributor (e.g. "float32 layer stack (vmapped ×32)"). Defaults to label.
   */
  group?: string;
  shape: number[];
  dtype: DType;
  role: TensorRole;
  placement: Placement;
  /** Where the tensor is created in the source. */
  span?: Span;
  /** Why it exists, e.g. "float16 copy made by .astype while the float32 stack is alive". */
  note?: string;
  /** Source of the rule that made the analyzer create it (framework file, doc, paper). */
  citation?: string;
}

/**
 * One step of a phase timeline. The engine replays events in order, keeping
 * the set of live tensors, and takes the peak over the replay.
 */
export type MemoryEvent =
  | { op: 'alloc'; tensor: TensorFact }
  | { op: 'free'; id: number; span?: Span }
  /**
   * Memory that exists only for an instant on top of what is live: XLA
   * temporaries inside one compiled computation, an allocator's workspace.
   * `bytesPerDevice` comes from an engine formula; `formula` and `citation`
   * say which.
   */
  | { op: 'transient'; label: string; bytesPerDevice: number; role: TensorRole; span?: Span; formula: string; citation: string };

export type PhaseName = 'init' | 'load' | 'inference' | 'training';

export interface PhaseTrace {
  phase: PhaseName;
  events: MemoryEvent[];
  /** The call or construction that this phase stands for. */
  span?: Span;
  /** Whether the phase runs under jax.jit (XLA fuses intermediates). */
  jitted?: boolean;
  notes: string[];
  /** Set when the analysis could not follow the phase far enough for a peak. */
  unknowns: Unknown[];
  /** The per-device (micro-)batch the phase's activations are sized for, when known: advice never cuts it below one. */
  batch?: number;
}

export type Framework = 'equinox' | 'flax' | 'haiku' | 'jax' | 'torch' | 'transformers';

/** Runtime settings read from the program that change the usable budget. */
export interface RuntimeFacts {
  /** Which allocator rules apply: JAX's XLA client or PyTorch's caching allocator. */
  runtime: 'jax' | 'torch';
  /**
   * Effective JAX client settings (only those that take effect: set before the
   * backend started). Undefined fields keep JAX's defaults.
   */
  jax?: {
    preallocate?: boolean;
    memFraction?: number;
    allocator?: string;
    threefryPartitionable?: boolean;
  };
  /** Pinned library versions found next to the file, e.g. { jax: '0.4.30' }. */
  versions: Record<string, string>;
}

export interface ModelFacts {
  /** Display name: the class, the variable, or the checkpoint. */
  name: string;
  framework: Framework;
  /** The construction / init / from_pretrained call this model was read from. */
  span: Span;
  /** The class definition, when the model is a user class. */
  definitionSpan?: Span;
  /** When another file's code built it: the analysed file's call that led there. */
  entrySpan?: Span;
  /** When another file's code built it: the calls that led there, innermost first, one per file between (not the analysed file). */
  viaSpans?: Span[];
  /** Final parameters (after casts), each counted once (tied weights once). */
  params: TensorFact[];
  /** Non-trainable state kept in memory (BatchNorm statistics, rotary caches). */
  buffers: TensorFact[];
  /**
   * Exact parameter count, or null when some parameter's size is unknown.
   * Equals the sum of `params` element counts when known.
   */
  paramCount: number | null;
  phases: PhaseTrace[];
  unknowns: Unknown[];
  runtime: RuntimeFacts;
}
