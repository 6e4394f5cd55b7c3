/**
 * Byte and count formatting. GB = 10^9 bytes, GiB = 2^30 bytes (IEC 80000-13);
 * oomlens always prints the unit it uses.
 */
import type { Units } from './types';

export const GB = 1e9;
export const GiB = 2 ** 30;

export function formatBytes(bytes: number, units: Units = 'GB', digits = 1): string {
  if (!Number.isFinite(bytes)) return 'unknown';
  if (bytes === 0) return '0 B';
  const steps = units === 'GB'
    ? [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'kB']] as const
    : [[2 ** 40, 'TiB'], [2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']] as const;
  for (const [size, name] of steps) {
    if (Math.abs(bytes) >= size) return `${(bytes / size).toFixed(digits)} ${name}`;
  }
  return `${Math.round(bytes)} B`;
}

export function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} K`;
  return String(n);
}
