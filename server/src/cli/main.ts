/**
 * The `oomlens` command line (bundled to dist/cli.js, run through
 * bin/oomlens.js): `check` prints per-model memory tables and ruff-style
 * findings (text or JSON), `fix` applies fixes in place, `devices` lists the
 * device catalogue. Exit status: 0 no finding, 1 findings, 2 bad usage or
 * unreadable input. Per-file defaults come from `[tool.oomlens]` in the
 * nearest pyproject.toml; command-line flags win.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { commandFromText } from '../program/launch';
import { findRoot, isInside, markedRoot, workspaceFor } from '../program/workspace';
import { pathToFileURL } from 'node:url';
import { displayName, listDevices, parseDeviceSpec, usableCapacity } from '../../../shared/src/devices';
import { renderSvg } from '../timeline/render';
import { documentSpec, locatorFor, timelineView } from '../timeline/view';
import { GB, GiB } from '../../../shared/src/units';
import type { Units } from '../../../shared/src/types';
import { analyzeFile as analyze } from '../program/project';
import type { AnalysisResult, Finding } from '../analysis/api';
import { readProjectConfig } from '../config/pyproject';
import { SETTINGS_SCHEMA } from '../config/settings';
import { checkCodes, parseArgs, selected, USAGE, UsageError, type CliOptions } from './args';
import { RULES } from '../rules';
import { collectFiles, displayPath, readSource } from './files';
import { chooseFix, fixText } from './fix';
import { fileJson, LineIndex, type JsonReport } from './report';
import type { CellSpan } from '../notebook/cells';
import { clip, findingLine, hostModelText, modelText, unitNote, wrap } from './text';
import { githubAnnotations, sarifReport } from './sarif';

const DEFAULT_DEVICE = String(SETTINGS_SCHEMA['oomlens.target.device'].default);
const DEFAULT_UNITS: Units = 'GB';

interface Io { out: (s: string) => void; err: (s: string) => void }

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

interface FileSettings {
  device: string;
  /** Where the device came from: the flag, the pyproject.toml that set it, or the default. */
  deviceSource: string;
  units: Units; disabled: string[]; severity: Record<string, 'error' | 'warning' | 'information' | 'hint' | 'off'>; problems: string[];
}

function settingsFor(file: string, opts: CliOptions): FileSettings {
  const cfg = readProjectConfig(file);
  return {
    device: opts.device ?? cfg.device ?? DEFAULT_DEVICE,
    deviceSource: opts.device ? '--device' : cfg.device ? 'pyproject.toml' : 'default',
    units: opts.units ?? cfg.units ?? DEFAULT_UNITS,
    disabled: cfg.disabled ?? [],
    severity: cfg.severity ?? {},
    problems: cfg.problems,
  };
}

async function analyseWith(text: string, file: string, s: FileSettings, opts: CliOptions): Promise<{ result: AnalysisResult; findings: Finding[] }> {
  const launch = opts.launch && resolve(opts.launch.script) === resolve(file) ? opts.launch : undefined;
  const result = await analyze(text, { path: file, device: s.device, disabledRules: s.disabled, severityOverrides: s.severity, preview: opts.preview, ...(launch ? { launch } : {}), ...cwdRoot(file) });
  return { result, findings: result.findings.filter((f) => selected(f.code, opts)) };
}

/**
 * A checkout with no project marker (.git, pyproject.toml, setup.py, setup.cfg: an archive, a copied folder) run
 * from its top folder: the folder the command runs in is the workspace, as for ruff and eslint, so that
 * `sys.path.insert(0, "../src")` in `scripts/train.py` reaches `src/` (runa91/barc_release, replayed in
 * docs/accuracy.md). Without it the workspace was the script's own folder and the model "not found".
 */
function cwdRoot(file: string): { workspaceRoot?: string } {
  const abs = resolve(file);
  const cwd = process.cwd();
  if (markedRoot(abs) !== undefined || !isInside(abs, cwd) || dirname(abs) === cwd) return {};
  return { workspaceRoot: cwd };
}

function badDevice(device: string, where: string): string | undefined {
  const spec = parseDeviceSpec(device);
  if (!('error' in spec)) return undefined;
  // The engine's message already lists the known ids for an unknown name; add them when it did not.
  return `${where}: ${spec.error}${/Known devices/.test(spec.error) ? '' : ` Known devices: ${spec.known.join(', ')}.`}`;
}

