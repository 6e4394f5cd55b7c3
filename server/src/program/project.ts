/**
 * One file's analysis in its workspace: the file run as a program, and, for
 * each model class it defines but does not build, the construction that the
 * workspace's programs reach (`train.py` importing `model.py` and building
 * `GPT(GPTConfig(**model_args))` with its command-line defaults). The
 * programs are the workspace's Python files that import this file's module;
 * each is analysed as `__main__` (imports followed), and its results are
 * cached until a file it read changes. A model built by such a program is
 * reported on its class, with "as built in train.py:142"; this takes the
 * place of the class's defaults (program/defaults.ts), which stand only
 * when no program builds it.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Span } from '../../../shared/src/facts';
import { analyze, analyzeTree } from '../analysis/analyze';
import { initParser } from '../interp/parser';
import type { Tree } from '../interp/parser';
import { anchorSpan, type AnalysisResult, type AnalyzeOptions, type ModelReport } from '../analysis/api';
import { findRoot, hashText, isInside, workspaceFor, type Workspace } from './workspace';
import { launchCommandsNaming, type LaunchCommand } from './launch';
import { NOT_RUN } from './unreached';

/** At most this many programs are analysed to reach one file's classes. */
const MAX_PROGRAMS = 6;

interface Cached { deps: Map<string, string>; result: AnalysisResult; device: string }
const programCache = new Map<string, Cached>();

export async function analyzeFile(text: string, opts: AnalyzeOptions, previousTree?: Tree, ownResult?: AnalysisResult): Promise<AnalysisResult> {
  // A config file (YAML, JSON, TOML) is not Python: it is read by a program, never run.
  const notPython = !ownResult && opts.path !== undefined && CONFIG_FILE.test(opts.path);
  // `ownResult`: the file's own analysis when the caller already made it (the LSP worker, from its incremental tree).
  const own = notPython ? { text, models: [], findings: [], unbuilt: [], unknowns: [], dependencies: [], elapsedMs: 0 } : ownResult ?? await analyze(text, opts, previousTree);
  const r = await withPrograms(text, own, opts);
  if (!opts.path || r.models.length || r.unbuilt.length) return r;
  // Nothing built or defined here: a config file that a command of the workspace passes to its program.
  const run = await asRunWith(resolve(opts.path), r, opts);
  if (run) return run;
  if (notPython) r.unknowns.push({ what: 'file', reason: 'not a Python file, and no command of the workspace (README, shell scripts, .vscode/launch.json, [[tool.oomlens.runs]]) passes it to a program' });
  return r;
}

const CONFIG_FILE = /\.(ya?ml|json|toml|cfg|ini|conf)$/i;

/**
 * `file` (a config file) as the workspace's commands run it: the first command that passes it to a
 * program (`python train.py configs/x.yaml`, README.md) is analysed with its words, and the models it
 * builds are reported here, "as built in train.py:N" with the command named by `run`. When the program
 * builds nothing, its unknowns say why. Undefined when no command names the file.
 */
