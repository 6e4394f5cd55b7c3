// Dtypes, units, the device catalogue, parsing of device specs and the
// framework budget. Each expected number is derived in the comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dtypeBytes, parseDType } from '../../shared/src/dtypes';
import { formatBytes, formatCount, GB, GiB } from '../../shared/src/units';
import { displayName, listDevices, parseDeviceSpec } from '../../shared/src/devices';
import { frameworkBudget, onDeviceText } from '../../shared/src/budget';
import type { DeviceSpec } from '../../shared/src/types';
import type { RuntimeFacts } from '../../shared/src/facts';

const MiB = 2 ** 20;

function spec(s: string): DeviceSpec {
  const r = parseDeviceSpec(s);
  assert.ok(!('error' in r), `expected ${s} to parse`);
  return r as DeviceSpec;
}

test('dtype sizes', () => {
  assert.equal(dtypeBytes('float32'), 4);
  assert.equal(dtypeBytes('bfloat16'), 2);
  assert.equal(dtypeBytes('float64'), 8);
  assert.equal(dtypeBytes('int4'), 0.5);
  assert.equal(dtypeBytes('bool'), 1);
  assert.equal(dtypeBytes('complex64'), 8);
});

test('dtype names from every framework spelling', () => {
  const cases: [string, string][] = [
    ['float16', 'float16'], ['fp16', 'float16'], ['half', 'float16'], ['torch.float16', 'float16'], ['torch.half', 'float16'],
    ['bf16', 'bfloat16'], ['jnp.bfloat16', 'bfloat16'], ['np.float32', 'float32'], ['f32', 'float32'],
    ['float', 'float32'], ['double', 'float64'], ['int8', 'int8'], ['uint32', 'uint32'], ['bool', 'bool'],
    ['jnp.bool_', 'bool'], ["'float32'", 'float32'], ['torch.int64', 'int64'], ['torch.long', 'int64'],
  ];
  for (const [name, want] of cases) assert.equal(parseDType(name), want, name);
  assert.equal(parseDType('quaternion'), undefined);
  assert.equal(parseDType(''), undefined);
});

test('byte and count formatting', () => {
  assert.equal(GB, 1e9);
  assert.equal(GiB, 1073741824);
  // 41.9e9 B / 1e9 = 41.9 GB.
  assert.equal(formatBytes(41.9e9, 'GB'), '41.9 GB');
  // 30 × 2^30 B = 30.0 GiB.
  assert.equal(formatBytes(30 * GiB, 'GiB'), '30.0 GiB');
  assert.equal(formatBytes(512 * MiB, 'GiB'), '512.0 MiB');
  assert.equal(formatBytes(2.5e6, 'GB'), '2.5 MB');
  assert.equal(formatBytes(33_400, 'GB'), '33.4 kB');
  assert.equal(formatBytes(2048, 'GiB'), '2.0 KiB');
  assert.equal(formatBytes(0, 'GB'), '0 B');
  assert.equal(formatBytes(12, 'GB'), '12 B');
  assert.equal(formatBytes(NaN, 'GB'), 'unknown');
  assert.equal(formatCount(7_241_732_096), '7.24 B');
  assert.equal(formatCount(124_439_808), '124.4 M');
  assert.equal(formatCount(33_400), '33.4 K');
  assert.equal(formatCount(12), '12');
});

test('catalogue holds every required id with positive capacities and citations', () => {
  const ids = listDevices().map((d) => d.id);
  for (const id of 'a100-40gb a100-80gb h100-80gb h200 v100-16gb v100-32gb t4 l4 a10g rtx-3090 rtx-4090 mi300x tpu-v3 tpu-v4 tpu-v5e tpu-v5p tpu-v6e'.split(' ')) {
    assert.ok(ids.includes(id), id);
  }
  for (const d of listDevices()) {
    assert.ok(Number.isInteger(d.capacityBytes) && d.capacityBytes > 0, d.id);
    assert.ok(d.citation.length > 0, d.id);
  }
  const byId = Object.fromEntries(listDevices().map((d) => [d.id, d]));
  // nvidia-smi totals (cost-facts §8): A100 40GB = 40960 MiB, H100 = 81559 MiB.
  assert.equal(byId['a100-40gb'].capacityBytes, 40960 * MiB);
  assert.equal(byId['h100-80gb'].capacityBytes, 81559 * MiB);
  // TPU v3: 16 GiB per TensorCore device; v5e: 16 GB per chip.
  assert.equal(byId['tpu-v3'].capacityBytes, 16 * GiB);
  assert.equal(byId['tpu-v5e'].capacityBytes, 16e9);
  // No native bfloat16 before Ampere.
  assert.equal(byId['v100-16gb'].bf16, false);
  assert.equal(byId['v100-32gb'].bf16, false);
  assert.equal(byId['t4'].bf16, false);
  assert.equal(byId['a100-40gb'].bf16, true);
});

test('device specs parse with counts, × and case', () => {
  const a = spec('a100-40gb');
  assert.equal(a.count, 1);
  assert.equal(a.device.id, 'a100-40gb');
  const b = spec('8xh100-80gb');
  assert.equal(b.count, 8);
  assert.equal(b.device.id, 'h100-80gb');
  const c = spec('8×H100-80GB');
  assert.equal(c.count, 8);
  assert.equal(c.device.id, 'h100-80gb');
  assert.equal(spec('h100').device.id, 'h100-80gb');
  assert.equal(spec('65536xtpu-v4').count, 65536);
  assert.equal(displayName(c), '8× H100 80GB');
  assert.equal(displayName(a), 'A100 40GB');
});

