/**
 * Joins the framework catalogues into lookup tables by qualified name, once
 * per process.
 */
import type { Catalogues } from '../interp/interp';
import { EINOPS_LAYERS, EINOPS_OPS } from './einops/catalog';
import { EQUINOX_LAYERS } from './equinox/catalog';
import { FLAX_LAYERS } from './flax/catalog';
import { HAIKU_LAYERS } from './haiku/catalog';
import { NNX_LAYERS } from './nnx/catalog';
import { INITIALIZERS } from './initializers';
import { OPS } from './ops';
import { TORCH_LAYERS } from './torch/catalog';

let cached: Catalogues | undefined;

export function buildCatalogues(): Catalogues {
  if (cached) return cached;
  const layers = new Map();
  for (const e of [...EQUINOX_LAYERS, ...FLAX_LAYERS, ...HAIKU_LAYERS, ...NNX_LAYERS, ...TORCH_LAYERS, ...EINOPS_LAYERS]) for (const n of e.names) layers.set(n, e);
  const ops = new Map();
  for (const o of [...OPS, ...EINOPS_OPS]) for (const n of o.names) ops.set(n, o);
  const inits = new Map();
  for (const i of INITIALIZERS) for (const n of i.names) inits.set(n, { random: i.random, factory: i.factory, citation: i.citation });
  cached = { layers, ops, inits };
  return cached;
}
