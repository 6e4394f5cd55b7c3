/**
 * Engine output types: devices, budgets and per-phase estimates. Plain data,
 * shared by the analyzer, the CLI and the language server.
 */
import type { PhaseName, Span, TensorRole, Unknown } from './facts';

export interface DeviceInfo {
  /** Catalogue id, e.g. 'a100-40gb'. */
  id: string;
  /** Display name, e.g. 'A100 40GB'. */
  name: string;
  vendor: 'nvidia' | 'amd' | 'google';
  kind: 'gpu' | 'tpu';
  /** The card's nominal memory per JAX/PyTorch device, in bytes (what nvidia-smi reports as total). */
  capacityBytes: number;
  /**
   * What CUDA reports as the device's total (torch `total_memory`, "GPU 0 has a total capacity of X GiB"):
   * the nominal size less what the driver keeps. Absent where no public figure for the card was found.
   */
  usableBytes?: number;
  /** Where the usable figure comes from. */
  usableCitation?: string;
  /** Whether the device computes in bfloat16 natively (no on V100 / T4). */
  bf16: boolean;
  /** Where the capacity figure comes from. */
  citation: string;
  /** CUDA compute capability of NVIDIA GPUs ('9.0' = Hopper), where a runtime default depends on it. */
  computeCapability?: string;
}

/** A target: N identical devices, e.g. '8xh100-80gb'. */
export interface DeviceSpec {
  id: string;
  device: DeviceInfo;
  count: number;
}

export interface Budget {
  /** Bytes per device the framework may actually use. */
  bytes: number;
  /**
   * What the budget is taken from: CUDA's total for the card (`usableCapacity`), or the nominal total where
   * that is not known (`capacityKnown: false`); TPU HBM per device.
   */
  capacityBytes: number;
  /** The card's nominal size (nvidia-smi's total), shown beside the usable figure. */
  nominalBytes: number;
  /** False where no public figure says what CUDA reports for this card: the budget is the nominal total. */
  capacityKnown: boolean;
  /** Bytes the framework reserves when its backend starts (JAX preallocation), if any. */
  reservedAtStartBytes?: number;
  /** One-line human explanation, e.g. "JAX preallocates 75% of 40,960 MiB". */
  explanation: string;
  citation: string;
  /**
   * What the framework's runtime holds on each device besides the program's tensors (PyTorch on a GPU: the
   * CUDA context, the cuBLAS and cuBLASLt workspaces); `bytes` is the capacity less their sum.
   */
  runtime?: RuntimePart[];
}

/** One part of the runtime layer under the program's tensors. */
export interface RuntimePart {
  label: string;
  bytes: number;
  citation: string;
}

export interface Contributor {
  label: string;
  /** Bytes on the peak device at the peak instant. */
  bytes: number;
  role: TensorRole;
  span?: Span;
  /** How many tensors were grouped under this label. */
  count: number;
  note?: string;
  citation?: string;
  formula?: string;
}

export interface TimelinePoint {
  /** Index of the event in the phase trace. */
  step: number;
  label: string;
  /** Live bytes on the peak device after this event. */
  liveBytes: number;
  span?: Span;
}

export interface PhaseEstimate {
  phase: PhaseName;
  /** Peak bytes on the busiest device; a lower bound when `peakIsLowerBound`; null when nothing of the phase could be sized. */
  peakBytes: number | null;
  /** True when some contributor of the phase is unknown: `peakBytes` counts only the known part ("≥ X"). */
  peakIsLowerBound: boolean;
  /** Which device index holds that peak. */
  peakDevice: number;
  /** Peak per device index (length = device count, capped for display). */
  perDeviceBytes: number[];
  budgetBytes: number;
  /** null when the peak is unknown. */
  fits: boolean | null;
  /** Contributors live at the peak, largest first; they sum to peakBytes. */
  breakdown: Contributor[];
  timeline: TimelinePoint[];
  notes: string[];
  unknowns: Unknown[];
  jitted?: boolean;
}

export interface Estimate {
  model: string;
  target: DeviceSpec;
  budget: Budget;
  paramCount: number | null;
  paramBytes: number | null;
  /** Parameter bytes grouped by dtype, e.g. { float16: 14e9 }. */
  bytesByDtype: Record<string, number>;
  bufferBytes: number;
  phases: PhaseEstimate[];
  unknowns: Unknown[];
}

export type Units = 'GB' | 'GiB';
