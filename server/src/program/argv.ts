/**
 * Command-line words (from a launch command, program/launch.ts) given to the
 * program's argument readers, each following its library's own rules:
 *
 * - argparse (cpython Lib/argparse.py `_parse_known_args`): `--opt value`,
 *   `--opt=value`, `-o value`, `-ovalue`; a unique prefix of a long option
 *   (`allow_abbrev`); `nargs` None / '?' / '*' / '+' / N; actions
 *   store_true/false/const, append, count; the value converted by `type`
 *   (a user function such as `str2bool` is called on the word); positionals
 *   in order.
 * - HfArgumentParser (transformers/hf_argparser.py): every dataclass field is
 *   `--field` (and `--field-with-dashes`); a bool field alone means True, with
 *   a word `true/false/yes/no/1/0` (`string_to_bool`); `--no_field` for a bool
 *   defaulting to True; the value's type from the field's annotation.
 * - fire (fire/core.py, parser.py): positional words fill the parameters in
 *   order; `--name value` / `--name=value`; a bare `--flag` is True and
 *   `--noflag` False; each value is read as a Python literal when it is one,
 *   else kept as a string (`parser.DefaultParseValue`).
 * - absl.flags (absl/flags/_flagvalues.py): `--name=value` / `--name value`,
 *   `--name` / `--noname` for booleans, the value parsed by the flag's kind;
 *   ml_collections `--config=file.py` and `--config.a.b=value` overrides.
 * - hydra (hydra/core/override_parser): `key.sub=value` and `group=option`.
 * A word whose value is not known (an unset shell variable) makes the value
 * it fills unknown; it is never guessed.
 */
import type { ArgWord } from './launch';
import { type Value, NONE, str, unknown } from '../interp/values';

/**
 * A Python literal as fire (and absl's config overrides) read one: numbers, True/False/None, quoted strings, else the word.
 * With `bareWords` (fire, parser.py `_LiteralEval`): the word is parsed as a Python expression whose bare names
 * (other than True/False/None) are replaced by strings before `ast.literal_eval`, so `[q_proj,v_proj]` is the list
 * `['q_proj', 'v_proj']` and `1,2` the tuple `(1, 2)`; what does not parse that way stays the word (`DefaultParseValue`).
 */