/** Settings, device and source of one file; undefined (the error printed) when it cannot be analysed. */
function openFile(file: string, opts: CliOptions, io: Io) {
  const path = displayPath(file);
  const s = settingsFor(file, opts);
  for (const p of s.problems) io.err(`oomlens: warning: ${p}`);
  const dev = badDevice(s.device, opts.device ? '--device' : `${path} ([tool.oomlens] device)`);
  if (dev) { io.err(`oomlens: error: ${dev}`); return undefined; }
  const src = readSource(file);
  if (src.kind === 'error') { io.err(`oomlens: error: ${path}: ${src.reason}`); return undefined; }
  return { path, s, src };
}

/** An analyzer problem that is a bug in oomlens, not a limit of static analysis. */
const isInternal = (reason: string): boolean => /internal error|rule failed/.test(reason);

/** What `check` learnt about one file, whatever the output format. */
export interface Outcome {
  file: string;
  path: string;
  settings: FileSettings;
  skipped?: string;
  result?: AnalysisResult;
  /** Notebooks: where each code cell starts in the analysed text. */
  cells?: CellSpan[];
  findings: Finding[];
  /** Internal errors: the analysis died, or a rule failed. */
  internal: string[];
}

async function check(opts: CliOptions, io: Io): Promise<number> {
  if (opts.run !== undefined) {
    // The command's script is the file to analyse; its words and process count come with it. Its paths are
    // relative to where oomlens runs, as the shell's would be, even in a sub-folder of the workspace.
    const cmd = commandFromText(workspaceFor(findRoot(join(process.cwd(), 'x.py'))), opts.run, '--run', process.cwd());
    if (!cmd) { io.err(`oomlens: error: --run: no Python script of this workspace is run by \`${opts.run}\``); return 2; }
    opts.launch = cmd;
    if (!opts.paths.length) opts.paths = [cmd.script];
  }
  const { files, errors } = collectFiles(opts.paths);
  let status = 0;
  for (const e of errors) { io.err(`oomlens: error: ${e}`); status = 2; }
  const outcomes: Outcome[] = [];
  for (const file of files) {
    const opened = openFile(file, opts, io);
    if (!opened) { status = 2; continue; }
    const { path, s, src } = opened;
    if (src.kind === 'skipped') { outcomes.push({ file, path, settings: s, skipped: src.reason, findings: [], internal: [] }); continue; }
    try {
      const r = await analyseWith(src.text, file, s, opts);
      const internal = r.result.unknowns.filter((u) => isInternal(u.reason)).map((u) => `${u.what}: ${u.reason}`);
      outcomes.push({ file, path, settings: s, result: r.result, cells: src.cells, findings: r.findings, internal });
    } catch (e) {
      outcomes.push({ file, path, settings: s, findings: [], internal: [`analysis failed: ${(e as Error).stack ?? (e as Error).message}`] });
    }
  }
  const internal = outcomes.flatMap((o) => o.internal.map((m) => `${o.path}: ${m}`));
  for (const m of internal) io.err(`oomlens: internal error: ${m}`);
  const analysed = outcomes.filter((o) => o.result).length;
  const findingCount = outcomes.reduce((n, o) => n + o.findings.length, 0);
  if (internal.length) status = 2;
  if (analysed === 0 && status !== 2) {
    const skipped = outcomes.filter((o) => o.skipped).length;
    io.err(`oomlens: error: nothing analysed: ${files.length === 0 ? `no Python files or notebooks under ${opts.paths.join(', ')}` : `${skipped} file${skipped === 1 ? '' : 's'} skipped (see above), none analysed`}`);
    status = 2;
  }

  if (opts.format === 'json') {
    io.out(JSON.stringify(jsonReport(outcomes, errors, internal), null, 2));
  } else if (opts.format === 'sarif') {
    io.out(JSON.stringify(sarifReport(outcomes, version()), null, 2));
  } else if (opts.format === 'github') {
    for (const l of githubAnnotations(outcomes)) io.out(l);
  } else if (opts.format === 'svg') {
    const svgs: { file: string; model: string; svg: string }[] = [];
    for (const o of outcomes) {
      if (!o.result) continue;
      // Lines are counted in the analysed text (a notebook's code cells joined), so cell sources are named by the notebook.
      const locate = locatorFor(o.result.text, pathToFileURL(resolve(o.file)).href, o.path, (f) => pathToFileURL(f).href);
      for (const m of o.result.models) {
        const view = timelineView(m.facts, m.estimate, locate, { units: o.settings.units, width: 720 });
        svgs.push({ file: o.file, model: m.facts.name, svg: await renderSvg(documentSpec(view, 720)) });
      }
    }
    const drawn = writeSvgs(svgs, opts.out, io);
    if (drawn === 'error') return 2;
  } else {
    for (const l of checkText(outcomes, { errors: errors.length, internal: internal.length, status })) io.out(l);
  }
  if (status === 2) return 2;
  return findingCount > 0 && !opts.exitZero ? 1 : 0;
}

