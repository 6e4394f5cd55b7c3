// Catalogues complete to the signature: every row of the tables in
// ./signatures/ (one per framework, each citing the installed source) is
// expanded into calls — the base call, then each argument value alone on top
// of it — and every call is built twice: by the real framework in one Python
// process per framework (signature_truth.py: meta device / eval_shape, so
// nothing is allocated), and by oomlens analysing a one-line program that
// makes the same call. Parameter and buffer element counts per dtype must be
// identical, and the analysis must leave nothing unknown.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../server/src/analysis/analyze';
import { buildCatalogues } from '../../server/src/frameworks/catalogues';
import type { TensorFact } from '../../shared/src/facts';
import { runPythonJson } from '../python/venv';
import { EQUINOX_SIGNATURES } from './signatures/equinox';
import { FLAX_SIGNATURES } from './signatures/flax';
import { HAIKU_SIGNATURES } from './signatures/haiku';
import { NNX_SIGNATURES } from './signatures/nnx';
import { TORCH_SIGNATURES } from './signatures/torch';
import type { Py, SignatureRow, SignatureTable } from './signatures/types';

type Histogram = Record<string, number>;
type Truth = { params: Histogram; buffers: Histogram; key?: boolean } | { error: string };

interface Call {
  row: SignatureRow;
  /** What varies from the base call, for the test's name. */
  what: string;
  args: Py[];
  kwargs: Record<string, Py>;
  input?: number[];
  input_dtype?: string;
  state?: boolean;
  inputs?: number;
}

const NAMESPACE = { torch: 'torch.nn', flax: 'flax.linen', haiku: 'haiku', equinox: 'equinox.nn', nnx: 'flax.nnx' } as const;

/**
 * Positional parameters come from the catalogue entry's signature so that a
 * varied positional argument replaces the base one instead of repeating it
 * as a keyword; a wrong signature order then shows up as a count mismatch,
 * since Python binds the same position to the real parameter.
 */
function signatureOf(t: SignatureTable, layer: string): string[] {
  const e = buildCatalogues().layers.get(`${NAMESPACE[t.framework]}.${layer}`);
  return e?.signature ?? [];
}

function expand(t: SignatureTable): Call[] {
  const calls: Call[] = [];
  for (const row of t.rows) {
    const sig = signatureOf(t, row.layer);
    const base: Call = { row, what: 'base', args: row.args, kwargs: row.kwargs ?? {}, input: row.input, input_dtype: row.inputDtype, state: row.state, inputs: row.inputs };
    calls.push(base);
    for (const [name, values] of Object.entries(row.vary)) {
      for (const v of values) {
        const what = `${name}=${JSON.stringify(v)}`;
        if (name === '$input_dtype') { calls.push({ ...base, what, input_dtype: v as string }); continue; }
        const i = sig.indexOf(name);
        if (i >= 0 && i < row.args.length) {
          const args = [...row.args]; args[i] = v;
          calls.push({ ...base, what, args });
        } else calls.push({ ...base, what, kwargs: { ...base.kwargs, [name]: v } });
      }
    }
  }
  return calls;
}

function py(v: Py, dtypeModule: string): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number' || typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return v.length === 1 ? `(${py(v[0], dtypeModule)},)` : `(${v.map((x) => py(x, dtypeModule)).join(', ')})`;
  return `${dtypeModule}.${v.dtype}`;
}

function callText(c: Call, dtypeModule: string, extra: string[] = []): string {
  return [...c.args.map((a) => py(a, dtypeModule)), ...Object.entries(c.kwargs).map(([k, v]) => `${k}=${py(v, dtypeModule)}`), ...extra].join(', ');
}