test('bad device specs are errors that list the known ids', () => {
  for (const bad of ['0xa100-40gb', '99999999xh100-80gb', '65537xh100-80gb', 'h100-80gb-foo', 'a100', 'v100', '', 'quantum-9000', '-1xa100-40gb', '1.5xa100-40gb']) {
    const r = parseDeviceSpec(bad);
    assert.ok('error' in r, `expected "${bad}" to be refused`);
    assert.ok(r.known.includes('a100-40gb') && r.known.includes('tpu-v5p'), bad);
  }
  const amb = parseDeviceSpec('a100');
  assert.ok('error' in amb && /a100-40gb/.test(amb.error) && /a100-80gb/.test(amb.error));
  const unk = parseDeviceSpec('quantum-9000');
  assert.ok('error' in unk && /h100-80gb/.test(unk.error), 'the unknown-device message names the known ids');
});

const jax = (extra: RuntimeFacts['jax'] = {}, versions: Record<string, string> = {}): RuntimeFacts => ({ runtime: 'jax', jax: extra, versions });

test('JAX GPU budget: 75% of total, preallocated', () => {
  // 0.75 × 40960 MiB = 30720 MiB = 30 GiB exactly.
  const b = frameworkBudget(spec('a100-40gb'), jax());
  assert.equal(b.bytes, 30 * GiB);
  assert.equal(b.reservedAtStartBytes, 30 * GiB);
  assert.match(b.explanation, /75% of 40,960 MiB/);
  // 0.75 × 81920 MiB = 60 GiB exactly.
  assert.equal(frameworkBudget(spec('a100-80gb'), jax()).bytes, 60 * GiB);
});

test('JAX GPU budget: preallocate=false keeps the cap; fraction and old versions', () => {
  const b = frameworkBudget(spec('a100-40gb'), jax({ preallocate: false }));
  assert.equal(b.bytes, 30 * GiB);
  assert.equal(b.reservedAtStartBytes, undefined);
  // 0.5 × 40960 MiB = 20 GiB.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({ memFraction: 0.5 })).bytes, 20 * GiB);
  // jax 0.4.13 still used 0.9: floor(0.9 × 40960 MiB) = floor(38654705664) bytes.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({}, { jax: '0.4.13' })).bytes, Math.floor(0.9 * 40960 * MiB));
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({}, { jax: '0.4.30' })).bytes, 30 * GiB);
  // The platform allocator has no pool: the whole card.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({ allocator: 'platform' })).bytes, 40960 * MiB);
});

test('JAX TPU budget ignores XLA_PYTHON_CLIENT settings', () => {
  const b = frameworkBudget(spec('8xtpu-v3'), jax({ memFraction: 0.5 }));
  assert.equal(b.bytes, 16 * GiB);
  assert.equal(b.reservedAtStartBytes, undefined);
});

test('PyTorch GPU budget: capacity less the runtime layer (CUDA context, cuBLAS and cuBLASLt workspaces)', () => {
  // A100 (8.0): 40960 MiB − 400 MiB context − (2 × 4096 + 8 × 16) KiB cuBLAS − 1024 KiB cuBLASLt = 40,550.875 MiB
  // (CublasHandlePool.cpp defaults ":4096:2:16:8" and 1024 KiB).
  const b = frameworkBudget(spec('a100-40gb'), { runtime: 'torch', versions: {} });
  assert.deepEqual(b.runtime!.map((r) => r.bytes), [400 * MiB, 8320 * 1024, 1024 * 1024]);
  assert.equal(b.bytes, 40960 * MiB - 400 * MiB - 8320 * 1024 - 1024 * 1024);
  assert.match(b.citation, /109888/);
  assert.match(b.citation, /CublasHandlePool/);
  // Hopper (9.0): the cuBLAS workspace is 32 MiB.
  const h = frameworkBudget(spec('h100-80gb'), { runtime: 'torch', versions: {} });
  assert.equal(h.bytes, 81559 * MiB - 400 * MiB - 32 * MiB - 1 * MiB);
  // JAX has no runtime parts: its pool is a fraction of the card.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({})).runtime, undefined);
});

test('onDeviceText: tensors + runtime = total of the card; "≥" for a lower bound; nothing for JAX or an unknown peak', () => {
  const b = frameworkBudget(spec('a100-40gb'), { runtime: 'torch', versions: {} });
  const held = 400 * MiB + 8320 * 1024 + 1024 * 1024; // 428,998,656 B = 429.0 MB
  assert.equal(onDeviceText({ peakBytes: 10e9, fits: true }, b, 'GB'), `tensors 10.0 GB + runtime 429.0 MB = ${((10e9 + held) / 1e9).toFixed(1)} GB of 42.9 GB`);
  assert.match(onDeviceText({ peakBytes: 10e9, fits: null }, b, 'GB')!, /^tensors ≥ 10\.0 GB .* = ≥ 10\.4 GB/);
  assert.equal(onDeviceText({ peakBytes: null, fits: null }, b, 'GB'), undefined);
  assert.equal(onDeviceText({ peakBytes: 10e9, fits: true }, frameworkBudget(spec('a100-40gb'), jax({})), 'GB'), undefined);
});
