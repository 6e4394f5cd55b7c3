/**
 * The device catalogue. Two figures per GPU:
 * - `capacityBytes`, the card's nominal size: the total nvidia-smi reports (MiB), as collected in
 *   ../shared/reference/cost-facts.md §8 from real nvidia-smi outputs;
 * - `usableBytes`, what CUDA reports as the device's total (`cudaMemGetInfo` total, PyTorch's
 *   `get_device_properties().total_memory`, the "GPU 0 has a total capacity of X GiB" of its OOM message),
 *   smaller by what the driver keeps (ECC, reserved memory; a few hundred MiB, more with newer drivers).
 *   It is the whole a process can allocate from; the CUDA context and the framework's runtime come out of
 *   it (budget.ts). Each figure is cited next to it: the smallest one found in public reports that name the
 *   card, since the reserved part grows with the driver version and an overstated capacity reads "fits" for
 *   a program that crashes. Where no public figure was found, `usableBytes` is absent and the budget says
 *   it compares against the nominal total.
 * TPU figures are per JAX device from Google Cloud's TPU pages (v3 and v2 expose each TensorCore as a
 * device; v4 and v5p run as megacore, one device per chip); their usable figure is the "of X hbm" of
 * XLA:TPU's out-of-memory message, the HBM less the runtime's reserve (GiB: 16 GiB − 530 MiB = 15.48G),
 * where a public message names the TPU. NVIDIA compute capabilities are from developer.nvidia.com/cuda-gpus.
 */
