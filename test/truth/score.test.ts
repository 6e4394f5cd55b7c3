// The scoring of the ground truth (score.ts), on measurements written out here: a phase is scored against
// the accelerator run where the harness made one, the CPU figure stays beside it, and a program that needs
// the second run and lacks it is an error, never a pass on the CPU figure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Measured, type OModel, compare, harnessDevices, table } from './score';

const MB = 1e6;
const model = (name: string, peak: number): OModel[] => [{ name: 'M', params: null, phases: [{ name, peakBytes: peak, breakdown: [] }] }];
const jaxPhase = (peak: number) => ({ peak, byKind: {}, segment: 'init#0', memTracker: null, peakLive: 10 * MB, segmentLive: 'init#0' });

test('a JAX init is scored against the accelerator lowering, the CPU figure beside it with the reason', () => {
  const m: Measured = { framework: 'jax', phases: { pre: jaxPhase(30 * MB) }, acceleratorLowering: { pre: { peak: 10 * MB, segment: 'init#0' } } };
  const rows = compare('p', m, model('init', 10 * MB));
  const peak = rows.find((r) => r.component === 'peak')!;
  assert.equal(peak.measured, 10 * MB);
  assert.equal(peak.cpu, 30 * MB);
  assert.equal(peak.basis, 'accelerator lowering');
  assert.equal(peak.within, true);
  assert.equal(peak.cpuWithin, false);
  assert.match(peak.why, /Threefry/);
  assert.match(table(rows), /\| p \| init \| 10\.0 \| 30\.0 \| 10\.0 \|/);
});

test('a JAX program without its accelerator run is an error, not a pass on the CPU figure', () => {
  const m: Measured = { framework: 'jax', phases: { pre: jaxPhase(10 * MB) } };
  assert.throws(() => compare('p', m, model('init', 10 * MB)), /no accelerator lowering measurement/);
  // the second run lost a phase the CPU run has
  const lost: Measured = { framework: 'jax', phases: { pre: jaxPhase(10 * MB), training: jaxPhase(20 * MB) }, acceleratorLowering: { pre: { peak: 10 * MB, segment: 'init#0' } } };
  assert.throws(() => compare('p', lost, model('init', 10 * MB)), /phase training has no accelerator lowering/);
});

test('PyTorch: the kernels run only where the CPU run called a swapped kernel; otherwise the CPU run is the basis', () => {
  const phases = { training: { peak: 120 * MB, byKind: { activation: 100 * MB, parameter: 20 * MB }, segment: 'backward#2', memTracker: null } };
  const swapped: Measured = { framework: 'torch', phases, kernelSwaps: { dropout: 4, sdpa_dropout: 0 } };
  assert.throws(() => compare('p', swapped, model('training', 100 * MB)), /the CPU run called dropout/);
  const withRun: Measured = { ...swapped, acceleratorKernels: { training: { peak: 100 * MB, segment: 'backward#2', byKind: { activation: 80 * MB, parameter: 20 * MB } } } };
  const rows = compare('p', withRun, model('training', 100 * MB));
  const peak = rows.find((r) => r.component === 'peak')!;
  assert.deepEqual([peak.basis, peak.measured, peak.cpu, peak.within, peak.cpuWithin], ['accelerator kernels', 100 * MB, 120 * MB, true, false]);
  assert.match(peak.why, /native_dropout/);
  // components at the scored run's peak, the CPU's beside them
  const act = rows.find((r) => r.component === 'activations+other')!;
  assert.deepEqual([act.measured, act.cpu], [80 * MB, 100 * MB]);
  const plain: Measured = { framework: 'torch', phases, kernelSwaps: { dropout: 0, sdpa_dropout: 0 } };
  const p = compare('p', plain, model('training', 100 * MB)).find((r) => r.component === 'peak')!;
  assert.deepEqual([p.basis, p.measured, p.cpu, p.within, p.why], ['cpu', 120 * MB, 120 * MB, false, '']);
});

test('the harness line gives the device count; a program without it runs on one device', () => {
  assert.equal(harnessDevices('# truth-harness: XLA_FLAGS=--xla_force_host_platform_device_count=8\nimport jax\n'), 8);
  assert.equal(harnessDevices('import jax\n# truth-harness: XLA_FLAGS=--xla_force_host_platform_device_count=8\n'), 1);
  assert.equal(harnessDevices('"""--xla_force_host_platform_device_count=8"""\n'), 1);
});
