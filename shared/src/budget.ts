/**
 * The memory a framework may actually use on one device. Every budget starts from what CUDA reports as the
 * card's total (devices.ts `usableCapacity`: nvidia-smi's total less what the driver keeps), or from the
 * nominal total where that figure is not known for the card, which the explanation then says.
 * - JAX on GPU: XLA's BFC pool is `memory_fraction × total` (openxla/xla
 *   xla/pjrt/gpu/gpu_helpers.cc `CreateBFCAllocator`), default fraction 0.75
 *   since jax 0.4.14 (jax-ml/jax#16724; 0.9 before). It is preallocated at
 *   backend start unless XLA_PYTHON_CLIENT_PREALLOCATE is false, and the cap
 *   stays either way (`allow_growth = !preallocate`, same limit).
 *   XLA_PYTHON_CLIENT_ALLOCATOR=platform bypasses the pool and allocates on
 *   demand (JAX docs, gpu_memory_allocation.rst).
 * - JAX on TPU: the XLA_PYTHON_CLIENT_* settings are GPU plugin options
 *   (jaxlib/xla_client.py `generate_pjrt_gpu_plugin_options`); the budget is
 *   the device's HBM.
 * - PyTorch on GPU: CUDA's total less its runtime layer (`torchRuntime`): the CUDA
 *   context, about 400 MiB with lazy module loading (pytorch/pytorch#109888;
 *   default since CUDA 11.7), and the cuBLAS and cuBLASLt workspaces that
 *   PyTorch takes from its caching allocator for the first matmul. The context
 *   comes out of CUDA's total, not out of what the driver keeps before it, so
 *   it is subtracted once: PyTorch's OOM message splits that total into free
 *   memory and each process's use "including non-PyTorch memory" (the context),
 *   e.g. 14.56 GiB = 10.22 free + 4.11 this process + 0.23 another on a T4
 *   (Zheng-Chong/CatVTON#133).
 */
import type { RuntimeFacts } from './facts';
import type { Budget, DeviceInfo, DeviceSpec, RuntimePart, Units } from './types';
import { usableCapacity } from './devices';
import { formatBytes } from './units';

const MiB = 2 ** 20;
export const CUDA_CONTEXT_BYTES = 400 * MiB;

function mib(b: number): string {
  return `${Math.round(b / MiB).toLocaleString('en-US')} MiB`;
}

function gib(b: number): string {
  return `${(b / 2 ** 30).toFixed(2)} GiB`;
}

function jaxDefaultFraction(version: string | undefined): number {
  if (!version) return 0.75;
  const [maj, min, pat] = version.split('.').map((x) => Number.parseInt(x, 10));
  if (maj === 0 && (min < 4 || (min === 4 && (pat ?? 0) < 14))) return 0.9;
  return 0.75;
}

/**
 * "the A100 80GB's 79.14 GiB usable (CUDA's total; nvidia-smi shows 81,920 MiB)": the capacity a budget is
 * taken from, with the card's nominal size beside it; where CUDA's figure for the card is not known, the
 * nominal total and a statement that it is what the comparison uses.
 */
function capacityText(device: DeviceInfo): string {
  const u = usableCapacity(device);
  const api = device.vendor === 'amd' ? 'HIP' : 'CUDA';
  if (u.known && device.kind === 'tpu') return `the ${device.name}'s ${gib(u.bytes)} usable (XLA's HBM limit after the TPU runtime's reserve; nominal ${mib(device.capacityBytes)})`;
  if (u.known) return `the ${device.name}'s ${gib(u.bytes)} usable (${api}'s total; ${device.vendor === 'amd' ? 'nominal' : 'nvidia-smi shows'} ${mib(device.capacityBytes)})`;
  if (device.kind === 'tpu') return `the ${device.name}'s ${mib(device.capacityBytes)} of HBM (what the TPU runtime keeps of it is not known here)`;
  return `the ${device.name}'s ${mib(device.capacityBytes)}, its nominal total (what ${api} reports for this card, a few hundred MiB less, was not found in a public source)`;
}

export function frameworkBudget(spec: DeviceSpec, runtime: RuntimeFacts): Budget {
  const u = usableCapacity(spec.device);
  const cap = u.bytes;
  const base = { capacityBytes: cap, nominalBytes: spec.device.capacityBytes, capacityKnown: u.known };
  const of = capacityText(spec.device);
  const capCite = u.known ? `${u.citation}; ` : '';
  if (spec.device.kind === 'tpu') {
    return { bytes: cap, ...base, explanation: `${of}, per device: all of it is available to XLA`, citation: `${capCite}${spec.device.citation}` };
  }
  if (runtime.runtime === 'jax') {
    const j = runtime.jax ?? {};
    if (j.allocator === 'platform') {
      return { bytes: cap, ...base, explanation: `XLA_PYTHON_CLIENT_ALLOCATOR=platform: JAX allocates on demand from ${of}`, citation: `${capCite}JAX docs, GPU memory allocation (gpu_memory_allocation.rst)` };
    }
    const fraction = j.memFraction ?? jaxDefaultFraction(runtime.versions.jax);
    const bytes = Math.floor(fraction * cap);
    const pre = j.preallocate ?? true;
    return {
      bytes, ...base, reservedAtStartBytes: pre ? bytes : undefined,
      explanation: `${pre ? 'JAX preallocates' : 'JAX may grow to'} ${Math.round(fraction * 100)}% of ${of} = ${(bytes / 2 ** 30).toFixed(2)} GiB`,
      // XLA takes the fraction of the total that cuMemGetInfo reports (StreamExecutor DeviceMemoryUsage), the
      // same figure as PyTorch's total_memory: CUDA's total, not nvidia-smi's.
      citation: `${capCite}openxla/xla gpu_helpers.cc CreateBFCAllocator (total × memory_fraction, total from DeviceMemoryUsage = cuMemGetInfo); JAX docs gpu_memory_allocation.rst (75% default)`,
    };
  }
  const runtimeParts = torchRuntime(spec.device);
  const held = runtimeParts.reduce((s, r) => s + r.bytes, 0);
  const bytes = Math.max(0, cap - held);
  return {
    bytes, ...base, runtime: runtimeParts,
    explanation: `PyTorch can use ${of} less its runtime, ${runtimeParts.map((r) => `${r.label} ${mibText(r.bytes)}`).join(', ')} = ${(bytes / 2 ** 30).toFixed(2)} GiB`,
    citation: capCite + runtimeParts.map((r) => r.citation).join('; '),
  };
}

