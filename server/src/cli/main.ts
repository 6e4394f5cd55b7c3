/**
 * The `oomlens` command line (bundled to dist/cli.js, run through
 * bin/oomlens.js): `check` prints per-model memory tables and ruff-style
 * findings (text or JSON), `fix` applies fixes in place, `devices` lists the
 * device catalogue. Exit status: 0 no finding, 1 findings, 2 bad usage or
 * unreadable input. Per-file defaults come from `[tool.oomlens]` in the
 * nearest pyproject.toml; command-line flags win.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { listDevices, parseDeviceSpec } from '../../../shared/src/devices';
import { timelineSvg } from '../../../shared/src/timelineSvg';
import { GB, GiB } from '../../../shared/src/units';
import type { Units } from '../../../shared/src/types';
import { analyzeFile as analyze } from '../program/project';
import type { AnalysisResult, Finding } from '../analysis/api';
import { readProjectConfig } from '../config/pyproject';
import { SETTINGS_SCHEMA } from '../config/settings';
import { parseArgs, selected, USAGE, UsageError, type CliOptions } from './args';
import { collectFiles, displayPath, readSource } from './files';
import { chooseFix, fixText } from './fix';
import { fileJson, LineIndex, type JsonReport } from './report';
import { findingLine, modelText, unitNote } from './text';

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

interface FileSettings { device: string; units: Units; disabled: string[]; severity: Record<string, 'error' | 'warning' | 'information' | 'hint' | 'off'>; problems: string[] }

function settingsFor(file: string, opts: CliOptions): FileSettings {
  const cfg = readProjectConfig(file);
  return {
    device: opts.device ?? cfg.device ?? DEFAULT_DEVICE,
    units: opts.units ?? cfg.units ?? DEFAULT_UNITS,
    disabled: cfg.disabled ?? [],
    severity: cfg.severity ?? {},
    problems: cfg.problems,
  };
}

async function analyseWith(text: string, file: string, s: FileSettings, opts: CliOptions): Promise<{ result: AnalysisResult; findings: Finding[] }> {
  const result = await analyze(text, { path: file, device: s.device, disabledRules: s.disabled, severityOverrides: s.severity, preview: opts.preview });
  return { result, findings: result.findings.filter((f) => selected(f.code, opts)) };
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

async function check(opts: CliOptions, io: Io): Promise<number> {
  const { files, errors } = collectFiles(opts.paths);
  let status = 0;
  const report: JsonReport = { files: [] };
  const text: string[] = [];
  let findingCount = 0;
  let safeFixable = 0;
  let unsafeFixable = 0;
  let filesWithFindings = 0;
  const unitsSeen = new Set<Units>();
  const svgs: { file: string; model: string; svg: string }[] = [];
  for (const e of errors) { io.err(`oomlens: error: ${e}`); status = 2; }
  for (const file of files) {
    const opened = openFile(file, opts, io);
    if (!opened) { status = 2; continue; }
    const { path, s, src } = opened;
    if (src.kind === 'skipped') {
      report.files.push({ path, device: s.device, diagnostics: [], models: [], unbuilt: [], unknowns: [], skipped: src.reason });
      text.push(`${path}: skipped: ${src.reason}`);
      continue;
    }
    let r: { result: AnalysisResult; findings: Finding[] };
    try {
      r = await analyseWith(src.text, file, s, opts);
    } catch (e) {
      io.err(`oomlens: error: ${path}: analysis failed: ${(e as Error).message}`);
      status = 2;
      continue;
    }
    report.files.push(fileJson(path, s.device, r.result, r.findings, s.problems, file));
    findingCount += r.findings.length;
    if (r.findings.length) filesWithFindings++;
    for (const f of r.findings) {
      if (f.fixes.some((x) => x.applicability === 'safe')) safeFixable++;
      else if (f.fixes.some((x) => x.applicability === 'unsafe')) unsafeFixable++;
    }
    if (opts.format === 'svg') {
      for (const m of r.result.models) svgs.push({ file, model: m.facts.name, svg: timelineSvg(m.facts, m.estimate, { units: s.units }) });
    }
    if (opts.format === 'text' && (r.result.models.length || r.findings.length || r.result.unknowns.length || r.result.unbuilt.length)) {
      const idx = new LineIndex(r.result.text, file);
      const spec = parseDeviceSpec(s.device);
      const target = 'error' in spec ? s.device : spec.id;
      unitsSeen.add(s.units);
      text.push(`${path} — target ${target}`);
      for (const m of r.result.models) text.push(...modelText(m, idx, s.units));
      for (const u of r.result.unbuilt) text.push(`  ${u.name}, ${idx.label(u.span)}: no number: ${u.reason}`);
      for (const u of r.result.unknowns) text.push(`  unknown: ${u.what}: ${u.reason}${u.span ? ` (line ${idx.line(u.span.start)})` : ''}`);
      for (const f of r.findings) text.push(findingLine(path, f, idx));
      text.push('');
    }
  }
  if (opts.format === 'json') {
    io.out(JSON.stringify(report, null, 2));
  } else if (opts.format === 'svg') {
    const drawn = writeSvgs(svgs, opts.out, io);
    if (drawn === 'error') return 2;
  } else {
    if (unitsSeen.size) text.unshift(`Units: ${[...unitsSeen].map(unitNote).join('; ')}.`, '');
    for (const l of text) io.out(l);
    const analysed = report.files.filter((f) => !f.skipped).length;
    if (findingCount === 0) {
      io.out(`All checks passed: ${analysed} file${analysed === 1 ? '' : 's'} analysed, no findings.`);
    } else {
      const hints: string[] = [];
      if (safeFixable) hints.push(`${safeFixable} fixable with \`oomlens fix\``);
      if (unsafeFixable) hints.push(`${unsafeFixable} more with \`oomlens fix --unsafe-fixes\``);
      io.out(`Found ${findingCount} finding${findingCount === 1 ? '' : 's'} in ${filesWithFindings} of ${analysed} file${analysed === 1 ? '' : 's'}${hints.length ? ` (${hints.join('; ')})` : ''}.`);
    }
  }
  return status === 2 ? 2 : findingCount > 0 ? 1 : 0;
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
    io.out(`${d.id.padEnd(12)} ${d.name.padEnd(16)} ${(d.capacityBytes / GiB).toFixed(1).padStart(6)} GiB  ${(d.capacityBytes / GB).toFixed(1).padStart(6)} GB`);
  }
  io.out('Several devices: prefix a count, e.g. 8xh100-80gb.');
  return 0;
}

export async function main(argv: string[], io: Io): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseArgs(argv);
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