function jsonReport(outcomes: Outcome[], errors: string[], internal: string[]): JsonReport {
  const files = outcomes.map((o) => (o.result
    ? fileJson(o.path, o.settings.device, o.result, o.findings, o.settings.problems, o.file, o.cells)
    : { path: o.path, device: o.settings.device, diagnostics: [], models: [], unbuilt: [], unknowns: o.internal.map((reason) => ({ what: 'analysis', reason, line: null })), ...(o.skipped ? { skipped: o.skipped } : {}) }));
  return {
    files,
    summary: {
      files: outcomes.length,
      analysed: outcomes.filter((o) => o.result).length,
      skipped: outcomes.filter((o) => o.skipped).length,
      models: outcomes.reduce((n, o) => n + (o.result?.models.length ?? 0), 0),
      findings: outcomes.reduce((n, o) => n + o.findings.length, 0),
      errors,
      internalErrors: internal,
    },
  };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The text report: a block per file and model, the findings, and a summary that says what was and was not checked. */
function checkText(outcomes: Outcome[], counts: { errors: number; internal: number; status: number }): string[] {
  const text: string[] = [];
  const unitsSeen = new Set<Units>();
  let safeFixable = 0;
  let unsafeFixable = 0;
  for (const o of outcomes) {
    if (o.skipped) { text.push(clip(`${o.path}: skipped: ${o.skipped}`), ''); continue; }
    const r = o.result;
    if (!r) { text.push(`${o.path}: internal error, not analysed (see stderr)`, ''); continue; }
    if (!r.models.length && !o.findings.length && !r.unknowns.length && !r.unbuilt.length && !r.host?.length) continue;
    const idx = new LineIndex(r.text, o.file, o.cells);
    const spec = parseDeviceSpec(o.settings.device);
    const target = 'error' in spec ? o.settings.device : displayName(spec);
    unitsSeen.add(o.settings.units);
    const from = o.settings.deviceSource === 'default' ? 'default device' : `from ${o.settings.deviceSource}`;
    text.push(clip(`${o.path} · target ${target} (${from})`));
    for (const m of r.models) text.push(...modelText(m, idx, o.settings.units));
    for (const h of r.host ?? []) text.push(...hostModelText(h, idx, o.settings.units));
    for (const u of r.unbuilt) text.push(...wrap(`  ${u.name}, ${idx.label(u.span)}: no number: ${u.reason}`, '    '));
    if (!r.models.length && !r.unbuilt.length && !r.host?.length) text.push('  no model found in this file');
    for (const u of r.unknowns) if (!isInternal(u.reason)) text.push(...wrap(`  unknown: ${u.what}: ${u.reason}${u.span ? ` (${idx.label(u.span)})` : ''}`, '    '));
    for (const f of o.findings) {
      text.push(findingLine(o.path, f, idx, o.settings.units));
      if (o.cells) continue; // `oomlens fix` does not rewrite notebooks
      if (f.fixes.some((x) => x.applicability === 'safe')) safeFixable++;
      else if (f.fixes.some((x) => x.applicability === 'unsafe')) unsafeFixable++;
    }
    text.push('');
  }
  if (unitsSeen.size) text.unshift(`Units: ${[...unitsSeen].map(unitNote).join('; ')}.`, '');
  const analysed = outcomes.filter((o) => o.result);
  const models = analysed.reduce((n, o) => n + o.result!.models.length, 0);
  const findings = analysed.reduce((n, o) => n + o.findings.length, 0);
  const withFindings = analysed.filter((o) => o.findings.length).length;
  const unknownVerdicts = analysed.reduce((n, o) => n + o.result!.models.filter((m) => m.estimate.phases.some((p) => p.fits === null)).length, 0);
  const skipped = outcomes.filter((o) => o.skipped).length;
  const scope = `${plural(analysed.length, 'file')} analysed${skipped ? `, ${skipped} skipped` : ''}, ${plural(models, 'model')} found`;
  const problems: string[] = [];
  if (counts.errors) problems.push(plural(counts.errors, 'path error'));
  if (counts.internal) problems.push(plural(counts.internal, 'internal error'));
  const tail = problems.length ? ` ${problems.join(', ')} (see stderr).` : '';
  let summary: string;
  if (analysed.length === 0) {
    summary = `Nothing analysed: ${skipped ? `${plural(skipped, 'file')} skipped` : 'no Python files or notebooks found'}.${tail}`;
  } else if (findings > 0) {
    const hints: string[] = [];
    if (safeFixable) hints.push(`${safeFixable} fixable with \`oomlens fix\``);
    if (unsafeFixable) hints.push(`${unsafeFixable} more with \`oomlens fix --unsafe-fixes\``);
    summary = `Found ${plural(findings, 'finding')} in ${withFindings} of ${plural(analysed.length, 'file')} (${plural(models, 'model')}).${tail}`;
    if (hints.length) summary += `\n${hints.join('; ')}.`;
  } else if (models === 0) {
    const unbuilt = analysed.reduce((n, o) => n + o.result!.unbuilt.length, 0);
    const onHost = analysed.reduce((n, o) => n + (o.result!.host?.length ?? 0), 0);
    summary = unbuilt
      ? `No model sized: ${scope}; ${plural(unbuilt, 'model class', 'model classes')} defined but not built (see above).${tail}`
      : onHost
      ? `No device model: ${scope}; ${plural(onHost, 'model')} kept on the host only (see above), nothing on the accelerator to check.${tail}`
      : `No model found: ${scope}; nothing to check.${tail}`;
  } else if (problems.length) {
    summary = `No findings, but not every file was checked: ${scope}.${tail}`;
  } else if (unknownVerdicts) {
    summary = `No findings: ${scope}; ${plural(unknownVerdicts, 'model')} with sizes unknown (see "unknown" above).`;
  } else if (analysed.some((o) => o.result!.unknowns.some((u) => u.what === 'training step'))) {
    // A training step that no reported model accounts for: the peak it makes is not known, so nothing "passed".
    summary = `No findings: ${scope}; a training step is not sized (see "unknown" above).`;
  } else {
    summary = `All checks passed: ${scope}, no findings.`;
  }
  for (const l of summary.split('\n')) text.push(...wrap(l, '  '));
  return text;
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+|_+$/g, '').slice(0, 80) || 'model';
}

