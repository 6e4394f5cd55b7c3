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
