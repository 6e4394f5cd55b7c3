// The test virtual environment's python (scripts/venv.sh creates it from
// test/python/requirements.txt on a fresh machine and prints its path).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

let cached: string | undefined;

export function venvPython(): string {
  if (cached) return cached;
  const r = spawnSync('bash', [join(__dirname, '..', '..', 'scripts', 'venv.sh')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scripts/venv.sh failed (${r.status}): ${r.stderr}`);
  cached = r.stdout.trim().split('\n').pop()!;
  return cached;
}

/** Runs a script under test/python with JSON on stdin and returns its parsed JSON stdout. */
export function runPythonJson<T>(script: string, input: unknown): T {
  const r = spawnSync(venvPython(), [join(__dirname, script)], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${script} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as T;
}

/**
 * A fixture program's models as oomlens sizes them, and its parameter count as the framework builds it
 * (build_count.py: `model` or `params` of the program).
 */
export async function countedBoth(file: string): Promise<{ oomlens: [string, number | null, number][]; framework: number; result: Awaited<ReturnType<typeof import('../../server/src/analysis/analyze').analyze>> }> {
  const { readFileSync } = await import('node:fs');
  const { dirname } = await import('node:path');
  const { analyze } = await import('../../server/src/analysis/analyze');
  const text = readFileSync(file, 'utf8');
  const r = await analyze(text, { path: file, device: 'a100-80gb', versions: {} });
  const [real] = runPythonJson<{ params: number | null; error?: string }[]>('build_count.py', [{ dir: dirname(file), path: [], code: text }]);
  if (typeof real.params !== 'number') throw new Error(`build_count.py: ${real.error}`);
  return { oomlens: r.models.map((m) => [m.facts.name, m.facts.paramCount, m.facts.unknowns.length]), framework: real.params, result: r };
}