/**
 * `--format svg`: without --out, the one model's SVG on stdout (several or
 * none is an error, exit 2); with --out DIR, DIR/<file>.<model>.svg per
 * model (a numeric suffix keeps names apart) and one "wrote" line each.
 */
function writeSvgs(svgs: { file: string; model: string; svg: string }[], out: string | undefined, io: Io): 'ok' | 'error' {
  if (out === undefined) {
    if (svgs.length === 1) { io.out(svgs[0].svg.replace(/\n$/, '')); return 'ok'; }
    io.err(svgs.length === 0
      ? 'oomlens: error: no model found: nothing to draw'
      : `oomlens: error: ${svgs.length} models found (${svgs.map((x) => x.model).join(', ')}): pass --out DIR to write one SVG per model`);
    return 'error';
  }
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    io.err(`oomlens: error: cannot create ${out} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    return 'error';
  }
  if (svgs.length === 0) io.err('oomlens: warning: no model found: no SVG written');
  const used = new Set<string>();
  for (const x of svgs) {
    const stem = `${slug(basename(x.file).replace(/\.py$/, ''))}.${slug(x.model)}`;
    let name = `${stem}.svg`;
    for (let i = 2; used.has(name); i++) name = `${stem}-${i}.svg`;
    used.add(name);
    const path = join(out, name);
    try {
      writeFileSync(path, x.svg);
    } catch (e) {
      io.err(`oomlens: error: cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      return 'error';
    }
    io.out(`wrote ${path} (${x.model}, ${displayPath(x.file)})`);
  }
  return 'ok';
}

