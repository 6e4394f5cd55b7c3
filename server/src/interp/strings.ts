/**
 * Python string formatting for the names code builds at construction time
 * (`self.add_module("denselayer%d" % (i + 1), layer)`,
 * `"layer{}".format(i)`): printf-style `%` with the d/i/s/% conversions and
 * `str.format` with `{}`, `{0}` and `{name}` fields without format specs.
 * Anything else is left unknown, never guessed.
 * Sources: Python docs, "printf-style String Formatting" and "Format String
 * Syntax" (library/stdtypes.html#old-string-formatting, library/string.html#formatstrings).
 */
import { type Value, str, unknown } from './values';

/** Python's str() of a value, where it is certain; undefined otherwise. */
export function pyStr(v: Value): string | undefined {
  switch (v.t) {
    case 'str': return v.v;
    case 'int': return String(v.v);
    case 'bool': return v.v ? 'True' : 'False';
    case 'none': return 'None';
    case 'float': {
      // repr(float): shortest round-trip digits, like JS, but always with a '.0' for integral values
      // and in exponent form outside [1e-4, 1e16); only the range where both agree is answered.
      const a = Math.abs(v.v);
      if (!Number.isFinite(v.v) || (a !== 0 && (a < 1e-4 || a >= 1e16))) return undefined;
      return Number.isInteger(v.v) ? v.v.toFixed(1) : String(v.v);
    }
    default: return undefined;
  }
}

/** `fmt % args` with %d, %i, %s and %%; other conversions, flags or widths give unknown. */
export function percentFormat(fmt: string, args: Value): Value {
  const items = args.t === 'tuple' ? args.items : [args];
  let k = 0;
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i];
    if (ch !== '%') { out += ch; continue; }
    const conv = fmt[++i];
    if (conv === '%') { out += '%'; continue; }
    const a = items[k++];
    if (!a) return unknown('string formatting: not enough arguments');
    if (conv === 'd' || conv === 'i') {
      if (a.t === 'int') out += String(a.v);
      else if (a.t === 'bool') out += a.v ? '1' : '0';
      else if (a.t === 'float' && Number.isFinite(a.v)) out += String(Math.trunc(a.v));
      else return unknown(`string formatting: %${conv} of a value that is not a known number`);
    } else if (conv === 's') {
      const s = pyStr(a);
      if (s === undefined) return unknown('string formatting: %s of a value that is not known');
      out += s;
    } else return unknown(`string formatting: conversion %${conv ?? ''} is not modelled`);
  }
  if (k !== items.length) return unknown('string formatting: not all arguments converted');
  return str(out);
}

/** `fmt.format(*args, **kw)` with `{}`, `{0}`, `{name}` and `{{`/`}}`; format specs and conversions give unknown. */
export function strFormat(fmt: string, args: Value[], kw: Map<string, Value>): Value {
  let out = '';
  let auto = 0;
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i];
    if (ch === '{' && fmt[i + 1] === '{') { out += '{'; i++; continue; }
    if (ch === '}' && fmt[i + 1] === '}') { out += '}'; i++; continue; }
    if (ch !== '{') { out += ch; continue; }
    const end = fmt.indexOf('}', i);
    if (end < 0) return unknown('str.format: unmatched {');
    const field = fmt.slice(i + 1, end);
    i = end;
    if (/[!:.[]/.test(field)) return unknown(`str.format: field {${field}} is not modelled`);
    const v = field === '' ? args[auto++] : /^\d+$/.test(field) ? args[Number(field)] : kw.get(field);
    if (!v) return unknown(`str.format: no value for {${field}}`);
    const s = pyStr(v);
    if (s === undefined) return unknown(`str.format: {${field}} is not a known value`);
    out += s;
  }
  return str(out);
}