import type { DeviceInfo, DeviceSpec } from './types';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** A figure printed in GiB with two decimals (PyTorch's OOM message), in bytes. */
const gib = (x: number): number => Math.round(x * GiB);

const CATALOGUE: DeviceInfo[] = [
  { id: 'a100-40gb', name: 'A100 40GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 40960 * MiB, usableBytes: 42298834944, usableCitation: 'deviceQuery on an A100-SXM4-40GB (CUDA driver 12.2): "Total amount of global memory: 40339 MBytes (42298834944 bytes)" (github.com/bottlerocket-os/bottlerocket/pull/3873); PyTorch OOM messages on 40 GB cards print 39.59 GiB (github.com/bigscience-workshop/t-zero/issues/12)', bf16: true, citation: 'nvidia-smi "A100-SXM4-40GB ... / 40960MiB"', computeCapability: '8.0' },
  { id: 'a100-80gb', name: 'A100 80GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 81920 * MiB, usableBytes: gib(79.14), usableCitation: 'PyTorch OOM on "a single NVIDIA A100 card which has 80GB": "GPU 0 has a total capacity of 79.14 GiB" (github.com/lianqi1008/Control-GIC/issues/6); others print 79.15–79.25 GiB', bf16: true, citation: 'nvidia-smi "A100-SXM4-80GB ... / 81920MiB"', computeCapability: '8.0' },
  { id: 'h100-80gb', name: 'H100 80GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 81559 * MiB, usableBytes: gib(79.11), usableCitation: 'PyTorch OOM on an H100: "GPU 0 has a total capacity of 79.11 GiB" (github.com/vllm-project/vllm/issues/27508)', bf16: true, citation: 'nvidia-smi "NVIDIA H100 80GB HBM3 ... / 81559MiB" (jax-ml/jax#19893)', computeCapability: '9.0' },
  { id: 'h200', name: 'H200', vendor: 'nvidia', kind: 'gpu', capacityBytes: 143771 * MiB, usableBytes: 143156 * MiB, usableCitation: 'torch.cuda.get_device_properties on a Modal H200: "_CudaDeviceProperties(name=\'NVIDIA H200\', major=9, minor=0, total_memory=143156MB" (total_memory in MiB, 139.80 GiB; github.com/ai-bot-pro/achatbot/blob/859e21612de769164d8d1802d794ef8f87ace3c8/deploy/modal/src/llm/vllm/vlm/skywork_r1v.py)', bf16: true, citation: 'nvidia-smi "NVIDIA H200 ... / 143771MiB"', computeCapability: '9.0' },
  { id: 'v100-16gb', name: 'V100 16GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 16160 * MiB, usableBytes: gib(15.78), usableCitation: 'PyTorch OOM on "a 16G V100": "15.78 GiB total capacity" (github.com/kchengiva/Shift-GCN/issues/34)', bf16: false, citation: 'nvidia-smi "Tesla V100-PCIE ... / 16160MiB" (jax-ml/jax#19213); Volta has no bfloat16 (NVIDIA V100 datasheet)', computeCapability: '7.0' },
  { id: 'v100-32gb', name: 'V100 32GB', vendor: 'nvidia', kind: 'gpu', capacityBytes: 32510 * MiB, usableBytes: gib(31.74), usableCitation: 'PyTorch OOM on a V100 32GB: "31.74 GiB total capacity" (github.com/liucongg/ChatGLM-Finetuning/issues/73)', bf16: false, citation: 'nvidia-smi "Tesla V100-SXM2 ... / 32510MiB"; Volta has no bfloat16', computeCapability: '7.0' },
  { id: 't4', name: 'T4', vendor: 'nvidia', kind: 'gpu', capacityBytes: 15360 * MiB, usableBytes: gib(14.56), usableCitation: 'PyTorch OOM on a Tesla T4 (GCP): "GPU 0 has a total capacity of 14.56 GiB" (github.com/Zheng-Chong/CatVTON/issues/133; also github.com/AlphaGPU/leetgpu-challenges/issues/52); Colab T4s print 14.75 GiB (github.com/hpcaitech/Open-Sora/issues/697)', bf16: false, citation: 'nvidia-smi "Tesla T4 ... / 15360MiB"; Turing has no bfloat16 (NVIDIA T4 datasheet)', computeCapability: '7.5' },
  { id: 'l4', name: 'L4', vendor: 'nvidia', kind: 'gpu', capacityBytes: 23034 * MiB, bf16: true, citation: 'nvidia-smi "NVIDIA L4 ... / 23034MiB"', computeCapability: '8.9' },
  { id: 'a10g', name: 'A10G', vendor: 'nvidia', kind: 'gpu', capacityBytes: 23028 * MiB, bf16: true, citation: 'nvidia-smi "NVIDIA A10G ... / 23028MiB"; what CUDA reports is not settled: the one citable figure, "22.49 GiB total capacity" (github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1259, 2022), is this total within rounding, and newer drivers keep more', computeCapability: '8.6' },
  { id: 'l40s', name: 'L40S', vendor: 'nvidia', kind: 'gpu', capacityBytes: 46068 * MiB, usableBytes: gib(44.53), usableCitation: 'PyTorch OOM on an L40S 48GB: "GPU 0 has a total capacity of 44.53 GiB" (github.com/Wan-Video/Wan2.1/issues/205)', bf16: true, citation: 'nvidia-smi "NVIDIA L40S ... 46068 MiB" with ECC on, the data-centre default (github.com/modal-labs/modal-client/pull/2797, github.com/akash-network/provider-configs/pull/99); 49140MiB with ECC off (zml/zml#125)', computeCapability: '8.9' },
  { id: 'rtx-3090', name: 'RTX 3090', vendor: 'nvidia', kind: 'gpu', capacityBytes: 24576 * MiB, usableBytes: gib(23.69), usableCitation: 'PyTorch OOM on an RTX 3090: "23.69 GiB total capacity" (github.com/JiaweiLian/AP-PA/issues/3); 23.68 GiB on a 24 GB card (github.com/karpathy/nanoGPT/issues/208)', bf16: true, citation: 'nvidia-smi "GeForce RTX 3090 ... / 24576MiB"', computeCapability: '8.6' },
  { id: 'rtx-4090', name: 'RTX 4090', vendor: 'nvidia', kind: 'gpu', capacityBytes: 24564 * MiB, usableBytes: gib(23.52), usableCitation: 'PyTorch OOM on an RTX 4090: "GPU 0 has a total capacity of 23.52 GiB" (github.com/Soul-AILab/SoulX-FlashTalk/issues/5); 23.68 GiB in 2023 (github.com/zai-org/CogVideo/issues/36)', bf16: true, citation: 'nvidia-smi "GeForce RTX 4090 ... / 24564MiB"', computeCapability: '8.9' },
  { id: 'mi300x', name: 'MI300X', vendor: 'amd', kind: 'gpu', capacityBytes: 192 * GiB, usableBytes: 196592 * MiB, usableCitation: 'torch.cuda.get_device_properties on an MI300X (ROCm 6.2.4, torch 2.6): "total_memory=196592MB" (MiB, 191.98 GiB; github.com/ROCm/ROCm/issues/4203)', bf16: true, citation: 'AMD MI300X: 192 GB HBM3 (eight 24 GiB stacks)' },
  { id: 'tpu-v2', name: 'TPU v2', vendor: 'google', kind: 'tpu', capacityBytes: 8 * GiB, usableBytes: 8 * GiB - 530 * MiB, usableCitation: 'XLA:TPU OOM on an 8 GiB TPU core (Colab\'s TPU v2): "Used 9.08G of 7.48G hbm ... reserved 530.00M" (github.com/sokrypton/ColabFold/issues/62); the same 530 MiB reserve on a v2-8 (github.com/erfanzar/EasyDeL/issues/95)', bf16: true, citation: 'Cloud TPU v2: 8 GiB HBM per TensorCore, one JAX device per core' },
  { id: 'tpu-v3', name: 'TPU v3', vendor: 'google', kind: 'tpu', capacityBytes: 16 * GiB, usableBytes: 16 * GiB - 530 * MiB, usableCitation: 'XLA:TPU OOM on a v3-8: "Used 21.95G of 15.48G hbm ... reserved 530.00M" (github.com/LargeWorldModel/LWM/issues/60)', bf16: true, citation: 'cloud.google.com/tpu/docs/v3: 32 GiB per chip, two TensorCores, each a JAX device' },
  { id: 'tpu-v4', name: 'TPU v4', vendor: 'google', kind: 'tpu', capacityBytes: 32 * GiB, usableBytes: 32 * GiB - 1.25 * GiB, usableCitation: 'XLA:TPU OOM on a v4-32: "Used 63.80G of 30.75G hbm ... reserved 1.25G" (github.com/erfanzar/EasyDeL/issues/166; the same on a v4-256, github.com/young-geng/EasyLM/issues/98)', bf16: true, citation: 'cloud.google.com/tpu/docs/v4: 32 GiB per chip, megacore (one JAX device per chip)' },
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

/**
 * What a program can allocate from on one device: CUDA's total where a public figure for the card is known
 * (never above the nominal total), else the nominal total with `known: false`.
 */
export function usableCapacity(device: DeviceInfo): { bytes: number; known: boolean; citation: string } {
  if (device.usableBytes === undefined) return { bytes: device.capacityBytes, known: false, citation: device.citation };
  return { bytes: Math.min(device.usableBytes, device.capacityBytes), known: true, citation: device.usableCitation ?? device.citation };
}

export function displayName(spec: DeviceSpec): string {
  return spec.count === 1 ? spec.device.name : `${spec.count}× ${spec.device.name}`;
}
