/**
 * Argument readers the lazy JAX catalogues (flax, haiku, equinox) share: an
 * argument that is not a literal of the expected kind becomes an unknown
 * naming it, never a default.
 */
import type { CatValue, UnknownValue } from '../interp/catalog-types';

export function unknown(reason: string): UnknownValue { return { kind: 'unknown', reason }; }

export function isUnknown(v: unknown): v is UnknownValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { kind?: string }).kind === 'unknown';
}

/** An integer argument. */
export function int(v: CatValue | undefined, name: string): number | UnknownValue {
  return typeof v === 'number' && Number.isInteger(v) ? v : unknown(`${name} is not known`);
}

/** An int or a tuple of ints (kernel sizes, strides). */
export function ints(v: CatValue | undefined, name: string): number[] | UnknownValue {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return unknown(`${name} is not known`);
}
