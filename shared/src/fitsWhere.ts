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

/** frameworkBudget(1 × device, runtime).bytes, per device object and runtime (as JSON): it is a pure function of the two. */
const budgetMemo = new WeakMap<DeviceInfo, Map<string, number>>();

/** The framework budget of one of each device, in bytes (budget.ts). */
export function deviceBudgets(runtime: RuntimeFacts, devices: DeviceInfo[] = listDevices()): number[] {
  const key = JSON.stringify(runtime);
  return devices.map((device) => {
    let m = budgetMemo.get(device);
    if (!m) budgetMemo.set(device, (m = new Map()));
    let b = m.get(key);
    if (b === undefined) m.set(key, (b = frameworkBudget({ id: device.id, device, count: 1 }, runtime).bytes));
    return b;
  });
}

/** Smallest N with fixed + split / N ≤ budget (closed form), or null. */
export function fitsCount(splitBytes: number, fixedBytes: number, budgetBytes: number): number | null {
  const room = budgetBytes - fixedBytes;
  if (!Number.isFinite(splitBytes) || !Number.isFinite(fixedBytes) || room <= 0) {
    return splitBytes === 0 && room >= 0 ? 1 : null;
  }
  const n = Math.max(1, Math.ceil(splitBytes / room));
  return n <= MAX_DEVICES ? n : null;
}

export function fitsWhere(splitBytes: number, fixedBytes: number, runtime: RuntimeFacts, devices: DeviceInfo[] = listDevices()): FitsWhereRow[] {
  const budgets = deviceBudgets(runtime, devices);
  return devices.map((device, i) => ({ device, count: fitsCount(splitBytes, fixedBytes, budgets[i]), budgetBytes: budgets[i] }));
}
