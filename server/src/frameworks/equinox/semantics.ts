/**
 * Equinox containers: `eqx.nn.Sequential(layers)` stores `self.layers =
 * tuple(layers)` and applies them in order (equinox/nn/_sequential.py
 * Sequential.__init__ / __call__, v0.11.4). Its parameters are its layers'
 * (every array leaf of the pytree). A layer that could not be resolved makes
 * the count unknown.
 */
import type { Interpreter } from '../../interp/interp';
import { type ClassV, unknown } from '../../interp/values';

export function installEquinox(it: Interpreter): void {
  const cls: ClassV = { t: 'class', name: 'Sequential', bases: [], ns: new Map(), kind: 'equinox', dataclass: false, fields: ['layers'] };
  for (const name of ['equinox.nn.Sequential', 'equinox.nn._sequential.Sequential']) {
    it.externs.set(name, (_i, _self, c, node) => {
      const layers = c.args[0] ?? c.kw.get('layers');
      const items = layers ? it.iterate(layers, node) : undefined;
      if (!items) return unknown('eqx.nn.Sequential of layers that are not known', it.span(node));
      const lost = items.find((x) => x.t === 'unknown');
      if (lost && lost.t === 'unknown') it.note(`eqx.nn.Sequential holds a layer that is not known (${lost.reason})`, node);
      const inst = it.newInst(cls);
      inst.items = [...items];
      inst.attrs.set('layers', { t: 'tuple', items: [...items] });
      return inst;
    });
  }
}
