/**
 * The memory a framework may actually use on one device.
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
 * - PyTorch on GPU: the card less the CUDA context, about 400 MiB with lazy
 *   module loading (pytorch/pytorch#109888; default since CUDA 11.7).
 */
import type { RuntimeFacts } from './facts';
import type { Budget, DeviceSpec } from './types';

const MiB = 2 ** 20;
export const CUDA_CONTEXT_BYTES = 400 * MiB;

function mib(b: number): string {
  return `${Math.round(b / MiB).toLocaleString('en-US')} MiB`;
}

function jaxDefaultFraction(version: string | undefined): number {
  if (!version) return 0.75;
  const [maj, min, pat] = version.split('.').map((x) => Number.parseInt(x, 10));
  if (maj === 0 && (min < 4 || (min === 4 && (pat ?? 0) < 14))) return 0.9;
  return 0.75;
}

export function frameworkBudget(spec: DeviceSpec, runtime: RuntimeFacts): Budget {
  const cap = spec.device.capacityBytes;
  if (spec.device.kind === 'tpu') {
    return { bytes: cap, capacityBytes: cap, explanation: `${spec.device.name} HBM per device: all of it is available to XLA`, citation: spec.device.citation };
  }
  if (runtime.runtime === 'jax') {
    const j = runtime.jax ?? {};
    if (j.allocator === 'platform') {
      return { bytes: cap, capacityBytes: cap, explanation: `XLA_PYTHON_CLIENT_ALLOCATOR=platform: JAX allocates on demand from the whole ${mib(cap)}`, citation: 'JAX docs, GPU memory allocation (gpu_memory_allocation.rst)' };
    }
    const fraction = j.memFraction ?? jaxDefaultFraction(runtime.versions.jax);
    const bytes = Math.floor(fraction * cap);
    const pre = j.preallocate ?? true;
    return {
      bytes, capacityBytes: cap, reservedAtStartBytes: pre ? bytes : undefined,
      explanation: `${pre ? 'JAX preallocates' : 'JAX may grow to'} ${Math.round(fraction * 100)}% of ${mib(cap)} = ${(bytes / 2 ** 30).toFixed(2)} GiB`,
      citation: 'openxla/xla gpu_helpers.cc CreateBFCAllocator (total × memory_fraction); JAX docs gpu_memory_allocation.rst (75% default)',
    };
  }
  const bytes = Math.max(0, cap - CUDA_CONTEXT_BYTES);
  return {
    bytes, capacityBytes: cap,
    explanation: `PyTorch can use ${mib(cap)} less about 400 MiB of CUDA context = ${(bytes / 2 ** 30).toFixed(2)} GiB`,
    citation: 'pytorch/pytorch#109888 (CUDA context ≈ 400 MB with lazy loading)',
  };
}
