/**
 * The device catalogue. GPU capacities are the totals nvidia-smi reports
 * (MiB), as collected in ../shared/reference/cost-facts.md §8 from real
 * nvidia-smi outputs; TPU figures are per JAX device from Google Cloud's TPU
 * pages (v3 and v2 expose each TensorCore as a device; v4 and v5p run as
 * megacore, one device per chip). NVIDIA compute capabilities are from
 * developer.nvidia.com/cuda-gpus.
 */
import type { DeviceInfo, DeviceSpec } from './types';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

const CATALOGUE: DeviceInfo[] = [
  { id: 'a100-40gb', name: 'A100 40GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 40960 * MiB, bf16: true, citation: 'nvidia-smi "A100-SXM4-40GB ... / 40960MiB"', computeCapability: '8.0' },
  { id: 'a100-80gb', name: 'A100 80GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 81920 * MiB, bf16: true, citation: 'nvidia-smi "A100-SXM4-80GB ... / 81920MiB"', computeCapability: '8.0' },
  { id: 'h100-80gb', name: 'H100 80GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 81559 * MiB, bf16: true, citation: 'nvidia-smi "NVIDIA H100 80GB HBM3 ... / 81559MiB" (jax-ml/jax#19893)', computeCapability: '9.0' },
  { id: 'h200', name: 'H200', vendor: 'nvidia', kind: 'gpu', capacityBytes: 143771 * MiB, bf16: true, citation: 'nvidia-smi "NVIDIA H200 ... / 143771MiB"', computeCapability: '9.0' },
  { id: 'v100-16gb', name: 'V100 16GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 16160 * MiB, bf16: false, citation: 'nvidia-smi "Tesla V100-PCIE ... / 16160MiB" (jax-ml/jax#19213); Volta has no bfloat16 (NVIDIA V100 datasheet)', computeCapability: '7.0' },
  { id: 'v100-32gb', name: 'V100 32GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 32510 * MiB, bf16: false, citation: 'nvidia-smi "Tesla V100-SXM2 ... / 32510MiB"; Volta has no bfloat16', computeCapability: '7.0' },
  { id: 't4', name: 'T4', vendor: 'nvidia', kind: 'gpu', capacityBytes: 15360 * MiB, bf16: false, citation: 'nvidia-smi "Tesla T4 ... / 15360MiB"; Turing has no bfloat16 (NVIDIA T4 datasheet)', computeCapability: '7.5' },
  { id: 'l4', name: 'L4', vendor: 'nvidia', kind: 'gpu', capacityBytes: 23034 * MiB, bf16: true, citation: 'nvidia-smi "NVIDIA L4 ... / 23034MiB"', computeCapability: '8.9' },
  { id: 'a10g', name: 'A10G', vendor: 'nvidia', kind: 'gpu', capacityBytes: 23028 * MiB, bf16: true, citation: 'nvidia-smi "NVIDIA A10G ... / 23028MiB"', computeCapability: '8.6' },
  { id: 'l40s', name: 'L40S', vendor: 'nvidia', kind: 'gpu', capacityBytes: 49140 * MiB, bf16: true, citation: 'nvidia-smi 49140MiB (zml/zml#125)', computeCapability: '8.9' },
  { id: 'rtx-3090', name: 'RTX 3090', vendor: 'nvidia', kind: 'gpu', capacityBytes: 24576 * MiB, bf16: true, citation: 'nvidia-smi "GeForce RTX 3090 ... / 24576MiB"', computeCapability: '8.6' },
  { id: 'rtx-4090', name: 'RTX 4090', vendor: 'nvidia', kind: 'gpu', capacityBytes: 24564 * MiB, bf16: true, citation: 'nvidia-smi "GeForce RTX 4090 ... / 24564MiB"', computeCapability: '8.9' },
  { id: 'mi300x', name: 'MI300X', vendor: 'amd', kind: 'gpu', capacityBytes: 192 * GiB, bf16: true, citation: 'AMD MI300X: 192 GB HBM3 (eight 24 GiB stacks)' },
  { id: 'tpu-v2', name: 'TPU v2', vendor: 'google', kind: 'tpu', capacityBytes: 8 * GiB, bf16: true, citation: 'Cloud TPU v2: 8 GiB HBM per TensorCore, one JAX device per core' },
  { id: 'tpu-v3', name: 'TPU v3', vendor: 'google', kind: 'tpu', capacityBytes: 16 * GiB, bf16: true, citation: 'cloud.google.com/tpu/docs/v3: 32 GiB per chip, two TensorCores, each a JAX device' },
  { id: 'tpu-v4', name: 'TPU v4', vendor: 'google', kind: 'tpu', capacityBytes: 32 * GiB, bf16: true, citation: 'cloud.google.com/tpu/docs/v4: 32 GiB per chip, megacore (one JAX device per chip)' },
  { id: 'tpu-v5e', name: 'TPU v5e', vendor: 'google', kind: 'tpu', capacityBytes: 16e9, bf16: true, citation: 'cloud.google.com/tpu/docs/v5e: 16 GB per chip, one TensorCore' },
  { id: 'tpu-v5p', name: 'TPU v5p', vendor: 'google', kind: 'tpu', capacityBytes: 95e9, bf16: true, citation: 'cloud.google.com/tpu/docs/v5p: 95 GB per chip, megacore' },
  { id: 'tpu-v6e', name: 'TPU v6e', vendor: 'google', kind: 'tpu', capacityBytes: 32e9, bf16: true, citation: 'cloud.google.com/tpu/docs/v6e: 32 GB per chip, one TensorCore' },
];

const ALIASES: Record<string, string> = {
  h100: 'h100-80gb', h200: 'h200', 'h200-141gb': 'h200', t4: 't4', l4: 'l4', a10: 'a10g', a10g: 'a10g', l40s: 'l40s',
  '3090': 'rtx-3090', '4090': 'rtx-4090', rtx3090: 'rtx-3090', rtx4090: 'rtx-4090', mi300x: 'mi300x',
  v3: 'tpu-v3', v4: 'tpu-v4', v5e: 'tpu-v5e', v5p: 'tpu-v5p', v6e: 'tpu-v6e', 'tpu-v5litepod': 'tpu-v5e',
};

const AMBIGUOUS: Record<string, string[]> = { a100: ['a100-40gb', 'a100-80gb'], v100: ['v100-16gb', 'v100-32gb'] };

export function listDevices(): DeviceInfo[] {
  return CATALOGUE.slice();
}

/** Parses 'a100-40gb', '8xh100-80gb', '8×H100-80GB' (1 ≤ N ≤ 65536). */
export function parseDeviceSpec(s: string): DeviceSpec | { error: string; known: string[] } {
  const known = CATALOGUE.map((d) => d.id);
  const raw = String(s ?? '').trim().toLowerCase().replace(/\s+/g, '');
  const m = /^(?:(\d+)\s*[x×*])?(.+)$/.exec(raw);
  if (!raw || !m) return { error: `Empty device name.`, known };
  const count = m[1] === undefined ? 1 : Number(m[1]);
  if (!Number.isInteger(count) || count < 1 || count > 65536) {
    return { error: `Device count ${m[1]} in "${s}" is out of range (1 to 65536).`, known };
  }
  const name = m[2].replace(/^nvidia-/, '');
  if (AMBIGUOUS[name]) return { error: `"${m[2]}" is ambiguous: use ${AMBIGUOUS[name].join(' or ')}.`, known };
  const id = CATALOGUE.some((d) => d.id === name) ? name : ALIASES[name];
  const device = CATALOGUE.find((d) => d.id === id);
  if (!device) return { error: `Unknown device "${s}". Known devices: ${known.join(', ')}.`, known };
  return { id: count === 1 ? device.id : `${count}x${device.id}`, device, count };
}

export function displayName(spec: DeviceSpec): string {
  return spec.count === 1 ? spec.device.name : `${spec.count}× ${spec.device.name}`;
}