async function asRunWith(path: string, own: AnalysisResult, opts: AnalyzeOptions): Promise<AnalysisResult | undefined> {
  const ws = workspaceFor(opts.workspaceRoot ?? findRoot(path));
  const commands = launchCommandsNaming(ws, path).slice(0, MAX_PROGRAMS);
  // A Python config (`def get_config`) no command names: the programs that take an ml_collections config file flag
  // (`config_flags.DEFINE_config_file("config")`), nearest folder first, run with `--config=<this file>`.
  if (!commands.length && /\.py$/.test(path) && /^def get_config\(/m.test(own.text)) commands.push(...configFlagPrograms(ws, path));
  // A config file no command names that a program reads by default (`os.environ.get('CFG', 'config/gpt2.yaml')`):
  // the programs whose text names the file, run with no arguments; their models are shown only when the run
  // read this file (below).
  const byDefault = !commands.length && CONFIG_FILE.test(path) ? defaultReaders(ws, path) : [];
  commands.push(...byDefault);
  let first: { deps: string[]; unknowns: AnalysisResult['unknowns'] } | undefined;
  for (const cmd of commands) {
    // The workspace's parse of the program (kept while its text is unchanged), as in analyzeProgram; a config
    // file that is not Python has not loaded the parser yet.
    await initParser();
    const sf = ws.load(cmd.script);
    if (!sf) continue;
    const progText = sf.text;
    const r = await analyzeTree(progText, { ...opts, path: cmd.script, workspaceRoot: ws.root, launch: cmd }, sf.tree);
    const deps = [...new Set([...(own.dependencies ?? []), cmd.script, cmd.file, ...(r.dependencies ?? [])])];
    if (byDefault.includes(cmd) && !(r.dependencies ?? []).includes(path)) continue;
    if (r.models.length) {
      const head = { start: 0, end: Math.max(0, own.text.indexOf('\n') < 0 ? own.text.length : own.text.indexOf('\n')) };
      const models = r.models.map((m) => {
        const copy = rehome(m, path, cmd.script, progText);
        // Nothing in the config file builds it: the model is shown on the file's first line.
        if (anchorSpan(copy).file) copy.facts.entrySpan = { ...head };
        return copy;
      });
      return { ...own, models, dependencies: deps };
    }
    if (!first?.unknowns.length) first = { deps, unknowns: r.unknowns.map((u) => ({ what: u.what, reason: `as run by ${cmd.source}: ${u.reason}` })) };
  }
  return first?.unknowns.length ? { ...own, unknowns: [...own.unknowns, ...first.unknowns], dependencies: first.deps } : undefined;
}

/** Programs (`if __name__ == "__main__":`) whose text names `file` in a string, nearest first, as commands with no arguments. */
function defaultReaders(ws: Workspace, file: string): LaunchCommand[] {
  const name = basename(file);
  const quoted = new RegExp(`['"][^'"\\n]*\\b${escape(name)}['"]`);
  const out: { cmd: LaunchCommand; near: number }[] = [];
  for (const p of ws.pythonFiles()) {
    const text = ws.readText(p) ?? '';
    if (!text.includes(name) || !quoted.test(text) || !/__name__\s*==\s*['"]__main__['"]/.test(text)) continue;
    const rel = relative(dirname(p), file);
    const near = rel.startsWith('..') ? 100 + rel.split(sep).length : rel.split(sep).length;
    const shown = relative(ws.root, file).split(sep).join('/');
    out.push({ near, cmd: { source: `${relative(ws.root, p).split(sep).join('/')} (reads ${shown} by default)`, file: p, script: p, argv: [], launcher: 'python' } });
  }
  return out.sort((a, b) => a.near - b.near).slice(0, 3).map((x) => x.cmd);
}

/** Programs of the workspace defining an ml_collections config-file flag, as commands passing `file` to it. */
function configFlagPrograms(ws: Workspace, file: string): LaunchCommand[] {
  const out: { cmd: LaunchCommand; near: number }[] = [];
  for (const p of ws.pythonFiles()) {
    const text = ws.readText(p) ?? '';
    const m = /DEFINE_config_file\(\s*(?:name\s*=\s*)?["'](\w+)["']/.exec(text);
    if (!m || !/__name__\s*==\s*['"]__main__['"]/.test(text)) continue;
    // The nearest: the program whose folder holds the config (examples/lm1b/main.py for examples/lm1b/configs/x.py).
    const rel = relative(dirname(p), file);
    const near = rel.startsWith('..') ? 100 + rel.split(sep).length : rel.split(sep).length;
    const shown = relative(ws.root, file).split(sep).join('/');
    out.push({ near, cmd: { source: `${relative(ws.root, p).split(sep).join('/')} --${m[1]}=${shown} (the program's config-file flag)`, file: p, script: p, argv: [`--${m[1]}=${file}`], launcher: 'python' } });
  }
  return out.sort((a, b) => a.near - b.near).slice(0, 3).map((x) => x.cmd);
}

async function withPrograms(text: string, own: AnalysisResult, opts: AnalyzeOptions): Promise<AnalysisResult> {
  if (!opts.path) return own;
  const path = resolve(opts.path);
  const defaulted = own.models.filter((m) => m.origin && m.facts.definitionSpan);
  // Constructions in this file's functions that only a program reaches (train.py's `create_state`, called by main.py).
  const lookForCalls = own.models.length === 0 && /^\s*def\s/m.test(text);
  // A module of values only (a dict of configurations a program picks from by a flag): its programs' missing inputs.
  const dataOnly = own.models.length === 0 && !own.unknowns.length && !/^\s*(def|class)\s/m.test(text) && /^\w+\s*(:[^=\n]+)?=/m.test(text);
  if (!defaulted.length && !own.unbuilt.length && !lookForCalls && !dataOnly) return own;
  const ws = workspaceFor(opts.workspaceRoot ?? findRoot(path));
  const wanted = new Set([...defaulted.map((m) => m.facts.definitionSpan!.start), ...own.unbuilt.map((u) => u.span.start)]);
  const found = new Map<number, ModelReport>();
  const parts = new Map<number, ModelReport>();
  const ownDefs = new Set(own.models.flatMap((m) => (m.facts.definitionSpan && m.facts.definitionSpan.file === undefined ? [m.facts.definitionSpan.start] : m.facts.definitionSpan?.file === path ? [m.facts.definitionSpan.start] : [])));
  const calls = new Map<number, ModelReport>();
  const deps = new Set(own.dependencies ?? []);
  // What the first program that reaches nothing here lacks (a required flag, a checkpoint it cannot name).
  let inputs: AnalysisResult['unknowns'] = [];
  for (const prog of programsImporting(ws, path)) {
    deps.add(prog);
    if (wanted.size === found.size && [...found.values()].every(known) && !lookForCalls && !(dataOnly && !inputs.length)) break;
    const r = await analyzeProgram(ws, prog, opts, own.unbuilt.length ? { file: path, starts: own.unbuilt.map((u) => u.span.start) } : undefined);
    if (!r) continue;
    const progText = ws.readText(prog) ?? '';
    // Only from a program that is stuck itself (no model of known size): a sized program's flags are not this file's.
    if (!inputs.length && r.models.every((m) => !known(m))) inputs = missingInputs(r, prog, progText, ws.root);
    for (const m of r.models) {
      const def = m.facts.definitionSpan;
      // A program whose build has a size is preferred to one that loads it from a checkpoint it cannot read.
      if (def && def.file === path && wanted.has(def.start) && (!found.has(def.start) || (!known(found.get(def.start)!) && known(m)))) found.set(def.start, rehome(m, path, prog, progText));
      else if (lookForCalls && reachedFrom(m, path) && !calls.has(reachedFrom(m, path)!.start)) calls.set(reachedFrom(m, path)!.start, rehome(m, path, prog, progText));
      // A class this file's own analysis takes for a part (the base class of another model class here)
      // that a program builds as its model is a model too: reported as built there.
      else if (def && def.file === path && !found.has(def.start) && !ownDefs.has(def.start) && !parts.has(def.start)) { parts.set(def.start, rehome(m, path, prog, progText)); }
    }
    if (calls.size) break; // the first program that reaches this file's constructions is the one shown
  }
  own.dependencies = [...deps];
  if (!found.size && !calls.size && !parts.size) {
    // Nothing here is built by the programs either, and the file has nothing to say of its own: the inputs the
    // programs that import it lack are why, and are named rather than "no model found".
    const silent = !own.models.length && !own.unbuilt.length && !own.unknowns.length && !own.host?.length;
    return silent && inputs.length ? { ...own, unknowns: inputs } : own;
  }
  // The program's build takes the place of the class built from its own defaults; the file's
  // builder functions (`def resnet20(): return ResNet(...)`, reported under their own names) stay.
  const models = own.models.filter((m) => {
    const def = m.facts.definitionSpan;
    const prog = def && m.origin ? found.get(def.start) : undefined;
    return !(prog && prog.facts.name === m.facts.name);
  });
  models.push(...found.values(), ...calls.values(), ...[...parts].filter(([k]) => !found.has(k)).map(([, m]) => m));
  models.sort((a, b) => anchorSpan(a).start - anchorSpan(b).start);
  // A program that reaches the file's functions says what they build: no "not run" unknown stands beside it.
  const unknowns = calls.size ? own.unknowns.filter((u) => u.what !== NOT_RUN) : own.unknowns;
  return { ...own, models, unknowns, unbuilt: own.unbuilt.filter((u) => !found.has(u.span.start)) };
}

const known = (m: ModelReport): boolean => m.facts.paramCount !== null;

/**
 * A program's file-level unknowns that name an input it lacks (a command-line value no command gives, a checkpoint
 * whose name is not known: analysis/analyze.ts), seen from a file the program imports: "as run by main.py: …",
 * with the program's line.
 */
function missingInputs(r: AnalysisResult, prog: string, progText: string, root: string): AnalysisResult['unknowns'] {
  const starts = lineStarts(progText);
  const shown = relative(root, prog).split(sep).join('/');
  return r.unknowns.filter((u) => u.what === 'command line' || u.what === 'model').slice(0, 3).map((u) => ({
    what: u.what,
    reason: `as run by ${shown}: ${u.reason}`,
    ...(u.span ? { span: u.span.file ? u.span : { ...u.span, file: prog, line: lineAt(starts, u.span.start) } } : {}),
  }));
}

/**
 * The span in `file` where a program's model was built: its construction, or the call in `file` that led to a
 * construction in a third file (train.py calling a helper of utils.py that initialises the model).
 */
function reachedFrom(m: ModelReport, file: string): Span | undefined {
  if (m.facts.span.file === file) return m.facts.span;
  return m.facts.viaSpans?.find((s) => s.file === file);
}

/** Workspace files whose imports name `file`'s module, nearest folder first. */
export function programsImporting(ws: Workspace, file: string): string[] {
  // Importers of the file, then importers of those (main.py → train.py → models.py), up to three steps.
  const seen = new Set<string>([file]);
  let frontier = [file];
  const out: string[] = [];
  for (let depth = 0; depth < 3 && frontier.length && out.length < MAX_PROGRAMS * 2; depth++) {
    const next: string[] = [];
    for (const f of frontier) for (const p of directImporters(ws, f)) if (!seen.has(p)) { seen.add(p); next.push(p); }
    out.push(...next);
    frontier = next;
  }
  // Scripts (`if __name__ == "__main__":`) first, then the nearest.
  const script = (p: string) => (/__name__\s*==\s*['"]__main__['"]/.test(ws.readText(p) ?? '') ? 0 : 1);
  const near = (p: string) => relative(dirname(file), p).split(sep).length;
  return out.sort((a, b) => script(a) - script(b) || near(a) - near(b) || a.localeCompare(b)).slice(0, MAX_PROGRAMS);
}

/** Workspace files whose import statements name `file`'s module (or a package holding it). */
function directImporters(ws: Workspace, file: string): string[] {
  // `from tinylm import TinyLM` reaches tinylm/model.py through the package's __init__.
  const names = [basename(file, '.py') === '__init__' ? basename(dirname(file)) : basename(file, '.py')];
  for (let d = dirname(file); existsSync(join(d, '__init__.py')) && isInside(dirname(d), ws.root) && dirname(d) !== d; d = dirname(d)) {
    if (!names.includes(basename(d))) names.push(basename(d));
  }
  const alt = names.map(escape).join('|');
  const pattern = new RegExp(String.raw`^[ \t]*(from[ \t]+[\w.]*\b(${alt})\b[\w.]*[ \t]+import|import[ \t]+[\w., \t]*\b(${alt})\b|from[ \t]+\.+[ \t]+import[ \t]+[\w, \t(]*\b(${alt})\b)`, 'm');
  return ws.pythonFiles().filter((p) => {
    if (p === file) return false;
    const text = ws.readText(p) ?? '';
    // The same text (the same string from the workspace's cache) asked the same question: the last answer.
    const key = `${pattern.source}\u0000${p}`;
    const seen = importScans.get(key);
    if (seen && seen.text === text) return seen.imports;
    const imports = pattern.test(text);
    if (importScans.size >= 20_000) importScans.clear();
    importScans.set(key, { text, imports });
    return imports;
  });
}

/** Per search and file, the last answer of `directImporters` (a keystroke asks the same of every file again). */
const importScans = new Map<string, { text: string; imports: boolean }>();

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function analyzeProgram(ws: Workspace, prog: string, opts: AnalyzeOptions, partsOf?: AnalyzeOptions['partsOf']): Promise<AnalysisResult | undefined> {
  const key = partsOf ? `${prog}\u0000${partsOf.file}\u0000${partsOf.starts.join(',')}` : prog;
  const hit = programCache.get(key);
  if (hit && hit.device === opts.device && [...hit.deps].every(([p, h]) => (ws.readText(p) !== undefined ? hashText(ws.readText(p)!) : '') === h)) return hit.result;
  // The workspace's parse of the program (kept while its text is unchanged): every keystroke in a file it
  // imports analyses it again, and parsing it anew was a sixth of that.
  await initParser();
  const sf = ws.load(prog);
  if (!sf) return undefined;
  const text = sf.text;
  const result = await analyzeTree(text, { ...opts, path: prog, workspaceRoot: ws.root, launch: undefined, ...(partsOf ? { partsOf } : {}) }, sf.tree);
  const deps = new Map<string, string>([[prog, hashText(text)]]);
  for (const d of result.dependencies ?? []) { const t = ws.readText(d); deps.set(d, t === undefined ? '' : hashText(t)); }
  programCache.set(key, { deps, result, device: opts.device });
  if (programCache.size > 64) programCache.delete(programCache.keys().next().value as string);
  return result;
}

/** A model report of another program, with its spans seen from `file`: spans in `file` become local, the program's carry its path. */
function rehome(m: ModelReport, file: string, prog: string, progText: string): ModelReport {
  const starts = lineStarts(progText);
  const copy = structuredClone(m) as ModelReport;
  const fix = (s: Span): void => {
    if (s.file === file) { delete s.file; delete s.line; return; }
    if (!s.file) { s.file = prog; s.line = lineAt(starts, s.start); }
  };
  // Built in a third file by a call of `file`'s code: that call is where `file` shows it.
  const via = m.facts.span.file !== file ? m.facts.viaSpans?.find((s) => s.file === file) : undefined;
  if (via) copy.facts.entrySpan = { ...via };
  walkSpans(copy, fix, new Set());
  // The program's own line that builds it: the construction, or the program's call that reached it.
  const site = !m.facts.span.file ? m.facts.span : m.facts.entrySpan && !m.facts.entrySpan.file ? m.facts.entrySpan : undefined;
  copy.origin = `as built in ${relative(dirname(file), prog).split(sep).join('/')}${site ? `:${lineAt(starts, site.start)}` : ''}`;
  return copy;
}

function walkSpans(v: unknown, fix: (s: Span) => void, seen: Set<object>): void {
  if (!v || typeof v !== 'object' || seen.has(v)) return;
  seen.add(v);
  const o = v as Record<string, unknown>;
  if (typeof o.start === 'number' && typeof o.end === 'number' && Object.keys(o).every((k) => ['start', 'end', 'file', 'line'].includes(k))) {
    fix(o as unknown as Span);
    return;
  }
  for (const x of Array.isArray(v) ? v : Object.values(o)) walkSpans(x, fix, seen);
}

function lineStarts(text: string): number[] {
  const s = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) s.push(i + 1);
  return s;
}
function lineAt(starts: number[], off: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid] <= off) lo = mid; else hi = mid - 1; }
  return lo + 1;
}
