// Dtypes, units, the device catalogue, parsing of device specs and the
// framework budget. Each expected number is derived in the comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dtypeBytes, parseDType } from '../../shared/src/dtypes';
import { formatBytes, formatCount, GB, GiB } from '../../shared/src/units';
import { displayName, listDevices, parseDeviceSpec, usableCapacity } from '../../shared/src/devices';
import { frameworkBudget, onDeviceText } from '../../shared/src/budget';
import type { DeviceSpec } from '../../shared/src/types';
import type { RuntimeFacts } from '../../shared/src/facts';

const MiB = 2 ** 20;
// What CUDA reports as an A100 40GB's total (deviceQuery: "40339 MBytes (42298834944 bytes)", devices.ts):
// 42,298,834,944 B = 39.39 GiB, 661 MiB under nvidia-smi's 40,960 MiB. Budgets are taken from it.
const A100_40_CUDA = 42_298_834_944;

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
  // CUDA's totals, where a public figure names the card: never above nvidia-smi's, each cited with its source.
  for (const d of listDevices().filter((x) => x.usableBytes !== undefined)) {
    assert.ok(Number.isInteger(d.usableBytes) && d.usableBytes! <= d.capacityBytes, d.id);
    assert.match(d.usableCitation ?? '', /github\.com\/[\w.-]+\/[\w.-]+\/(issues\/\d+|pull\/\d+|blob\/[0-9a-f]{40}\/)/, d.id);
  }
  assert.equal(byId['a100-40gb'].usableBytes, A100_40_CUDA);
  // PyTorch's "total capacity of 79.14 GiB" on an A100 80GB: round(79.14 × 2^30) = 84,975,927,951 B.
  assert.equal(byId['a100-80gb'].usableBytes, 84_975_927_951);
  // TPU v3: 16 GiB per TensorCore device; v5e: 16 GB per chip.
  assert.equal(byId['tpu-v3'].capacityBytes, 16 * GiB);
  assert.equal(byId['tpu-v5e'].capacityBytes, 16e9);
  // No native bfloat16 before Ampere.
  assert.equal(byId['v100-16gb'].bf16, false);
  assert.equal(byId['v100-32gb'].bf16, false);
  assert.equal(byId['t4'].bf16, false);
  assert.equal(byId['a100-40gb'].bf16, true);
});

test('usableCapacity: CUDA\'s total where known (clamped to the nominal total), else the nominal total, marked unknown', () => {
  const byId = Object.fromEntries(listDevices().map((d) => [d.id, d]));
  assert.deepEqual({ ...usableCapacity(byId['a100-40gb']), citation: '' }, { bytes: A100_40_CUDA, known: true, citation: '' });
  // A figure above the nominal total is never used: the budget stays at most nvidia-smi's total.
  assert.equal(usableCapacity({ ...byId['t4'], usableBytes: byId['t4'].capacityBytes + MiB }).bytes, byId['t4'].capacityBytes);
  // L4, A10G (its one citable figure, 22.49 GiB in 2022, is nvidia-smi's total within rounding, and newer drivers
  // keep more) and the TPUs v5e, v5p, v6e: the nominal total, known: false.
  for (const id of ['l4', 'a10g', 'tpu-v5e', 'tpu-v5p', 'tpu-v6e']) {
    const u = usableCapacity(byId[id]);
    assert.equal(u.bytes, byId[id].capacityBytes, id);
    assert.equal(u.known, false, id);
  }
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
  // XLA takes the fraction of CUDA's total: 0.75 × 42,298,834,944 B = 31,724,126,208 B exactly (29.55 GiB; it
  // was 30 GiB of nvidia-smi's 40,960 MiB, 488 MiB more than the pool XLA makes).
  const b = frameworkBudget(spec('a100-40gb'), jax());
  assert.equal(b.bytes, 31_724_126_208);
  assert.equal(b.reservedAtStartBytes, 31_724_126_208);
  assert.equal(b.capacityBytes, A100_40_CUDA);
  assert.equal(b.nominalBytes, 40960 * MiB);
  assert.equal(b.capacityKnown, true);
  assert.match(b.explanation, /75% of the A100 40GB's 39\.39 GiB usable \(CUDA's total; nvidia-smi shows 40,960 MiB\) = 29\.55 GiB/);
  assert.match(b.citation, /bottlerocket/);
  // A100 80GB: floor(0.75 × 84,975,927,951) = 63,731,945,963 B = 59.35 GiB (60 GiB of nvidia-smi's 81,920 MiB before).
  assert.equal(frameworkBudget(spec('a100-80gb'), jax()).bytes, 63_731_945_963);
  // L4: CUDA's figure not found: 75% of nvidia-smi's 23,034 MiB, and the explanation says so.
  const l4 = frameworkBudget(spec('l4'), jax());
  assert.equal(l4.bytes, Math.floor(0.75 * 23034 * MiB));
  assert.equal(l4.capacityKnown, false);
  assert.match(l4.explanation, /23,034 MiB, its nominal total \(what CUDA reports for this card, a few hundred MiB less, was not found/);
  // MI300X: HIP's total_memory 196,592 MiB (ROCm/ROCm#4203) beside the nominal 192 GiB.
  assert.match(frameworkBudget(spec('mi300x'), jax()).explanation, /the MI300X's 191\.98 GiB usable \(HIP's total; nominal 196,608 MiB\)/);
});

