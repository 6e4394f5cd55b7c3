// Shared by the catalogue tests: find an entry by qualified name, bind
// arguments as the interpreter does (positional by signature, then keywords,
// then defaults), and read back parameter specs, unknowns and outputs.
import assert from 'node:assert/strict';
import type { Args, ArrayValue, LayerEntry, ParamSpec, UnknownValue } from '../../server/src/interp/catalog-types';

export const arr = (shape: number[], dtype: ArrayValue['dtype'] = 'float32'): ArrayValue => ({ kind: 'array', shape, dtype });

/** Parameter elements of the given role. */
export const count = (ps: ParamSpec[], role: 'param' | 'buffer' = 'param'): number =>
  ps.filter((p) => p.role === role).reduce((s, p) => s + p.shape.reduce<number>((m, d) => m * (d as number), 1), 0);

export const shapes = (ps: ParamSpec[]): Record<string, unknown> => Object.fromEntries(ps.map((p) => [p.name, p.shape]));

export function catalogue(layers: LayerEntry[]) {
  const entry = (name: string): LayerEntry => {
    const e = layers.find((l) => l.names.includes(name));
    assert.ok(e, `no entry for ${name}`);
    return e;
  };
  const bind = (e: LayerEntry, pos: Args[string][], kw: Args = {}): Args => {
    const a: Args = { ...e.defaults };
    pos.forEach((v, i) => { a[e.signature[i]] = v; });
    return { ...a, ...kw };
  };
  const specs = (name: string, x: ArrayValue | undefined, pos: Args[string][], kw: Args = {}): ParamSpec[] => {
    const e = entry(name);
    const r = e.params(bind(e, pos, kw), x);
    assert.ok(Array.isArray(r), `expected params, got ${JSON.stringify(r)}`);
    return r;
  };
  const unknownOf = (name: string, x: ArrayValue | undefined, pos: Args[string][], kw: Args = {}): UnknownValue => {
    const e = entry(name);
    const r = e.params(bind(e, pos, kw), x);
    assert.ok(!Array.isArray(r), `expected unknown, got ${JSON.stringify(r)}`);
    return r;
  };
  const out = (name: string, x: ArrayValue, pos: Args[string][], kw: Args = {}): unknown => {
    const e = entry(name);
    return e.output!(bind(e, pos, kw), x);
  };
  return { entry, bind, specs, unknownOf, out };
}
