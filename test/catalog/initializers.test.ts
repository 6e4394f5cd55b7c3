// The initialiser catalogue: which initialisers are random (Threefry draws)
// and which are factories, per jax/_src/nn/initializers.py (jax v0.4.30),
// flax/linen/initializers.py (v0.8.5) and haiku/_src/initializers.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INITIALIZERS, initFill, withPartitioning } from '../../server/src/frameworks/initializers';

function lookup(name: string) {
  const e = INITIALIZERS.find((i) => i.names.includes(name));
  assert.ok(e, `no entry for ${name}`);
  return e;
}

test('jax / flax factories are random; zeros and ones are plain functions', () => {
  for (const p of ['jax.nn.initializers', 'flax.linen.initializers']) {
    for (const n of ['lecun_normal', 'glorot_uniform', 'xavier_normal', 'he_normal', 'kaiming_uniform', 'normal', 'uniform', 'truncated_normal', 'variance_scaling', 'orthogonal']) {
      assert.deepEqual([lookup(`${p}.${n}`).random, lookup(`${p}.${n}`).factory], [true, true], `${p}.${n}`);
    }
    assert.deepEqual([lookup(`${p}.zeros`).random, lookup(`${p}.zeros`).factory], [false, false]);
    assert.deepEqual([lookup(`${p}.ones`).random, lookup(`${p}.ones`).factory], [false, false]);
    assert.deepEqual([lookup(`${p}.constant`).random, lookup(`${p}.constant`).factory], [false, true]);
  }
  assert.equal(lookup('flax.linen.initializers.zeros_init').factory, true);
});

test('haiku initialisers are classes; the random ones draw, Constant does not; no Zeros/Ones', () => {
  for (const n of ['TruncatedNormal', 'RandomNormal', 'RandomUniform', 'VarianceScaling', 'Orthogonal']) assert.equal(lookup(`haiku.initializers.${n}`).random, true);
  assert.equal(lookup('haiku.initializers.Constant').random, false);
  assert.equal(INITIALIZERS.some((i) => i.names.includes('haiku.initializers.Zeros')), false);
});

test('no name appears twice; every entry cites its source', () => {
  const all = INITIALIZERS.flatMap((i) => i.names);
  assert.equal(new Set(all).size, all.length);
  for (const i of INITIALIZERS) assert.match(i.citation, /\.py \(/);
});

test('withPartitioning keeps the initialiser and adds the names; initFill maps fills', () => {
  const base = { kind: 'init' as const, name: 'flax.linen.initializers.lecun_normal', random: true };
  const w = withPartitioning(base, ['embed', null]);
  assert.deepEqual(w, { ...base, partition: ['embed', null] });
  assert.equal('partition' in base, false);
  assert.equal(initFill(w, 'zeros'), 'random');
  assert.equal(initFill({ kind: 'init', name: 'jax.nn.initializers.zeros', random: false }, 'random'), 'zeros');
  assert.equal(initFill({ kind: 'init', name: 'flax.linen.initializers.ones_init', random: false }, 'random'), 'ones');
  assert.equal(initFill({ kind: 'init', name: 'haiku.initializers.Constant', random: false }, 'random'), 'constant');
  assert.equal(initFill(undefined, 'zeros'), 'zeros');
});
