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
      // Built outside any model from layers built one by one (`eqx.nn.Sequential([eqx.nn.Linear(...), ...])` at module
      // level): the Sequential is the model. The layers' own records (each made its parameters) become its record,
      // in order, so its count and its init phase are the layers' together; a layer of unknown size leaves the count
      // unknown instead of vanishing.
      if (!it.memory.current && it.memory.abstractDepth === 0) {
        const parts = new Set<object>(items.filter((x) => x.t === 'inst'));
        const idx = it.memory.finishedIndicesOf(parts).sort((a, b) => a - b);
        const rec = it.memory.begin({ name: 'Sequential', framework: 'equinox', span: it.span(node), phase: 'init', jitted: it.memory.jitDepth > 0, gc: false });
        for (const i of idx) {
          const r = it.memory.finished[i];
          rec.events.push(...r.events);
          rec.unknowns.push(...r.unknowns);
          rec.observations.push(...r.observations);
        }
        if (lost && lost.t === 'unknown') rec.unknowns.push({ what: 'Sequential', reason: `a layer is not known (${lost.reason})`, span: it.span(node) });
        for (const i of [...idx].reverse()) it.memory.removeFinished(i);
        rec.result = inst;
        it.memory.end(rec);
      }
      return inst;
    });
  }
}