export function literal(word: string, bareWords = false): Value {
  const w = word.trim();
  if (bareWords && /[[({,]/.test(w)) { const c = fireContainer(w); if (c) return c; }
  if (/^[+-]?\d+$/.test(w)) return { t: 'int', v: Number(w) };
  if (/^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/.test(w)) return { t: 'float', v: Number(w) };
  if (w === 'True') return { t: 'bool', v: true };
  if (w === 'False') return { t: 'bool', v: false };
  if (w === 'None') return NONE;
  const q = /^(['"])(.*)\1$/s.exec(w);
  if (q) return str(q[2]);
  return str(word);
}

/** fire's reading of a container literal (see `literal`); undefined when Python would not parse it as one. */
function fireContainer(w: string): Value | undefined {
  const toks = w.match(/\s+|'[^'\\]*'|"[^"\\]*"|[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|[A-Za-z_]\w*|[[\](){},:]|./g)?.filter((t) => !/^\s+$/.test(t)) ?? [];
  let i = 0;
  const fail = (): never => { throw new Error('not a literal'); };
  const atom = (): Value => {
    const t = toks[i++] ?? fail();
    if (t === '[' || t === '(' || t === '{') return group(t);
    if (/^['"]/.test(t)) return str(t.slice(1, -1));
    if (/^[A-Za-z_]/.test(t)) return t === 'True' || t === 'False' ? { t: 'bool', v: t === 'True' } : t === 'None' ? NONE : str(t);
    if (/^[+-]?[\d.]/.test(t)) return /^[+-]?\d+$/.test(t) ? { t: 'int', v: Number(t) } : { t: 'float', v: Number(t) };
    return fail();
  };
  // Comma-separated items up to `end` (or the end of the words); `sawComma` tells `(x)` from `(x,)`.
  const items = (end: string | undefined, dict: boolean): { items: Value[]; keys: Value[]; sawComma: boolean } => {
    const out: Value[] = [], keys: Value[] = [];
    let sawComma = false;
    while (i < toks.length && toks[i] !== end) {
      const a = atom();
      if (dict) { if (toks[i++] !== ':') fail(); keys.push(a); out.push(atom()); } else out.push(a);
      if (toks[i] === ',') { i++; sawComma = true; } else if (toks[i] !== end) fail();
    }
    if (end !== undefined && toks[i++] !== end) fail();
    return { items: out, keys, sawComma };
  };
  const group = (open: string): Value => {
    if (open === '{') {
      const r = items('}', true);
      return { t: 'dict', keys: r.keys, vals: r.items };
    }
    const r = items(open === '[' ? ']' : ')', false);
    if (open === '[') return { t: 'list', items: r.items };
    return r.items.length === 1 && !r.sawComma ? r.items[0] : { t: 'tuple', items: r.items };
  };
  try {
    const r = items(undefined, false);
    if (i !== toks.length || r.items.length === 0) return undefined;
    return r.items.length === 1 && !r.sawComma ? r.items[0] : { t: 'tuple', items: r.items };
  } catch { return undefined; }
}

/** transformers `string_to_bool`. */
export function stringToBool(w: string): boolean | undefined {
  const l = w.toLowerCase();
  if (['yes', 'true', 't', 'y', '1'].includes(l)) return true;
  if (['no', 'false', 'f', 'n', '0'].includes(l)) return false;
  return undefined;
}

/** A word converted by a type named in an annotation (`int`, `Optional[float]`, `bool`, `str`, `List[int]`). */
export function byAnnotation(word: string, ann: string | undefined, dflt?: Value, bareWords = false): Value {
  const a = (ann ?? '').replace(/\s/g, '');
  const inner = /^(?:Optional|typing\.Optional)\[(.+)\]$/.exec(a)?.[1] ?? /^(.+)\|None$/.exec(a)?.[1] ?? a;
  const kind = inner || (dflt ? { int: 'int', float: 'float', bool: 'bool', str: 'str' }[dflt.t as string] ?? '' : '');
  if (kind === 'int') return /^[+-]?\d+$/.test(word) ? { t: 'int', v: Number(word) } : unknown(`\`${word}\` is not an int`);
  if (kind === 'float') return Number.isFinite(Number(word)) && word.trim() !== '' ? { t: 'float', v: Number(word) } : unknown(`\`${word}\` is not a float`);
  if (kind === 'bool') { const b = stringToBool(word); return b === undefined ? unknown(`\`${word}\` is not a bool`) : { t: 'bool', v: b }; }
  if (kind === 'str') return str(word);
  return literal(word, bareWords);
}

export interface OptionWord { name: string; value?: ArgWord; index: number }

/**
 * Splits words into `--name[=value]` options and positional words, the way
 * fire and HfArgumentParser do: a word after an option that does not start
 * with `-` is that option's value unless `isFlag(name)` says it takes none.
 */
export function splitOptions(argv: ArgWord[], isFlag: (name: string) => boolean): { options: OptionWord[]; positional: ArgWord[] } {
  const options: OptionWord[] = [];
  const positional: ArgWord[] = [];
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i];
    if (w !== null && w.startsWith('--') && w.length > 2) {
      const eq = w.indexOf('=');
      if (eq > 0) { options.push({ name: w.slice(2, eq), value: w.slice(eq + 1), index: i }); continue; }
      const name = w.slice(2);
      const next = argv[i + 1];
      const takesNext = next !== undefined && (next === null || !next.startsWith('--')) && !(isFlag(name) && (next === null || stringToBool(next) === undefined));
      if (takesNext) { options.push({ name, value: next, index: i }); i++; }
      else options.push({ name, index: i });
    } else positional.push(w);
  }
  return { options, positional };
}