async function fix(opts: CliOptions, io: Io): Promise<number> {
  const { files, errors } = collectFiles(opts.paths);
  let status = 0;
  let fixedTotal = 0;
  let remainingTotal = 0;
  for (const e of errors) { io.err(`oomlens: error: ${e}`); status = 2; }
  for (const file of files) {
    const opened = openFile(file, opts, io);
    if (!opened) { status = 2; continue; }
    const { path, s, src } = opened;
    if (src.kind === 'skipped') { io.out(`${path}: skipped: ${src.reason}`); continue; }
    if (src.cells) { io.out(`${path}: skipped: \`oomlens fix\` does not rewrite notebooks yet; apply the fixes in the editor (\`check\` lists them)`); continue; }
    let out;
    try {
      out = await fixText(src.text, (t) => analyseWith(t, file, s, opts), opts.unsafeFixes, (t, off) => new LineIndex(t).line(off));
    } catch (e) {
      io.err(`oomlens: error: ${path}: analysis failed: ${(e as Error).message}`);
      status = 2;
      continue;
    }
    if (out.applied.length) {
      try {
        writeFileSync(file, (src.bom ? '\ufeff' : '') + out.text);
      } catch (e) {
        io.err(`oomlens: error: ${path}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        status = 2;
        continue;
      }
      for (const a of out.applied) io.out(`${path}: fixed ${a.code} (line ${a.line}): ${a.title}`);
    }
    fixedTotal += out.applied.length;
    const idx = new LineIndex(out.remaining.result.text);
    for (const f of out.remaining.findings) {
      const hint = !opts.unsafeFixes && !chooseFix(f, false) && chooseFix(f, true) ? ' (unsafe fix available: --unsafe-fixes)' : '';
      io.out(findingLine(path, f, idx) + hint);
    }
    remainingTotal += out.remaining.findings.length;
  }
  io.out(`Fixed ${fixedTotal} finding${fixedTotal === 1 ? '' : 's'}, ${remainingTotal} remaining.`);
  return status === 2 ? 2 : remainingTotal > 0 ? 1 : 0;
}

function devices(io: Io): number {
  for (const d of listDevices()) {
    // Nominal size (nvidia-smi's total), then what CUDA reports as usable: the figure budgets are taken from.
    const u = usableCapacity(d);
    const usable = u.known ? `usable ${(u.bytes / GiB).toFixed(2)} GiB` : 'usable not known (budgets use the nominal size)';
    io.out(`${d.id.padEnd(12)} ${d.name.padEnd(16)} ${(d.capacityBytes / GiB).toFixed(1).padStart(6)} GiB  ${(d.capacityBytes / GB).toFixed(1).padStart(6)} GB  ${usable}`);
  }
  io.out('Several devices: prefix a count, e.g. 8xh100-80gb.');
  return 0;
}

export async function main(argv: string[], io: Io): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseArgs(argv);
    checkCodes(opts, RULES.map((r) => r.code).sort());
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`oomlens: error: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
  if (opts.command === 'help') { io.out(USAGE); return 0; }
  if (opts.command === 'version') { io.out(`oomlens ${version()}`); return 0; }
  if (opts.command === 'devices') return devices(io);
  if (opts.device !== undefined) {
    const dev = badDevice(opts.device, '--device');
    if (dev) { io.err(`oomlens: error: ${dev}`); return 2; }
  }
  return opts.command === 'check' ? check(opts, io) : fix(opts, io);
}

// Runs when executed directly (node dist/cli.js) or through the bin/oomlens.js shim; stays inert when imported.
if (require.main === module || /[\\/]oomlens(\.js)?$/.test(require.main?.filename ?? '')) {
  // A closed pipe (`oomlens check . | head`) ends the output quietly, as Unix tools do.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0); throw e; });
  main(process.argv.slice(2), { out: (s) => process.stdout.write(s + '\n'), err: (s) => process.stderr.write(s + '\n') })
    .then((code) => { process.exitCode = code; })
    .catch((e: unknown) => {
      process.stderr.write(`oomlens: internal error: ${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 2;
    });
}
