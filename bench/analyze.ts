// Analysis-time benchmark (npm run bench:analyze; not part of npm test):
// times analyze() on each scenario, each corpus file and generated files of
// growing size (to show the time grows linearly with the file), and reports
// the heap used. Targets: a typical model file well under 1 s, a 50,000-line
// file under 10 s, time per line not rising with size.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { analyze } from '../server/src/analysis/analyze';
import { bigList, modelFile } from './generate';

const root = join(__dirname, '..');

function pyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...pyFiles(p));
    else if (name.endsWith('.py')) out.push(p);
  }
  return out;
}

function generated(layers: number): string {
  const lines = ['import torch.nn as nn', 'class Big(nn.Module):', '    def __init__(self):', '        super().__init__()'];
  for (let i = 0; i < layers; i++) lines.push(`        self.l${i} = nn.Linear(4, 4)`);
  lines.push('big = Big()');
  return lines.join('\n');
}

/** CPU time of the last `time()` call, ms (wall-clock figures on a shared machine depend on its load). */
let lastCpu = 0;
async function time(text: string, path?: string): Promise<number> {
  const c = process.cpuUsage();
  const t = performance.now();
  await analyze(text, { device: 'a100-80gb', path });
  const u = process.cpuUsage(c);
  lastCpu = (u.user + u.system) / 1000;
  return performance.now() - t;
}

async function main(): Promise<void> {
  await time('x = 1\n'); // parser start-up is paid once per process
  const rows: [string, number][] = [];
  for (const f of [...pyFiles(join(root, 'test', 'fixtures', 'scenarios')), ...pyFiles(join(root, 'test', 'corpus'))]) {
    rows.push([relative(root, f), await time(readFileSync(f, 'utf8'), f)]);
  }
  rows.sort((a, b) => b[1] - a[1]);
  console.log('slowest files:');
  for (const [f, ms] of rows.slice(0, 5)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${f}`);
  console.log(`  ${rows.length} files, median ${rows[Math.floor(rows.length / 2)][1].toFixed(0)} ms`);
  console.log('generated files (lines → ms, µs per line):');
  for (const n of [1_000, 5_000, 20_000, 50_000]) {
    const ms = await time(generated(n));
    console.log(`  ${String(n).padStart(6)} lines  ${ms.toFixed(0).padStart(6)} ms  ${((1000 * ms) / n).toFixed(0)} µs/line`);
  }
  // Issue #10's targets: a generated 20,000-line model file ≤ 1 s, 100,000 lines ≤ 5 s, a 32k-item list literal.
  console.log('targets (generated model files with loops and a training step):');
  for (const [label, text, target] of [
    ['model file, 20,000 lines', modelFile(20_000), 1000],
    ['model file, 100,000 lines', modelFile(100_000), 5000],
    ['list literal, 32,000 items', bigList(32_000), 1000],
  ] as const) {
    const ms = await time(text);
    console.log(`  ${label.padEnd(28)} ${ms.toFixed(0).padStart(6)} ms, CPU ${lastCpu.toFixed(0).padStart(6)} ms  (target ≤ ${target} ms: ${ms <= target ? 'met' : 'MISSED'})`);
  }
  console.log(`load average: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(`heap used: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`);
}

void main();