/** The one-line program that makes the call, as a user would write it. */
function program(fw: SignatureTable['framework'], c: Call, truth: Truth): string {
  const x = `jnp.ones(${py(c.input ?? [], 'jnp')}, jnp.${c.input_dtype ?? 'float32'})`;
  const JAX = 'import jax\nimport jax.numpy as jnp\n';
  switch (fw) {
    // A bare layer is not a model (analysis/evidence.ts): each layer is built inside a model, as users write them.
    case 'torch': return `import torch\nm = torch.nn.Sequential(torch.nn.${c.row.layer}(${callText(c, 'torch')}))\n`;
    case 'flax': return `${JAX}import flax.linen as nn\nv = nn.${c.row.layer}(${callText(c, 'jnp')}).init(jax.random.PRNGKey(0), ${x})\n`;
    case 'haiku': return c.state
      ? `${JAX}import haiku as hk\nf = hk.transform_with_state(lambda x: hk.${c.row.layer}(${callText(c, 'jnp')})(x, is_training=True))\np, s = f.init(jax.random.PRNGKey(0), ${x})\n`
      : `${JAX}import haiku as hk\nf = hk.transform(lambda x: hk.${c.row.layer}(${callText(c, 'jnp')})(${Array(c.inputs ?? 1).fill('x').join(', ')}))\np = f.init(jax.random.PRNGKey(0), ${x})\n`;
    case 'equinox': {
      const key = 'key' in truth && truth.key ? ['key=jax.random.PRNGKey(0)'] : [];
      return `${JAX}import equinox as eqx\n\nclass M(eqx.Module):\n    layer: eqx.Module\n\n    def __init__(self):\n        self.layer = eqx.nn.${c.row.layer}(${callText(c, 'jnp', key)})\n\nm = M()\n`;
    }
    case 'nnx': {
      const rngs = 'key' in truth && truth.key ? ['rngs=rngs'] : [];
      return `${JAX}from flax import nnx\n\nclass M(nnx.Module):\n    def __init__(self, rngs):\n        self.layer = nnx.${c.row.layer}(${callText(c, 'jnp', rngs)})\n\nm = M(nnx.Rngs(0))\n`;
    }
  }
}

function histogram(ts: TensorFact[]): Histogram {
  const h: Histogram = {};
  for (const t of ts) h[t.dtype] = (h[t.dtype] ?? 0) + t.shape.reduce((m, d) => m * d, 1);
  return h;
}

const TABLES = [TORCH_SIGNATURES, FLAX_SIGNATURES, HAIKU_SIGNATURES, EQUINOX_SIGNATURES, NNX_SIGNATURES];

for (const table of TABLES) {
  describe(`${table.framework} catalogue honours every shape/dtype argument of the real signature`, () => {
    const calls = expand(table);
    let truth: { version: string; results: Truth[] };
    before(() => {
      truth = runPythonJson('../catalog/signature_truth.py', {
        framework: table.framework,
        cases: calls.map((c) => ({ layer: c.row.layer, args: c.args, kwargs: c.kwargs, input: c.input, input_dtype: c.input_dtype, state: c.state, inputs: c.inputs })),
      });
    });

    it(`the table was read from the installed ${table.framework} ${table.version}`, () => {
      assert.equal(truth.version, table.version);
    });

    calls.forEach((c, i) => {
      it(`${c.row.layer} ${c.what} (${c.row.source})`, async () => {
        const t = truth.results[i];
        assert.ok(!('error' in t), `the real ${table.framework} rejected the call: ${'error' in t ? t.error : ''}`);
        const src = program(table.framework, c, t);
        const r = await analyze(src, { device: 'a100-80gb' });
        // A container of layers without parameters or buffers allocates nothing: no model to report.
        if (!Object.keys(t.params).length && !Object.keys(t.buffers).length && r.models.length === 0) return;
        assert.equal(r.models.length, 1, `one model expected from:\n${src}`);
        const f = r.models[0].facts;
        assert.deepEqual(f.unknowns.map((u) => u.reason), [], src);
        assert.deepEqual({ params: histogram(f.params), buffers: histogram(f.buffers) }, { params: t.params, buffers: t.buffers }, src);
      });
    });
  });
}
