/**
 * The smallest number of each catalogue device that fits a workload: bytes
 * that split over devices (sharded parameters, ZeRO-partitioned state) and
 * bytes every device holds whatever N (replicated state, per-device
 * activations). N devices fit when fixed + split / N ≤ the framework budget
 * of one device (budget.ts). advice.ts decides, per phase, which bytes are
 * split and which fixed, and takes the largest count over the instants.
 */
import type { RuntimeFacts } from './facts';
import { frameworkBudget } from './budget';
import { listDevices } from './devices';
import type { DeviceInfo } from './types';

export interface FitsWhereRow {
  device: DeviceInfo;
  /** Smallest N, or null when the per-device bytes alone exceed one device (or N > 65536). */
  count: number | null;
  budgetBytes: number;
}

export const MAX_DEVICES = 65536;

export function fitsWhere(splitBytes: number, fixedBytes: number, runtime: RuntimeFacts, devices: DeviceInfo[] = listDevices()): FitsWhereRow[] {
  return devices.map((device) => {
    const budgetBytes = frameworkBudget({ id: device.id, device, count: 1 }, runtime).bytes;
    const room = budgetBytes - fixedBytes;
    if (!Number.isFinite(splitBytes) || !Number.isFinite(fixedBytes) || room <= 0) {
      return { device, count: splitBytes === 0 && room >= 0 ? 1 : null, budgetBytes };
    }
    const n = Math.max(1, Math.ceil(splitBytes / room));
    return { device, count: n <= MAX_DEVICES ? n : null, budgetBytes };
  });
}