const KiB = 2 ** 10;

function mibText(b: number): string {
  const m = b / MiB;
  return `${Number.isInteger(m) ? m.toLocaleString('en-US') : m.toFixed(3).replace(/0+$/, '')} MiB`;
}

/**
 * The runtime layer PyTorch holds on each GPU besides the program's tensors, with the defaults of
 * pytorch/pytorch aten/src/ATen/cuda/CublasHandlePool.cpp (main, 2026):
 * - the CUDA context, ≈ 400 MiB (pytorch/pytorch#109888);
 * - the cuBLAS workspace of the default stream's handle, allocated from the caching allocator at the first
 *   matmul (`getNewWorkspace`): `CUBLAS_WORKSPACE_CONFIG` default ":4096:2:16:8" = 2 × 4096 KiB + 8 × 16 KiB,
 *   32 MiB on compute capability 9.0 (Hopper) (`parseChosenWorkspaceSize`); on ROCm 32 MiB, 128 MiB on
 *   gfx94x (MI300);
 * - the cuBLASLt workspace (`getNewCUDABlasLtWorkspace`): `CUBLASLT_WORKSPACE_SIZE` default 1024 KiB
 *   (pytorch/pytorch#73328), capped by the cuBLAS size; 76 MiB for hipBLASLt on ROCm.
 * These count in `torch.cuda.memory_allocated`; the caching allocator's rounding and fragmentation come on
 * top and are stated as a band, not added (docs/accuracy.md, "The accelerator layer").
 */
export function torchRuntime(device: DeviceInfo): RuntimePart[] {
  const blasCite = 'pytorch/pytorch aten/src/ATen/cuda/CublasHandlePool.cpp';
  if (device.vendor === 'amd') {
    return [
      { label: 'GPU context ≈', bytes: CUDA_CONTEXT_BYTES, citation: 'pytorch/pytorch#109888 (CUDA context ≈ 400 MB with lazy loading; assumed the same for HIP)' },
      { label: 'hipBLAS workspace', bytes: /mi300/i.test(device.id) ? 128 * MiB : 32 * MiB, citation: `${blasCite} parseChosenWorkspaceSize (ROCm: 32 MiB, 128 MiB on gfx94x)` },
      { label: 'hipBLASLt workspace', bytes: 76 * MiB, citation: `${blasCite} parseCUDABlasLtWorkspaceSize (76 MiB for hipBLASLt)` },
    ];
  }
  const blas = device.computeCapability === '9.0' ? 4096 * 8 * KiB : 4096 * KiB * 2 + 16 * KiB * 8;
  return [
    { label: 'CUDA context ≈', bytes: CUDA_CONTEXT_BYTES, citation: 'pytorch/pytorch#109888 (CUDA context ≈ 400 MB with lazy loading)' },
    { label: 'cuBLAS workspace', bytes: blas, citation: `${blasCite} parseChosenWorkspaceSize (":4096:2:16:8" default, 32 MiB on Hopper)` },
    { label: 'cuBLASLt workspace', bytes: Math.min(1024 * KiB, blas), citation: `${blasCite} parseCUDABlasLtWorkspaceSize (1024 KiB default, pytorch/pytorch#73328)` },
  ];
}

/**
 * "tensors 17.7 GB + runtime 428.9 MB = 18.1 GB of 42.3 GB usable": a phase peak of the program's tensors
 * with the runtime layer under it, against what CUDA reports as the card's total; undefined where the budget has no runtime parts (JAX, TPU)
 * or the peak is unknown. A peak with unknown parts reads "≥". What the caching allocator reserves beyond the
 * allocated bytes (rounding of blocks to 512 B, segments of 2 MiB / 20 MiB / 2 MiB multiples:
 * c10/cuda/CUDACachingAllocator.cpp `round_size`, `get_allocation_size`) is not added: it depends on the order
 * of allocations and frees, and is stated beside the figure.
 */
export function onDeviceText(p: { peakBytes: number | null; fits: boolean | null }, budget: Budget, units: Units, lowerBound = false): string | undefined {
  if (!budget.runtime?.length || p.peakBytes === null || p.peakBytes === 0) return undefined;
  const held = budget.runtime.reduce((s, r) => s + r.bytes, 0);
  const ge = p.fits === null || lowerBound ? '≥ ' : '';
  const of = budget.capacityKnown ? ' usable' : ', the nominal total';
  return `tensors ${ge}${formatBytes(p.peakBytes, units)} + runtime ${formatBytes(held, units)} = ${ge}${formatBytes(p.peakBytes + held, units)} of ${formatBytes(budget.capacityBytes, units)}${of}`;
}
