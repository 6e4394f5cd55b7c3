/**
 * Hugging Face `datasets` and tokenizers as a training program uses them.
 * The data are data: oomlens never reads them. But the function a program
 * gives `Dataset.map(fn)` runs on every example (datasets/arrow_dataset.py
 * `Dataset.map`), and what it asks of the tokenizer bounds the sequence
 * length: `tokenizer(text, truncation=True, max_length=N)` makes no example
 * longer than N tokens (transformers tokenization_utils_base.py
 * `_get_padding_truncation_strategies`), and `padding="max_length"` makes
 * every example exactly N. So `fn` is run once on an example whose fields
 * are unknown, and each tokenizer call records its bound. The Trainer takes
 * the largest bound as the sequence length (frameworks/transformers/trainer.ts).
 */
import type { Span } from '../../../../shared/src/facts';
import { BudgetExceeded, Cancelled, type CallArgs, type Interpreter } from '../../interp/interp';
import type { SyntaxNode } from '../../interp/parser';
import { type Value, NONE, num, unknown } from '../../interp/values';
import { chainGetattr } from '../../program/entrypoints';

const DATASET = 'datasets.Dataset(instance)';
const ds = (): Value => ({ t: 'extern', name: DATASET });

/** A bound on the tokens per example that a tokenizer call sets. */
export interface TokenBound { tokens: number; exact: boolean; span: Span }

export function tokenBounds(it: Interpreter): TokenBound[] {
  let b = it.state.get('tokenBounds') as TokenBound[] | undefined;
  if (!b) it.state.set('tokenBounds', (b = []));
  return b;
}

const truthy = (v: Value | undefined) => !!v && ((v.t === 'bool' && v.v) || (v.t === 'str' && v.v !== 'do_not_truncate' && v.v !== ''));

export function installDatasets(it: Interpreter): void {
  const makers = new Set(['load_dataset', 'load_from_disk', 'concatenate_datasets', 'interleave_datasets', 'Dataset.from_dict', 'Dataset.from_list',
    'Dataset.from_pandas', 'Dataset.from_json', 'Dataset.from_csv', 'Dataset.from_generator', 'Dataset.from_parquet', 'DatasetDict', 'Dataset.load_from_disk']);
  it.externPrefixes.push(['datasets.', (_i, _self, c: CallArgs, node: SyntaxNode, fnv) => {
    const name = fnv.name.slice('datasets.'.length);
    if (makers.has(name)) return ds();
    if (!fnv.name.startsWith(`${DATASET}.`)) return unknown('__pass__');
    const method = fnv.name.slice(DATASET.length + 1);
    if (method === 'map' || method === 'filter') {
      const fn = c.args[0] ?? c.kw.get('function');
      if (fn && (fn.t === 'func' || fn.t === 'extern')) runOnExample(it, fn, c, node);
      return ds();
    }
    // Everything else a Dataset/DatasetDict does returns data of the same kind (shuffle, select, train_test_split, …).
    return ds();
  }]);
  const prevItem = it.externs.get('__getitem__');
  it.externs.set('__getitem__', (i, self, c, node, fnv) => {
    if (self?.t === 'extern' && self.name === DATASET) return ds();
    return prevItem ? prevItem(i, self, c, node, fnv) : unknown('indexing is not modelled', it.span(node));
  });

  // `tokenizer.model_max_length` when from_pretrained was given it (tokenization_utils_base.py: init kwargs
  // override tokenizer_config.json); otherwise it comes from the checkpoint's files and is not known.
  chainGetattr(it, (self, name) => {
    if (self.t !== 'extern' || !/Tokenizer(Fast)?\(instance\)$/.test(self.name)) return undefined;
    if (name === 'model_max_length') return self.kw?.get('model_max_length') ?? unknown('tokenizer.model_max_length comes from the checkpoint\'s tokenizer_config.json');
    return { t: 'extern', name: `${self.name}.${name}` };
  });
  // Tokenizer calls (transformers.<X>Tokenizer[Fast](instance) and its encode methods): record the bound they set.
  const TOKENIZER = /^transformers\.\w*(Tokenizer|TokenizerFast|Processor)\(instance\)(\.(__call__|encode|encode_plus|batch_encode_plus|apply_chat_template))?$/;
  it.externPrefixes.unshift(['transformers.', (_i, _self, c: CallArgs, node: SyntaxNode, fnv) => {
    if (!TOKENIZER.test(fnv.name)) return unknown('__pass__');
    const max = num(c.kw.get('max_length') ?? NONE);
    const padding = c.kw.get('padding');
    const exact = padding?.t === 'str' && padding.v === 'max_length';
    if (max !== undefined && max > 0 && (truthy(c.kw.get('truncation')) || exact)) tokenBounds(it).push({ tokens: max, exact, span: it.span(node) });
    // What the call returns is the inference model's business (phases/inference.ts reads prompt shapes).
    return unknown('__pass__');
  }]);
}

/** Runs a map function once on an example whose fields are unknown (its effects on the program's state are what matter). */
function runOnExample(it: Interpreter, fn: Value, c: CallArgs, node: SyntaxNode): void {
  const done = (it.state.get('datasetMapsRun') as Set<unknown> | undefined) ?? new Set<unknown>();
  it.state.set('datasetMapsRun', done);
  const key = fn.t === 'func' ? fn.node.id : fn;
  if (done.has(key)) return;
  done.add(key);
  const example: Value = unknown('a dataset example (data)', it.span(node));
  const extra = c.kw.get('fn_kwargs');
  const kw = new Map<string, Value>();
  if (extra?.t === 'dict') extra.keys.forEach((k, i) => { if (k.t === 'str') kw.set(k.v, extra.vals[i]); });
  try {
    it.call(fn, { args: [example], kw }, node);
  } catch (e) {
    // The budgets end the analysis as they do elsewhere; anything else the function does with its data stays the data's.
    if (e instanceof Cancelled || e instanceof BudgetExceeded) throw e;
  }
}
