/**
 * Command-line parsing for `oomlens`: the subcommand, its paths and flags.
 * Hand-written (no dependency) and strict: an unknown flag or a missing
 * value is a usage error, reported with exit status 2 by the caller.
 */
import type { Units } from '../../../shared/src/types';
import type { LaunchCommand } from '../program/launch';

export type Command = 'check' | 'fix' | 'devices' | 'help' | 'version';

export interface CliOptions {
  command: Command;
  paths: string[];
  device?: string;
  /** `--run CMD`: analyse the script CMD runs, with CMD's arguments and process count (program/launch.ts). */
  run?: string;
  /** The parsed `--run` command. */
  launch?: LaunchCommand;
  format: 'text' | 'json' | 'svg' | 'sarif' | 'github';
  /** Exit 0 whatever the findings (usage errors and internal errors still exit 2). */
  exitZero: boolean;
  /** With --format svg: the folder that receives one SVG per model. */
  out?: string;
  units?: Units;
  /** Code prefixes to report (ruff style: 'OOM1' selects OOM101, OOM103...). Empty: all. */
  select: string[];
  ignore: string[];
  unsafeFixes: boolean;
  /** Include preview rules. */
  preview: boolean;
}

export class UsageError extends Error {}

export const USAGE = `oomlens — predicts whether JAX / PyTorch model code fits in accelerator memory, from the source alone.

Usage:
  oomlens check PATH... [--device ID] [--format text|json|sarif|github|svg]
                        [--out DIR] [--units GB|GiB] [--select CODES] [--ignore CODES]
                        [--preview] [--exit-zero]
  oomlens check --run "torchrun --nproc_per_node 8 train.py --bs 4" [options]
  oomlens fix PATH...   [--device ID] [--select CODES] [--ignore CODES] [--unsafe-fixes]
  oomlens devices       list the known device ids
  oomlens --help | --version

PATH is a Python file, a notebook (.ipynb) or a directory (searched for
*.py and *.ipynb, skipping .git, node_modules, .venv, venv and __pycache__). CODES is a comma-separated list
of rule codes or prefixes (OOM101,OOM9). ID is a catalogue id such as
a100-40gb, or N devices as 8xh100-80gb; [tool.oomlens] in pyproject.toml
supplies defaults, flags win. GB = 10^9 bytes, GiB = 2^30 bytes.
--format svg draws each model's memory timeline: printed when there is one
model, written as DIR/<file>.<model>.svg with --out DIR.

--format sarif writes SARIF 2.1.0 (code scanning), --format github
workflow annotations (::error file=...::).

--run CMD analyses the script CMD runs with CMD's arguments (argparse, fire,
HfArgumentParser, absl) and its launcher's process count as the device count;
without it a script takes the command written in the workspace (pyproject
[[tool.oomlens.runs]], .vscode/launch.json, shell scripts, README code blocks).

Exit status: 0 no findings (or --exit-zero), 1 findings, 2 bad usage,
unreadable input, nothing analysed, or an internal error.`;

function splitCodes(v: string): string[] {
  return v.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
}

export function parseArgs(argv: string[]): CliOptions {
  const opts: CliOptions = { command: 'help', paths: [], format: 'text', exitZero: false, select: [], ignore: [], unsafeFixes: false, preview: false };
  if (argv.length === 0) throw new UsageError('no command given');
  const first = argv[0];
  if (first === '--help' || first === '-h' || first === 'help') return { ...opts, command: 'help' };
  if (first === '--version' || first === '-V' || first === 'version') return { ...opts, command: 'version' };
  if (first !== 'check' && first !== 'fix' && first !== 'devices') {
    throw new UsageError(`unknown command "${first}" (expected check, fix or devices)`);
  }
  opts.command = first;
  const rest = argv.slice(1);
  let onlyPaths = false;
  for (let i = 0; i < rest.length; i++) {
    let arg = rest[i];
    if (onlyPaths || !arg.startsWith('-') || arg === '-') {
      opts.paths.push(arg);
      continue;
    }
    if (arg === '--') { onlyPaths = true; continue; }
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) { inline = arg.slice(eq + 1); arg = arg.slice(0, eq); }
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = rest[i + 1];
      if (v === undefined || (v.startsWith('--') && v.length > 2)) throw new UsageError(`${arg} needs a value`);
      i++;
      return v;
    };
    const flag = (): void => {
      if (inline !== undefined) throw new UsageError(`${arg} takes no value`);
    };
    switch (arg) {
      case '--device': case '-d': opts.device = value(); break;
      case '--run': opts.run = value(); break;
      case '--format': {
        const v = value();
        if (v !== 'text' && v !== 'json' && v !== 'svg' && v !== 'sarif' && v !== 'github') throw new UsageError(`--format must be text, json, sarif, github or svg, not "${v}"`);
        opts.format = v;
        break;
      }
      case '--units': {
        const v = value();
        const u = v.toLowerCase() === 'gb' ? 'GB' : v.toLowerCase() === 'gib' ? 'GiB' : undefined;
        if (!u) throw new UsageError(`--units must be GB or GiB, not "${v}"`);
        opts.units = u;
        break;
      }
      case '--out': case '-o': opts.out = value(); break;
      case '--select': opts.select.push(...splitCodes(value())); break;
      case '--ignore': opts.ignore.push(...splitCodes(value())); break;
      case '--unsafe-fixes': flag(); opts.unsafeFixes = true; break;
      case '--preview': flag(); opts.preview = true; break;
      case '--exit-zero': flag(); opts.exitZero = true; break;
      case '--help': case '-h': return { ...opts, command: 'help' };
      default: throw new UsageError(`unknown option ${arg}`);
    }
  }
  if (opts.command === 'fix' && opts.format !== 'text') throw new UsageError(`fix prints text only; use check --format ${opts.format} for ${opts.format.toUpperCase()}`);
  if (opts.out !== undefined && opts.format !== 'svg') throw new UsageError('--out goes with --format svg');
  if (opts.command !== 'devices' && opts.paths.length === 0 && !(opts.command === 'check' && opts.run !== undefined)) throw new UsageError(`${opts.command} needs at least one PATH`);
  return opts;
}

/** A --select or --ignore entry that is no prefix of any rule code: a usage error naming the known codes. */
export function checkCodes(opts: Pick<CliOptions, 'select' | 'ignore'>, known: string[]): void {
  for (const [flag, list] of [['--select', opts.select], ['--ignore', opts.ignore]] as const) {
    const bad = list.filter((p) => !known.some((c) => c.startsWith(p)));
    if (bad.length) throw new UsageError(`${flag}: unknown rule code${bad.length > 1 ? 's' : ''} ${bad.join(', ')}; known codes: ${known.join(', ')}`);
  }
}

/** Ruff-style code selection: a code is reported when it matches a selected prefix and no ignored one. */
export function selected(code: string, opts: Pick<CliOptions, 'select' | 'ignore'>): boolean {
  const c = code.toUpperCase();
  if (opts.select.length && !opts.select.some((p) => c.startsWith(p))) return false;
  return !opts.ignore.some((p) => c.startsWith(p));
}
