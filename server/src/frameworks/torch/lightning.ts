/**
 * PyTorch Lightning's LightningModule (lightning 2.x, lightning/pytorch/core/module.py): a
 * torch.nn.Module subclass (interp.ts classKindOf), whose parameters are those of the layers the
 * subclass registers. Modelled here: the parts that decide which layers are built.
 *
 * `self.save_hyperparameters()` (lightning/pytorch/core/mixins/hparams_mixin.py, save_hyperparameters
 * → utilities/parsing.py save_hyperparameters / collect_init_args): without arguments it stores the
 * calling `__init__`'s named parameters (and the entries of its `**kwargs`) in `self.hparams`, an
 * AttributeDict read as `self.hparams.hidden_dim` or `self.hparams["hidden_dim"]`; string arguments
 * keep only those names; `ignore=` drops names; a dict or Namespace argument is stored as it is.
 * Anything else (a frame that is not a function call) leaves hparams unknown.
 *
 * `Trainer.add_argparse_args(parser)` (pytorch_lightning 1.x, trainer/trainer.py → utilities/argparse.py
 * add_argparse_args) adds the Trainer's own flags to `parser` and returns it: the model's arguments
 * declared on that parser keep their defaults.
 */
import type { Interpreter } from '../../interp/interp';
import { type Value, NONE, str, unknown } from '../../interp/values';

const BASE = 'lightning.pytorch.LightningModule';

export function installLightning(it: Interpreter): void {
  it.externs.set(`${BASE}.__init__`, () => NONE);
  it.externs.set('lightning.pytorch.Trainer.add_argparse_args', (_i, _self, c, node) => c.args[0] ?? c.kw.get('parent_parser') ?? unknown('Trainer.add_argparse_args without a parser', it.span(node)));
  it.externs.set(`${BASE}.save_hyperparameters`, (_i, self, c, node) => {
    if (self?.t !== 'inst') return NONE;
    const frame = it.currentFrame();
    const keys: Value[] = [];
    const vals: Value[] = [];
    const first = c.args[0];
    if (first && first.t !== 'str') {
      // save_hyperparameters(dict) / (Namespace): that object is the hparams (parsing.py: `isinstance(hp, dict)` etc.).
      if (first.t === 'dict') { self.attrs.set('hparams', { t: 'dict', keys: [...first.keys], vals: [...first.vals], attrs: true }); return NONE; }
      self.attrs.set('hparams', unknown('save_hyperparameters of a value that is not a dict', it.span(node)));
      return NONE;
    }
    if (!frame.params) {
      self.attrs.set('hparams', unknown('save_hyperparameters called outside a function: its arguments are not known', it.span(node)));
      return NONE;
    }
    const ignoreV = c.kw.get('ignore');
    const ignore = new Set<string>(
      ignoreV?.t === 'str' ? [ignoreV.v] : ignoreV?.t === 'list' || ignoreV?.t === 'tuple' ? ignoreV.items.flatMap((x) => (x.t === 'str' ? [x.v] : [])) : [],
    );
    const wanted = c.args.filter((a) => a.t === 'str').map((a) => (a as { v: string }).v);
    const add = (k: string, v: Value): void => {
      if (k === 'self' || k === '__class__' || ignore.has(k) || (wanted.length && !wanted.includes(k))) return;
      keys.push(str(k));
      vals.push(v);
    };
    for (const p of frame.params) {
      const v = frame.vars.get(p);
      if (v !== undefined) add(p, v);
    }
    const kw = frame.varKw ? frame.vars.get(frame.varKw) : undefined;
    if (kw?.t === 'dict') kw.keys.forEach((k, i) => { if (k.t === 'str') add(k.v, kw.vals[i]); });
    self.attrs.set('hparams', { t: 'dict', keys, vals, attrs: true });
    return NONE;
  });
}
