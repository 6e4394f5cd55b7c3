/**
 * The analyzer's own limits. Every value that can grow (lists, tuples,
 * dicts, strings) has a size cap, and the evaluator a nesting cap; past a
 * cap the value or the nested part becomes an unknown whose reason names
 * the cap, so no input can exhaust memory or the stack, and the rest of the
 * file is still analysed.
 */

/** A list or tuple holds at most this many items. */
export const MAX_ITEMS = 100_000;
/**
 * A count the program gives a library that the analyzer turns into that many
 * objects of its own (layers, blocks, spatial dimensions, items stacked into a
 * batch) is at most this: past it the count is an unknown naming the cap,
 * instead of an allocation of a billion entries that ends the process.
 */
export const MAX_COUNT = MAX_ITEMS;
/** Why a count past `MAX_COUNT` is not followed. */
export function countCapReason(what: string, n: number): string {
  return `${what} = ${n.toLocaleString('en-US')} is past the analyzer's size cap of ${MAX_COUNT.toLocaleString('en-US')} (size cap)`;
}
/** A dict holds at most this many keys (lookups are linear). */
export const MAX_DICT = 10_000;
/**
 * A string holds at most this many characters: a text corpus read whole for its character vocabulary fits
 * (Tiny Shakespeare's input.txt is 1,115,394 characters).
 */
export const MAX_STR = 4_000_000;
/**
 * Statements and expressions nested deeper than this (counting through
 * calls) are not followed and evaluate to an unknown. It keeps the recursive
 * evaluator well inside V8's default stack (about 10,000 frames, a dozen
 * per level of nesting here).
 */
export const MAX_NESTING = 400;
