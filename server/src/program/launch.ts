/**
 * How the workspace runs a script: the command lines written in its shell
 * scripts, its README's code blocks, `.vscode/launch.json` and
 * `[[tool.oomlens.runs]]`, so that a train script whose values come from the
 * command line (`--model_name_or_path`, `--per_device_train_batch_size 8`)
 * is analysed with the values its authors run it with, and a launcher's
 * process count (`torchrun --nproc_per_node 8`) is the world size.
 *
 * Nothing is run. Shell text is split into words by `shell-quote` (POSIX
 * quoting); `VAR=value` / `export VAR=value` lines earlier in the same file (in a Markdown file, earlier in
 * any of its code blocks)
 * expand `$VAR`, `${VAR}` and `${VAR:-default}` (bash(1) "Parameter
 * Expansion"); a word that needs a value oomlens does not have (a script
 * argument `$1`, an unset variable, a command substitution) is an unknown
 * argument, never a guess.
 *
 * Launchers and where their process count comes from:
 * - `python [-u …] script.py`, `python -m pkg.module`: one process.
 * - `torchrun` / `python -m torch.distributed.run|launch`: `--nproc_per_node`
 *   (`--nproc-per-node`) × `--nnodes` (torch/distributed/run.py).
 * - `accelerate launch`: `--num_processes` (× `--num_machines` is already
 *   folded into num_processes by accelerate: commands/launch.py counts all
 *   machines' processes), else the `num_processes` of its `--config_file`.
 * - `deepspeed`: `--num_gpus` × `--num_nodes`, or the GPUs listed by
 *   `--include host:0,1,2` (deepspeed/launcher/runner.py).
 * - `mpirun`/`mpiexec -np N`, `srun --ntasks N` (`-n N`).
 * Sources are read in this order and the first command naming the script is
 * the one analysed: pyproject runs, launch.json, shell scripts, Markdown, the
 * script's own docstring / leading comments —
 * except that a command with a word the shell fills at run time comes after
 * every complete one (a declared run stays first).
 */
import { readdirSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { parse as shParse } from 'shell-quote';
import { findNodeAtLocation, getNodeValue, parseTree } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { hashText, isInside, type Workspace } from './workspace';

/** One word of a command line; null where its value is not known without running the shell. */
export type ArgWord = string | null;

export interface LaunchCommand {
  /** Workspace-relative file and 1-based line of the command ("scripts/train.sh:12"). */
  source: string;
  /** Absolute path of the file holding the command. */
  file: string;
  /** Absolute path of the Python file the command runs. */
  script: string;
  /** The script's arguments (sys.argv[1:]). */
  argv: ArgWord[];
  /** Processes the launcher starts (one per device), when it says. */
  world?: number;
  /**
   * Environment the launcher gives the program (accelerate launch: ACCELERATE_MIXED_PRECISION, ACCELERATE_USE_FSDP,
   * ACCELERATE_USE_DEEPSPEED, ACCELERATE_DEEPSPEED_ZERO_STAGE from its flags or --config_file; commands/launch.py
   * prepare_multi_gpu_env / prepare_deepspeed_cmd_env), plus `VAR=value` words before the command.
   */
  env?: Record<string, string>;
  launcher: 'python' | 'torchrun' | 'accelerate' | 'deepspeed' | 'mpirun' | 'srun' | 'launch.json';
  /** A console script (`stylegan2_pytorch --data …`): the module runs as imported, then this function is called. */
  entry?: { module: string; func: string };
}

/**
 * The console scripts the workspace's package declares: pyproject.toml `[project.scripts]` (PEP 621),
 * setup.cfg `[options.entry_points] console_scripts`, setup.py `entry_points={"console_scripts": ["name = mod:func"]}`
 * (setuptools docs, "Entry points"). pip installs each as a command that imports `mod` and calls `func()`.
 */
const SCRIPTS = new WeakMap<Workspace, { texts: (string | undefined)[]; map: Map<string, { module: string; func: string }> }>();
function consoleScripts(ws: Workspace): Map<string, { module: string; func: string }> {
  // Read once per version of the three files (a shell script's every command line asks).
  const texts = ['pyproject.toml', 'setup.py', 'setup.cfg'].map((f) => ws.readText(join(ws.root, f)));
  const memo = SCRIPTS.get(ws);
  if (memo && memo.texts.every((t, i) => t === texts[i])) return memo.map;
  const out = new Map<string, { module: string; func: string }>();
  SCRIPTS.set(ws, { texts, map: out });
  const add = (name: string, target: string) => {
    const m = /^\s*([\w.]+)\s*:\s*([\w]+)\s*$/.exec(target);
    if (m && !out.has(name.trim())) out.set(name.trim(), { module: m[1], func: m[2] });
  };
  const py = texts[0];
  if (py) {
    try {
      const scripts = ((parseToml(py) as Record<string, unknown>).project as Record<string, unknown> | undefined)?.scripts;
      if (scripts && typeof scripts === 'object') for (const [k, v] of Object.entries(scripts)) if (typeof v === 'string') add(k, v);
    } catch { /* not TOML: no scripts from it */ }
  }
  for (const text of texts.slice(1)) {
    if (!text) continue;
    const block = /console_scripts['"]?\s*[:=]\s*([\s\S]{0,4000}?)(?:\]|\n\S|\n\s*\n|$)/.exec(text)?.[1] ?? '';
    for (const m of block.matchAll(/['"]?([\w.-]+)\s*=\s*([\w.]+\s*:\s*\w+)['"]?/g)) add(m[1], m[2]);
  }
  return out;
}

const UNSET = '\u0001';
const MAX_FILES = 400;
const MAX_BYTES = 256_000;

interface Word { text: ArgWord }

/** Expands `$X` through `vars`; a value that is not known marks the word. */
function expander(vars: Map<string, string>) {
  return (key: string): string => {
    const m = /^([A-Za-z_]\w*|\d+|[@*#?$!])(?::?[-=](.*))?$/s.exec(key);
    if (!m) return UNSET;
    const v = vars.get(m[1]);
    if (v !== undefined && v !== '') return v;
    return m[2] !== undefined ? m[2] : UNSET;
  };
}

/** Splits one logical shell line into commands of words (operators end a command). */
function splitCommands(line: string, vars: Map<string, string>): Word[][] {
  let toks: ReturnType<typeof shParse>;
  try { toks = shParse(line.replace(/\$\(([^)]*)\)|`[^`]*`/g, UNSET), expander(vars)); } catch { return []; }
  const out: Word[][] = [];
  let cur: Word[] = [];
  let redirect = false;
  for (const t of toks) {
    if (typeof t === 'string') {
      if (redirect) { redirect = false; continue; }
      // `--name=$VALUE` whose value is not known: the option is still named (`--name` and a value word that is not
      // known, which argparse and the other parsers read as `--name=<value>`).
      const opt = t.includes(UNSET) ? /^(--[A-Za-z][\w.-]*)=/.exec(t) : null;
      if (opt && !opt[1].includes(UNSET)) cur.push({ text: opt[1] }, { text: null });
      else cur.push({ text: t.includes(UNSET) ? null : t });
    } else if ('comment' in t) break;
    else if ('op' in t) {
      if (t.op === 'glob') { cur.push({ text: (t as { pattern: string }).pattern }); continue; }
      if (/^[<>]|^\d?>/.test(t.op)) { redirect = true; continue; }
      if (cur.length) out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

const num = (w: ArgWord | undefined): number | undefined => (w && /^\d+$/.test(w) ? Number(w) : undefined);

/** `--name value` or `--name=value` among launcher words, for any of `names`. */
function opt(words: ArgWord[], names: string[]): ArgWord | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === null) continue;
    for (const n of names) {
      if (w === n) return words[i + 1] ?? null;
      if (w.startsWith(`${n}=`)) return w.slice(n.length + 1);
    }
  }
  return undefined;
}

/** `uv run` options that take a value (uv 0.5 `uv run --help`). */
const UV_RUN_VALUE_OPTIONS = new Set(['--with', '--with-editable', '--with-requirements', '--extra', '--group', '--only-group', '--no-group',
  '--package', '--python', '-p', '--env-file', '--directory', '--project', '--index', '--default-index', '--index-url', '--extra-index-url',
  '--find-links', '-f', '--config-file', '--cache-dir', '--color', '--index-strategy', '--keyring-provider', '--resolution', '--prerelease',
  '--exclude-newer', '--link-mode', '--refresh-package', '--reinstall-package', '--no-build-package', '--no-binary-package', '--config-setting', '-C']);

interface Ctx { ws: Workspace; file: string; cwd: string[]; env: Map<string, string> }

/** Reads one command's words: its launcher, the script it runs and the script's arguments. */
function readCommand(words: Word[], ctx: Ctx): Omit<LaunchCommand, 'source' | 'file'> | undefined {
  const w = words.map((x) => x.text);
  let i = 0;
  const env = new Map(ctx.env);
  // Environment assignments and wrappers before the command.
  for (;;) {
    const t = w[i];
    if (t === undefined) return undefined;
    if (t !== null && /^[A-Za-z_]\w*=/.test(t)) { const k = t.slice(0, t.indexOf('=')); env.set(k, t.slice(k.length + 1)); i++; continue; }
    if (t !== null && ['nohup', 'exec', 'time', 'env', 'sudo', 'command', '$'].includes(t)) { i++; continue; }
    // Environment runners: `uv run [options] CMD` (docs.astral.sh/uv "uv run"), `poetry run CMD`, `pipenv run CMD`
    // run CMD in the project's environment. uv's options that take a value are skipped with it.
    if ((t === 'uv' || t === 'poetry' || t === 'pipenv') && w[i + 1] === 'run') {
      i += 2;
      while (t === 'uv' && typeof w[i] === 'string' && w[i]!.startsWith('-')) {
        const o = w[i]!;
        i += !o.includes('=') && UV_RUN_VALUE_OPTIONS.has(o) ? 2 : 1;
      }
      continue;
    }
    break;
  }
  let launcher: LaunchCommand['launcher'] = 'python';
  let world: number | undefined;
  const head = w[i];
  if (head === null || head === undefined) return undefined;
  const base = head.split('/').pop()!;
  const visible = env.get('CUDA_VISIBLE_DEVICES');
  const visibleCount = visible && /^\d+(,\d+)*$/.test(visible) ? visible.split(',').length : undefined;
  let rest = w.slice(i + 1);
  if (base === 'mpirun' || base === 'mpiexec' || base === 'srun') {
    // Their own options run up to the program word.
    const k = rest.findIndex((x) => x !== null && /(^|\/)(python[\d.]*|torchrun|accelerate|deepspeed)$/.test(x));
    if (k < 0) return undefined;
    const own = rest.slice(0, k);
    world = num(opt(own, ['-np', '-n', '--ntasks']) ?? undefined);
    const inner = readCommand(rest.slice(k).map((text) => ({ text })), { ...ctx, env });
    // mpirun/srun start the processes: their count wins over the inner command's one process.
    return inner && { ...inner, launcher: inner.launcher === 'python' ? (base === 'srun' ? 'srun' : 'mpirun') : inner.launcher, world: inner.launcher === 'python' ? world : inner.world };
  }
  let module: string | undefined;
  let legacyLaunch = false;
  if (/^python[\d.]*$/.test(base)) {
    // python's own options (python(1)): -m ends them; -W/-X/-c take a value.
    let k = 0;
    while (k < rest.length) {
      const t = rest[k];
      if (t === null || !t.startsWith('-') || t === '-') break;
      if (t === '-m') { module = rest[k + 1] ?? undefined; k += 2; break; }
      if (t === '-c') return undefined;
      k += t === '-W' || t === '-X' ? 2 : 1;
    }
    rest = rest.slice(k);
    if (module === 'torch.distributed.launch') legacyLaunch = true;
    if (module === 'torch.distributed.run' || module === 'torch.distributed.launch') { module = undefined; launcher = 'torchrun'; }
    else if (module === 'accelerate.commands.launch') { module = undefined; launcher = 'accelerate'; }
    else if (module === 'deepspeed' || module === 'deepspeed.launcher.runner') { module = undefined; launcher = 'deepspeed'; }
  } else if (/\.py$/.test(base)) {
    // A script run directly (`./train.py`, or after `uv run`, which runs a .py file with the project's python).
    rest = [head, ...rest];
  } else if (base === 'torchrun') launcher = 'torchrun';
  else if (base === 'accelerate' && rest[0] === 'launch') { launcher = 'accelerate'; rest = rest.slice(1); }
  else if (base === 'deepspeed') launcher = 'deepspeed';
  else {
    const cs = consoleScripts(ctx.ws).get(base);
    if (!cs) return undefined;
    const found = ctx.ws.findModule(cs.module, [ctx.ws.root]);
    const script = found?.path;
    return script ? { script, argv: rest, world: 1, launcher: 'python', entry: cs, ...(env.size ? { env: Object.fromEntries([...env].filter(([k]) => !ctx.env.has(k) || ctx.env.get(k) !== env.get(k))) } : {}) } : undefined;
  }

  // The launcher's options run up to the script word (the first *.py) or `-m module` / `--module module`.
  let scriptWord: ArgWord | undefined;
  let argv: ArgWord[] = [];
  if (module === undefined) {
    const k = rest.findIndex((x) => x !== null && /\.py$/.test(x));
    const mk = rest.findIndex((x) => x === '-m' || x === '--module');
    if (mk >= 0 && (k < 0 || mk < k) && launcher !== 'python') {
      module = rest[mk + 1] ?? undefined;
      const own = rest.slice(0, mk);
      argv = rest.slice(mk + 2);
      rest = own;
    } else {
      if (k < 0) return undefined;
      scriptWord = rest[k];
      argv = rest.slice(k + 1);
      rest = rest.slice(0, k);
    }
  } else argv = rest;
  // A launcher's parser takes the script's arguments as argparse REMAINDER after the script word, and argparse drops
  // the one `--` that separates them (`torchrun ... -m scripts.base_train -- --depth=12`: the script sees
  // `--depth=12`; checked with torch.distributed.run's get_args_parser on Python 3.11). Python itself passes it on.
  if (launcher !== 'python' && argv[0] === '--') argv = argv.slice(1);
  // `python -m torch.distributed.launch` (the legacy launcher) gives each process `--local_rank=<its rank>` before the
  // script's own arguments unless `--use_env` / `--use-env` (torch/distributed/launch.py; torch ≥ 2.0 spells it
  // `--local-rank`, which the scripts written for it accept as `--local_rank` too): process 0's is analysed.
  if (legacyLaunch && !rest.some((x) => x === '--use_env' || x === '--use-env')) argv = ['--local_rank=0', ...argv];

  if (launcher === 'torchrun') {
    const perNode = opt(rest, ['--nproc_per_node', '--nproc-per-node']);
    const nodes = opt(rest, ['--nnodes']);
    const p = num(perNode ?? undefined) ?? (perNode === 'gpu' || perNode === 'auto' ? visibleCount : perNode === undefined ? 1 : undefined);
    const n = nodes === undefined ? 1 : num(nodes);
    world = p !== undefined && n !== undefined ? p * n : undefined;
  } else if (launcher === 'accelerate') {
    world = num(opt(rest, ['--num_processes', '--num-processes']) ?? undefined);
    const cfg = opt(rest, ['--config_file', '--config-file']);
    let y: Record<string, unknown> | undefined;
    if (cfg) {
      const path = locate(ctx, cfg);
      try { y = path ? parseYaml(ctx.ws.readText(path)!) as Record<string, unknown> : undefined; } catch { /* unreadable config: nothing from it */ }
      if (world === undefined && typeof y?.num_processes === 'number') world = y.num_processes;
    }
    const mp = opt(rest, ['--mixed_precision', '--mixed-precision']) ?? (typeof y?.mixed_precision === 'string' ? y.mixed_precision : undefined);
    if (mp) env.set('ACCELERATE_MIXED_PRECISION', mp);
    if (rest.includes('--use_fsdp') || y?.distributed_type === 'FSDP') env.set('ACCELERATE_USE_FSDP', 'true');
    const dsCfg = y?.deepspeed_config as Record<string, unknown> | undefined;
    if (rest.includes('--use_deepspeed') || y?.distributed_type === 'DEEPSPEED') {
      env.set('ACCELERATE_USE_DEEPSPEED', 'true');
      // `--deepspeed_config_file ds.json` (or the YAML's deepspeed_config.deepspeed_config_file): the JSON's
      // zero_optimization decides the stage and offloading (accelerate/commands/launch.py passes the file on as
      // ACCELERATE_DEEPSPEED_CONFIG_FILE; utils/dataclasses.py DeepSpeedPlugin reads it, and then ignores --zero_stage).
      const fileWord = opt(rest, ['--deepspeed_config_file', '--deepspeed-config-file']) ?? (typeof dsCfg?.deepspeed_config_file === 'string' ? dsCfg.deepspeed_config_file : undefined);
      let fromFile: { stage?: string; optimizer?: string; param?: string } | undefined;
      if (fileWord) {
        const path = locate(ctx, fileWord);
        env.set('ACCELERATE_DEEPSPEED_CONFIG_FILE', path ?? fileWord);
        try {
          const j = path ? JSON.parse(ctx.ws.readText(path)!) as { zero_optimization?: Record<string, unknown> } : undefined;
          const zo = j?.zero_optimization;
          const dev = (k: string) => { const d = (zo?.[k] as { device?: unknown } | undefined)?.device; return typeof d === 'string' && d !== 'none' ? d : undefined; };
          fromFile = { stage: typeof zo?.stage === 'number' ? String(zo.stage) : undefined, optimizer: dev('offload_optimizer'), param: dev('offload_param') };
        } catch { /* not JSON: the stage stays unknown */ }
      }
      const zs = fileWord ? fromFile?.stage : opt(rest, ['--zero_stage']) ?? (dsCfg?.zero_stage !== undefined ? String(dsCfg.zero_stage) : undefined);
      if (zs) env.set('ACCELERATE_DEEPSPEED_ZERO_STAGE', zs);
      const offO = fileWord ? fromFile?.optimizer : opt(rest, ['--offload_optimizer_device']) ?? (typeof dsCfg?.offload_optimizer_device === 'string' ? dsCfg.offload_optimizer_device : undefined);
      const offP = fileWord ? fromFile?.param : opt(rest, ['--offload_param_device']) ?? (typeof dsCfg?.offload_param_device === 'string' ? dsCfg.offload_param_device : undefined);
      if (offO && offO !== 'none') env.set('ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE', offO);
      if (offP && offP !== 'none') env.set('ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE', offP);
    }
  } else if (launcher === 'deepspeed') {
    const g = num(opt(rest, ['--num_gpus', '--num-gpus']) ?? undefined);
    const include = opt(rest, ['--include', '-i']);
    const listed = include ? /^[^:@]+:(\d+(?:,\d+)*)$/.exec(include)?.[1]?.split(',').length : undefined;
    const nodes = num(opt(rest, ['--num_nodes', '--num-nodes']) ?? undefined) ?? 1;
    world = (g ?? listed ?? visibleCount) !== undefined ? (g ?? listed ?? visibleCount)! * nodes : undefined;
  } else world = 1;

  let script: string | undefined;
  if (module) {
    // `python -m pkg.mod` finds the module on sys.path: the working folder, and, for a package installed from a
    // "src layout" (`pip install -e .` with `where = ["src"]`), `src/` — the folders imports are searched in too
    // (workspace.ts searchPath).
    const found = ctx.ws.findModule(module, [...ctx.cwd, ctx.ws.root, join(ctx.ws.root, 'src')]);
    script = found?.path ?? (found?.dir ? join(found.dir, '__main__.py') : undefined);
  } else if (scriptWord) script = locate(ctx, scriptWord);
  if (!script) return undefined;
  const envOut = Object.fromEntries([...env].filter(([k]) => !ctx.env.has(k) || ctx.env.get(k) !== env.get(k)));
  return { script, argv, world, launcher, ...(Object.keys(envOut).length ? { env: envOut } : {}) };
}

/** A path word resolved as the shell would from one of the command's likely working folders. */
function locate(ctx: Ctx, word: string): string | undefined {
  if (word.includes(UNSET)) return undefined;
  const cands = isAbsolute(word) ? [] : [...ctx.cwd, dirname(ctx.file), ctx.ws.root].map((d) => resolve(d, word));
  return cands.find((p) => isInside(p, ctx.ws.root) && ctx.ws.readText(p) !== undefined);
}

/** Commands in shell text (a script, or a Markdown code block's lines), with their 1-based lines. */
function fromShell(ws: Workspace, file: string, text: string, firstLine = 1, env = new Map<string, string>(), vars = new Map<string, string>()): LaunchCommand[] {
  const out: LaunchCommand[] = [];
  const ctx: Ctx = { ws, file, cwd: [], env };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    while (/\\\s*$/.test(line) && i + 1 < lines.length) line = line.replace(/\\\s*$/, ' ') + lines[++i];
    line = line.replace(/^\s*\$\s+/, '');
    const assign = /^\s*(?:export\s+|local\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)=(.*)$/.exec(line);
    // `X=1` alone sets a shell variable; `X=1 cmd …` only sets X in cmd's environment (readCommand).
    const assignWords = assign ? splitCommands(assign[2].trim() || "''", vars) : [];
    if (assign && assignWords.length <= 1 && (assignWords[0]?.length ?? 0) <= 1) {
      const v = assignWords[0]?.[0]?.text ?? '';
      if (v !== null) vars.set(assign[1], v); else vars.delete(assign[1]);
      continue;
    }
    const cd = /^\s*cd\s+(\S+)\s*$/.exec(line);
    if (cd) { const d = splitCommands(cd[1], vars)[0]?.[0]?.text; if (d) ctx.cwd = [resolve(dirname(file), d), resolve(ws.root, d)]; continue; }
    for (const cmd of splitCommands(line, vars)) {
      const c = readCommand(cmd, ctx);
      if (c) out.push({ ...c, file, source: `${ws.rel(file)}:${firstLine + start}` });
    }
  }
  return out;
}

/** Commands in a Markdown file's fenced code blocks (the lines that start with a launcher). */
function fromMarkdown(ws: Workspace, file: string, text: string): LaunchCommand[] {
  const out: LaunchCommand[] = [];
  const lines = text.split('\n');
  // The blocks of a README are one shell session followed in order: `export MODEL_NAME=…` in one block is what
  // `$MODEL_NAME` means in the blocks after it, until set again.
  const vars = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(```|~~~)/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) j++;
    // Any language: READMEs put commands in ```markdown, ```python or ```text blocks too; a line counts only
    // when it starts with a launcher (readCommand), so code lines are never taken for commands.
    out.push(...fromShell(ws, file, lines.slice(i + 1, j).join('\n'), i + 2, undefined, vars));
    i = j;
  }
  return out;
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** `.vscode/launch.json` Python configurations (`program` or `module`, `args`, `env`); `${file}` is the analysed file. */
function fromLaunchJson(ws: Workspace, file: string, text: string, current: string): LaunchCommand[] {
  const out: LaunchCommand[] = [];
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const confs = tree && findNodeAtLocation(tree, ['configurations']);
  const folder = dirname(dirname(file));
  const subst = (s: string): string | null => {
    const r = s.replace(/\$\{(workspaceFolder|workspaceRoot|file|fileDirname|cwd)\}/g, (_m, k: string) => (k === 'file' ? current : k === 'fileDirname' ? dirname(current) : folder));
    return /\$\{/.test(r) ? null : r;
  };
  for (const c of confs?.children ?? []) {
    const v = getNodeValue(c) as Record<string, unknown> | undefined;
    if (!v || typeof v !== 'object' || !['python', 'debugpy'].includes(String(v.type))) continue;
    const env = new Map(Object.entries((v.env as Record<string, unknown>) ?? {}).map(([k, x]) => [k, String(x)]));
    let script: string | undefined;
    if (typeof v.program === 'string') { const p = subst(v.program); script = p ? resolve(folder, p) : undefined; }
    else if (typeof v.module === 'string') { const f = ws.findModule(v.module, [folder, ws.root]); script = f?.path; }
    if (!script || !isInside(script, ws.root)) continue;
    const rawArgs = v.args;
    const argv: ArgWord[] = Array.isArray(rawArgs) ? rawArgs.map((a) => (typeof a === 'string' ? subst(a) : String(a)))
      : typeof rawArgs === 'string' ? splitCommands(rawArgs, env).flat().map((w) => w.text) : [];
    out.push({ file, source: `${ws.rel(file)}:${lineOf(text, c.offset)}`, script, argv, launcher: 'launch.json', world: 1 });
  }
  return out;
}


/** `[[tool.oomlens.runs]] command = "..."` in pyproject.toml at the root. */
function fromPyproject(ws: Workspace, file: string, text: string): LaunchCommand[] {
  let doc: Record<string, unknown>;
  try { doc = parseToml(text) as Record<string, unknown>; } catch { return []; }
  const runs = ((doc.tool as Record<string, unknown> | undefined)?.oomlens as Record<string, unknown> | undefined)?.runs;
  if (!Array.isArray(runs)) return [];
  const headers = text.split('\n').flatMap((l, i) => (/^\s*\[\[\s*tool\.oomlens\.runs\s*\]\]/.test(l) ? [i + 1] : []));
  const out: LaunchCommand[] = [];
  runs.forEach((r, i) => {
    const cmd = (r as Record<string, unknown>)?.command;
    if (typeof cmd !== 'string') return;
    const found = fromShell(ws, file, cmd.replace(/\n/g, ' '), headers[i] ?? 1);
    out.push(...found.map((c) => ({ ...c, source: `${ws.rel(file)}:${headers[i] ?? 1}` })));
  });
  return out;
}

/** Problems with `[[tool.oomlens.runs]]` tables, for the pyproject reader's messages. */
export function checkRuns(tool: Record<string, unknown>, at: (i: number) => string): string[] {
  const runs = tool.runs;
  if (runs === undefined) return [];
  if (!Array.isArray(runs)) return ['tool.oomlens.runs must be an array of tables ([[tool.oomlens.runs]])'];
  const problems: string[] = [];
  runs.forEach((r, i) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) { problems.push(`${at(i)}: a [[tool.oomlens.runs]] entry must be a table`); return; }
    const e = r as Record<string, unknown>;
    if (typeof e.command !== 'string' || !e.command.trim()) problems.push(`${at(i)}: \`command\` (a string such as "torchrun --nproc_per_node 8 train.py --bs 4") is missing`);
    for (const k of Object.keys(e)) if (!['command', 'name'].includes(k)) problems.push(`${at(i)}: unknown key \`${k}\``);
  });
  return problems;
}

interface FileCommands { hash: string; commands: LaunchCommand[] }
const perFile = new WeakMap<Workspace, Map<string, FileCommands>>();
const listing = new WeakMap<Workspace, { at: number; generation: number; files: string[] }>();

/** Shell scripts and Markdown files under the root (same skipping rules as Python files), at most MAX_FILES. */
function candidateFiles(ws: Workspace): string[] {
  const hit = listing.get(ws);
  if (hit && hit.generation === ws.generation && Date.now() - hit.at < 5_000) return hit.files;
  const files = ws.listFiles((n) => /\.(sh|bash|md)$/i.test(n), MAX_FILES);
  const out = [join(ws.root, 'pyproject.toml'), join(ws.root, '.vscode', 'launch.json'),
    ...files.filter((f) => /\.(sh|bash)$/i.test(f)), ...files.filter((f) => /\.md$/i.test(f))];
  listing.set(ws, { at: Date.now(), generation: ws.generation, files: out });
  return out;
}

/**
 * The shell scripts and Markdown files of the script's own folder and of each folder above it up to the root (the
 * README beside a script is where its command is most often written), then the workspace listing. The listing is
 * capped (MAX_FILES, in name order), so in a large repository (a library with hundreds of documentation pages) the
 * files next to the script would otherwise be cut off.
 */
function nearFirst(ws: Workspace, script: string, listed: string[]): string[] {
  const near: string[] = [];
  const root = resolve(ws.root);
  for (let d = dirname(script); isInside(d, root); d = dirname(d)) {
    let names: string[] = [];
    try { names = readdirSync(d).sort(); } catch { /* unreadable folder: nothing near */ }
    for (const n of names) if (/\.(sh|bash|md)$/i.test(n)) near.push(join(d, n));
    if (d === root || dirname(d) === d) break;
  }
  // Shell scripts before Markdown, as in the listing.
  near.sort((a, b) => Number(/\.md$/i.test(a)) - Number(/\.md$/i.test(b)));
  const seen = new Set(near);
  const rest = listed.filter((f) => !seen.has(f));
  // pyproject.toml and launch.json keep their place first (a declared run is preferred in any case).
  return [...rest.filter((f) => !/\.(sh|bash|md)$/i.test(f)), ...near, ...rest.filter((f) => /\.(sh|bash|md)$/i.test(f))];
}

function commandsIn(ws: Workspace, file: string, current: string): LaunchCommand[] {
  const text = ws.readText(file);
  if (text === undefined || text.length > MAX_BYTES) return [];
  const isLaunchJson = file.endsWith(`${join('.vscode', 'launch.json')}`);
  const hash = hashText(text) + (isLaunchJson && text.includes('${file') ? current : '');
  let m = perFile.get(ws);
  if (!m) perFile.set(ws, (m = new Map()));
  const hit = m.get(file);
  if (hit && hit.hash === hash) return hit.commands;
  const ext = extname(file).toLowerCase();
  let commands: LaunchCommand[] = [];
  try {
    commands = file.endsWith('pyproject.toml') ? fromPyproject(ws, file, text)
      : isLaunchJson ? fromLaunchJson(ws, file, text, current)
      : ext === '.md' ? fromMarkdown(ws, file, text)
      : fromShell(ws, file, text);
  } catch { commands = []; }
  if (m.size > 2 * MAX_FILES) m.clear();
  m.set(file, { hash, commands });
  return commands;
}

/** Commands in a script's module docstring and its leading comment lines (`# python train.py --x 1`). */
function usageInScript(ws: Workspace, script: string): LaunchCommand[] {
  const text = ws.readText(script);
  if (text === undefined) return [];
  const head = text.slice(0, 20_000);
  // Cached by the head's hash like the other sources: this runs on every analysis of the script (keystrokes).
  let m = perFile.get(ws);
  if (!m) perFile.set(ws, (m = new Map()));
  const key = `${script}#usage`;
  const hash = hashText(head);
  const hit = m.get(key);
  if (hit && hit.hash === hash) return hit.commands;
  const commands = usageCommands(ws, script, head);
  m.set(key, { hash, commands });
  return commands;
}

function usageCommands(ws: Workspace, script: string, head: string): LaunchCommand[] {
  const out: LaunchCommand[] = [];
  const doc = /^(?:\s*#[^\n]*\n|\s*\n)*\s*[rRuU]?("""|''')([\s\S]*?)\1/.exec(head);
  if (doc) {
    const first = head.slice(0, doc.index + doc[0].indexOf(doc[1]) + 3).split('\n').length;
    out.push(...fromShell(ws, script, doc[2], first));
  }
  const comments = /^(?:[ \t]*#[^\n]*\n)+/.exec(head);
  if (comments) out.push(...fromShell(ws, script, comments[0].replace(/^[ \t]*#[ \t]?/gm, ''), 1));
  return out;
}

/**
 * The first Python command in a command-line text (`oomlens check --run "..."`). Its paths are resolved as a shell
 * run in `cwd` would (`cd examples/mnist && oomlens check --run "python main.py"`), then from the workspace root;
 * `cwd` is the root when none is given.
 */
export function commandFromText(ws: Workspace, text: string, source: string, cwd = ws.root): LaunchCommand | undefined {
  const c = fromShell(ws, join(cwd, '.oomlens-run'), text.replace(/\n/g, ' '))[0];
  return c && { ...c, source, file: c.file };
}

/** The workspace's commands that run `script`, in source order (see the header). */
export function launchCommandsFor(ws: Workspace, script: string): LaunchCommand[] {
  const p = resolve(script);
  const out: LaunchCommand[] = [];
  for (const f of nearFirst(ws, p, candidateFiles(ws))) for (const c of commandsIn(ws, f, p)) if (c.script === p) out.push(c);
  // Last: usage written in the script's own module docstring or leading comments ("python trl/scripts/sft.py ...").
  for (const c of usageInScript(ws, p)) if (c.script === p) out.push(c);
  // A declared run always comes first; among the rest, a command whose every word is known (no unset
  // shell variable) before one that leaves values unknown, each group in source order.
  const declared = (c: LaunchCommand) => (c.file.endsWith('pyproject.toml') ? 0 : 1);
  const incomplete = (c: LaunchCommand) => (c.argv.some((w) => w === null) ? 1 : 0);
  return out.map((c, i) => ({ c, i })).sort((a, b) => declared(a.c) - declared(b.c) || incomplete(a.c) - incomplete(b.c) || a.i - b.i).map((x) => x.c);
}

/**
 * The workspace's commands that pass `file` to their script (a config file: `python train.py
 * configs/x.yaml`, `--config=configs/default.py`, absl's `--config configs/vit.py:b16`), complete
 * commands first, each group in source order. The script is not `file` itself.
 */
export function launchCommandsNaming(ws: Workspace, file: string): LaunchCommand[] {
  const p = resolve(file);
  const out: LaunchCommand[] = [];
  for (const f of candidateFiles(ws)) {
    for (const c of commandsIn(ws, f, p)) if (c.script !== p && c.argv.some((w) => w !== null && wordNames(ws, c, w, p))) out.push(c);
  }
  const incomplete = (c: LaunchCommand) => (c.argv.some((w) => w === null) ? 1 : 0);
  return out.map((c, i) => ({ c, i })).sort((a, b) => incomplete(a.c) - incomplete(b.c) || a.i - b.i).map((x) => x.c);
}

function wordNames(ws: Workspace, c: LaunchCommand, word: string, target: string): boolean {
  if (word.includes(UNSET)) return false;
  // `--config=path`; absl config_flags' `path:arg` names the .py file before the colon (ml_collections config_flags).
  const values = [word, word.replace(/^--?[\w.-]+=/, '')].map((v) => v.replace(/(\.py):[^/\\]*$/, '$1'));
  return values.some((v) => v && !isAbsolute(v) && [dirname(c.file), ws.root, dirname(c.script)].some((d) => resolve(d, v) === target));
}
