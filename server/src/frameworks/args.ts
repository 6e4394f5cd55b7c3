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
  if (isUnknown(v)) return v; // already says why (a count past the size cap, interp.ts bindCatalogue)
  return typeof v === 'number' && Number.isInteger(v) ? v : unknown(`${name} is not known`);
}

/** An int or a tuple of ints (kernel sizes, strides). */
export function ints(v: CatValue | undefined, name: string): number[] | UnknownValue {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return unknown(`${name} is not known`);
}

/**
 * Where a fix adds a keyword argument to a call, read from the call's
 * argument list: after the last argument (so a trailing comma, a `**kwargs`
 * splat or a comment before the closing parenthesis stays valid), or just
 * inside the parentheses of an empty call.
 */
export interface KeywordSlot {
  /** Offset to insert at. */
  insertAt: number;
  /** Whether a `, ` must come before the new keyword. */
  hasArgs: boolean;
}

/** Structural view of a tree-sitter node, so this module stays free of parser types. */
interface CallNode {
  endIndex: number;
  childForFieldName(name: string): ArgListNode | null;
}
interface ArgListNode {
  type: string;
  startIndex: number;
  endIndex: number;
  namedChildren: ({ type: string; endIndex: number } | null)[];
}

export function keywordSlot(call: CallNode): KeywordSlot {
  const list = call.childForFieldName('arguments');
  if (!list || list.type !== 'argument_list') return { insertAt: list ? list.endIndex - 1 : call.endIndex, hasArgs: Boolean(list) };
  const args = list.namedChildren.filter((c): c is { type: string; endIndex: number } => c !== null && c.type !== 'comment');
  const last = args[args.length - 1];
  return last ? { insertAt: last.endIndex, hasArgs: true } : { insertAt: list.startIndex + 1, hasArgs: false };
}
