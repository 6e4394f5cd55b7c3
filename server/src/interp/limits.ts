/**
 * The analyzer's own limits. Every value that can grow (lists, tuples,
 * dicts, strings) has a size cap, and the evaluator a nesting cap; past a
 * cap the value or the nested part becomes an unknown whose reason names
 * the cap, so no input can exhaust memory or the stack, and the rest of the
 * file is still analysed.
 */

/** A list or tuple holds at most this many items. */
export const MAX_ITEMS = 100_000;
/** A dict holds at most this many keys (lookups are linear). */
export const MAX_DICT = 10_000;
/** A string holds at most this many characters. */
export const MAX_STR = 1_000_000;
/**
 * Statements and expressions nested deeper than this (counting through
 * calls) are not followed and evaluate to an unknown. It keeps the recursive
 * evaluator well inside V8's default stack (about 10,000 frames, a dozen
 * per level of nesting here).
 */
export const MAX_NESTING = 400;
