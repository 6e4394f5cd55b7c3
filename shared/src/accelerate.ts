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
  /** Modules that fit on no GPU under max_memory and have no CPU to go to. */
  unplaced: string[];
  formula: string;
  citation: string;
}

/**
 * `maxMemory` is the user's `max_memory={0: "20GiB", 1: "30GiB", "cpu": ...}`, GPU index → bytes: every
 * listed GPU but the last is capped at min(balanced cap, its max_memory), the last at its max_memory, and
 * GPUs not listed get nothing (get_balanced_memory: "The last device is left with max_memory", accelerate
 * v0.25.0). Modules that fit on no GPU are offloaded (device -1) when `offload` is set (a "cpu" entry),
 * otherwise they are listed in `unplaced` (accelerate would offload to disk or fail; not estimated).
 */
export function balancedDeviceMap(modules: ModuleSize[], deviceCount: number, capacities?: number[], mode = 'auto',
  maxMemory?: Record<number, number>, offload = false): DevicePlan {
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
  const unplaced: string[] = [];
  if (maxMemory) {
    const gpus = Object.keys(maxMemory).map(Number).filter((i) => Number.isInteger(i) && i >= 0 && i < n && maxMemory[i] > 0).sort((a, b) => a - b);
    const capped = new Array<number>(n).fill(0);
    gpus.forEach((g, k) => { capped[g] = k === gpus.length - 1 ? maxMemory[g] : Math.min(caps[g], maxMemory[g]); });
    let k = 0;
    for (const m of modules) {
      while (k < gpus.length && perDevice[gpus[k]] + m.bytes > capped[gpus[k]]) k++;
      if (k < gpus.length) { assignment[m.name] = gpus[k]; perDevice[gpus[k]] += m.bytes; }
      else if (offload) assignment[m.name] = -1;
      else unplaced.push(m.name);
    }
    return {
      assignment, perDevice, unplaced,
      formula: `caps from max_memory: ${gpus.map((g) => `GPU ${g} ${capped[g]} B`).join(', ')} (balanced cap total ${total} B / ${n} + largest module ${largest} B on all but the last); modules assigned in order${offload ? ', the rest offloaded to the CPU' : ''}`,
      citation: 'accelerate v0.25.0 utils/modeling.py get_balanced_memory (max_memory), infer_auto_device_map',
    };
  }
  let d = 0;
  for (const m of modules) {
    while (d < n - 1 && perDevice[d] + m.bytes > caps[d]) d++;
    assignment[m.name] = d;
    perDevice[d] += m.bytes;
  }
  return {
    assignment, perDevice, unplaced,
    formula: `cap per GPU = total ${total} B / ${lowZero ? n - 1 : n} + largest module ${largest} B; modules assigned in order`,
    citation: 'accelerate v0.25.0 utils/modeling.py get_balanced_memory, infer_auto_device_map',
  };
}
