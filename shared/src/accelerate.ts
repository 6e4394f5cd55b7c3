/**
 * How `device_map="auto"` places whole modules over several GPUs, following
 * accelerate (v0.25.0, src/accelerate/utils/modeling.py):
 * `get_balanced_memory` gives every GPU but the last a cap of
 * `total // num_gpus` plus a buffer the size of the largest no-split block
 * (a decoder layer), and `infer_auto_device_map` then fills devices in order
 * with modules until the next one would exceed the cap. "sequential" fills
 * each device to its capacity instead; "balanced_low_0" keeps GPU 0 light.
 * This is the placement at load time; activations placed later on `cuda:0`
 * come on top of its share.
 */
export interface ModuleSize { name: string; bytes: number }

export interface DevicePlan {
  /** Module name → device index. */
  assignment: Record<string, number>;
  /** Bytes per device index. */
  perDevice: number[];
  formula: string;
  citation: string;
}

export function balancedDeviceMap(modules: ModuleSize[], deviceCount: number, capacities?: number[], mode = 'auto'): DevicePlan {
  const n = Math.max(1, deviceCount);
  const total = modules.reduce((a, m) => a + m.bytes, 0);
  const largest = modules.reduce((a, m) => Math.max(a, m.bytes), 0);
  const lowZero = mode === 'balanced_low_0' && n > 1;
  let caps: number[];
  if (mode === 'sequential' && capacities) caps = capacities.slice(0, n);
  else {
    const perGpu = Math.floor(total / (lowZero ? n - 1 : n)) + largest;
    caps = Array.from({ length: n }, (_, i) => (i === n - 1 ? Infinity : lowZero && i === 0 ? largest : perGpu));
  }
  const assignment: Record<string, number> = {};
  const perDevice = new Array<number>(n).fill(0);
  let d = 0;
  for (const m of modules) {
    while (d < n - 1 && perDevice[d] + m.bytes > caps[d]) d++;
    assignment[m.name] = d;
    perDevice[d] += m.bytes;
  }
  return {
    assignment, perDevice,
    formula: `cap per GPU = total ${total} B / ${lowZero ? n - 1 : n} + largest module ${largest} B; modules assigned in order`,
    citation: 'accelerate v0.25.0 utils/modeling.py get_balanced_memory, infer_auto_device_map',
  };
}