test('JAX GPU budget: preallocate=false keeps the cap; fraction and old versions', () => {
  const b = frameworkBudget(spec('a100-40gb'), jax({ preallocate: false }));
  assert.equal(b.bytes, 31_724_126_208);
  assert.equal(b.reservedAtStartBytes, undefined);
  // 0.5 × 42,298,834,944 B = 21,149,417,472 B.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({ memFraction: 0.5 })).bytes, 21_149_417_472);
  // jax 0.4.13 still used 0.9: floor(0.9 × 42,298,834,944) = 38,068,951,449 B.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({}, { jax: '0.4.13' })).bytes, 38_068_951_449);
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({}, { jax: '0.4.30' })).bytes, 31_724_126_208);
  // The platform allocator has no pool: all of what CUDA reports.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({ allocator: 'platform' })).bytes, A100_40_CUDA);
});

test('JAX TPU budget ignores XLA_PYTHON_CLIENT settings', () => {
  // The whole of what XLA:TPU lets a program use on a v3 core: 16 GiB less the runtime's 530 MiB reserve
  // ("Used 21.95G of 15.48G hbm ... reserved 530.00M", LargeWorldModel/LWM#60) = 16,624,123,904 B.
  const b = frameworkBudget(spec('8xtpu-v3'), jax({ memFraction: 0.5 }));
  assert.equal(b.bytes, 16 * GiB - 530 * MiB);
  assert.equal(b.reservedAtStartBytes, undefined);
  assert.match(b.explanation, /^the TPU v3's 15\.48 GiB usable \(XLA's HBM limit after the TPU runtime's reserve; nominal 16,384 MiB\), per device: all of it is available to XLA$/);
  // TPU v5e: no public figure: its nominal 16 GB, said to be the nominal HBM.
  assert.match(frameworkBudget(spec('tpu-v5e'), jax()).explanation, /what the TPU runtime keeps of it is not known here/);
});

test('PyTorch GPU budget: capacity less the runtime layer (CUDA context, cuBLAS and cuBLASLt workspaces)', () => {
  // A100 (8.0): CUDA's 42,298,834,944 B − 400 MiB context − (2 × 4096 + 8 × 16) KiB cuBLAS − 1024 KiB cuBLASLt
  // = 41,869,836,288 B (CublasHandlePool.cpp defaults ":4096:2:16:8" and 1024 KiB). The context is taken from
  // CUDA's total once: what the driver keeps below nvidia-smi's total is a separate, earlier cut.
  const b = frameworkBudget(spec('a100-40gb'), { runtime: 'torch', versions: {} });
  assert.deepEqual(b.runtime!.map((r) => r.bytes), [400 * MiB, 8320 * 1024, 1024 * 1024]);
  assert.equal(b.bytes, A100_40_CUDA - 400 * MiB - 8320 * 1024 - 1024 * 1024);
  assert.equal(b.bytes, 41_869_836_288);
  assert.match(b.explanation, /^PyTorch can use the A100 40GB's 39\.39 GiB usable \(CUDA's total; nvidia-smi shows 40,960 MiB\) less its runtime/);
  assert.match(b.citation, /109888/);
  assert.match(b.citation, /CublasHandlePool/);
  // Hopper (9.0): the cuBLAS workspace is 32 MiB.
  const h = frameworkBudget(spec('h100-80gb'), { runtime: 'torch', versions: {} });
  // H100: PyTorch's "total capacity of 79.11 GiB" = round(79.11 × 2^30) B, less 400 + 32 + 1 MiB.
  assert.equal(h.bytes, Math.round(79.11 * GiB) - 400 * MiB - 32 * MiB - 1 * MiB);
  // JAX has no runtime parts: its pool is a fraction of the card.
  assert.equal(frameworkBudget(spec('a100-40gb'), jax({})).runtime, undefined);
});

test('onDeviceText: tensors + runtime = what CUDA reports for the card; "≥" for a lower bound; nothing for JAX or an unknown peak', () => {
  const b = frameworkBudget(spec('a100-40gb'), { runtime: 'torch', versions: {} });
  const held = 400 * MiB + 8320 * 1024 + 1024 * 1024; // 428,998,656 B = 429.0 MB
  // Against CUDA's 42,298,834,944 B = 42.3 GB (nvidia-smi's 40,960 MiB would read 42.9 GB).
  assert.equal(onDeviceText({ peakBytes: 10e9, fits: true }, b, 'GB'), `tensors 10.0 GB + runtime 429.0 MB = ${((10e9 + held) / 1e9).toFixed(1)} GB of 42.3 GB usable`);
  // L4: CUDA's figure not known: against nvidia-smi's 23,034 MiB = 24,152,899,584 B, said to be the nominal total.
  // Its runtime (8.9): 400 + 8.125 + 1 MiB = 428,998,656 B = 429.0 MB.
  assert.equal(onDeviceText({ peakBytes: 10e9, fits: true }, frameworkBudget(spec('l4'), { runtime: 'torch', versions: {} }), 'GB'), 'tensors 10.0 GB + runtime 429.0 MB = 10.4 GB of 24.2 GB, the nominal total');
  assert.match(onDeviceText({ peakBytes: 10e9, fits: null }, b, 'GB')!, /^tensors ≥ 10\.0 GB .* = ≥ 10\.4 GB/);
  assert.equal(onDeviceText({ peakBytes: null, fits: null }, b, 'GB'), undefined);
  assert.equal(onDeviceText({ peakBytes: 10e9, fits: true }, frameworkBudget(spec('a100-40gb'), jax({})), 'GB'), undefined);
});
