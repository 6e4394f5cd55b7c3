/**
 * `npm run realcode`: oomlens on real public repositories.
 *
 * For each file of test/realcode/manifest.json: check the repository out at
 * the recorded commit into .cache/realcode/<owner+name> (from a folder of
 * bare git mirrors), run the built CLI on the file the way a user would
 * (cwd = the checkout root, the path relative to it, `--format json`), and
 * compare what it reports with the truth computed by test/realcode/truth.py.
 *
 * Outcome of a file:
 *   exact    every truth model has a reported model with exactly its parameter count
 *   wrong    a reported model named like a truth model has another count, or a
 *            confident count is reported where the truth is needs-declaration
 *   unknown  an explicit unknown (a model with params null, or file-level unknowns)
 *   none     nothing reported for the model (or nothing at all)
 * Every file's report is also checked for the unknown invariant (docs/json-format.md): a model with an
 * unknown has no phase that fits or weighs 0 B, a lower-bound phase never fits, and no 0-parameter model has unknowns.
 * Fragments (framework layers such as Linear / Dropout / Embedding reported as
 * models of their own) are counted apart; so are other extra models.
 *
 * Nothing here knows about any particular repository: names are matched
 * against the manifest's truth names, counts by equality.
 *
 * Usage:
 *   npm run build && npm run realcode -- [--mirrors DIR] [--only OWNER/NAME]
 *       [--set NAME] [--device ID] [--checkout-only] [--no-write]
 * --set NAME: only the repositories whose manifest entry has `"set": NAME`
 * (a held-out round); like --only, it does not write last-run.json.
 * --mirrors (or OOMLENS_REALCODE_MIRRORS): a folder holding one bare git
 * repository per manifest repo, as DIR/<owner+name> or DIR/<owner+name>/repo
 * (a bare one, or a clone with its .git folder there).
 * Without it, checkouts already in .cache/realcode are used as they are.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const MANIFEST = join(ROOT, 'test', 'realcode', 'manifest.json');
const LAST_RUN = join(ROOT, 'test', 'realcode', 'last-run.json');
const CACHE = join(ROOT, '.cache', 'realcode');
const CLI = join(ROOT, 'bin', 'oomlens.js');
const MARKER = '.realcode-commit';
const MAX_BLOB = 5_000_000;

// ---------------------------------------------------------------- manifest

interface TruthModel {
  class: string;
  names: string[];
  rule: string;
  build: string[];
  params?: number;
  buffers?: number;
}
type Truth =
  | { kind: 'model'; models: TruthModel[] }
  | { kind: 'needs-declaration'; missing: string };
interface ManifestFile {
  repo: string;
  commit: string;
  path: string;
  framework: string;
  role: string;
  truth: Truth;
}
interface Manifest {
  repos: { repo: string; commit: string; set?: string }[];
  files: ManifestFile[];
}

// ---------------------------------------------------------------- report (docs/json-format.md)

interface Unknown { what: string; reason: string; line: number | null }
interface ReportedPhase { name: string; peakBytes: number | null; peakIsLowerBound: boolean; fits: boolean | null }
interface ReportedModel { name: string; framework: string; line: number; params: number | null; unknowns: Unknown[]; phases?: ReportedPhase[] }
interface ReportFile { path: string; skipped?: string; unknowns: Unknown[]; models: ReportedModel[]; unbuilt?: { name: string; reason: string }[] }
interface Report { files: ReportFile[] }

// ---------------------------------------------------------------- arguments

interface Options { mirrors: string | null; only: string | null; set: string | null; device: string; checkoutOnly: boolean; write: boolean }

function parseArgs(argv: string[]): Options {
  const o: Options = {
    mirrors: process.env.OOMLENS_REALCODE_MIRRORS ?? null,
    only: null,
    set: null,
    device: 'a100-80gb',
    checkoutOnly: false,
    write: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--mirrors') o.mirrors = value();
    else if (a === '--only') o.only = value();
    else if (a === '--set') o.set = value();
    else if (a === '--device') o.device = value();
    else if (a === '--checkout-only') o.checkoutOnly = true;
    else if (a === '--no-write') o.write = false;
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

// ---------------------------------------------------------------- checkout

const slug = (repo: string): string => repo.replace('/', '+');

function git(gitDir: string, args: string[], input?: Buffer): Buffer {
  const r = spawnSync('git', ['--git-dir', gitDir, ...args], { input, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString().trim()}`);
  return r.stdout;
}

function findGitDir(mirrors: string, repo: string, commit: string): string | null {
  for (const dir of [join(mirrors, slug(repo)), join(mirrors, slug(repo), 'repo'), join(mirrors, slug(repo), 'repo', '.git'), join(mirrors, `${slug(repo)}.git`)]) {
    if (!existsSync(dir)) continue;
    const r = spawnSync('git', ['--git-dir', dir, 'cat-file', '-e', `${commit}^{commit}`]);
    if (r.status === 0) return dir;
  }
  return null;
}

/**
 * Writes the tree of `commit` into `dest`. Mirrors may lack large blobs
 * (data files, weights): those, and files over MAX_BLOB bytes, are left out.
 */
/**
 * A user's clone has its `.git` folder at the repository root, which is where
 * oomlens's project root search stops (program/workspace.ts findRoot). The
 * checkout is written without one, so the search would climb into the folder
 * holding .cache/realcode (this checkout's own repository) and analyse the
 * file inside the wrong workspace. An empty `.git` folder restores the root.
 */
function markProjectRoot(dest: string): void {
  mkdirSync(join(dest, '.git'), { recursive: true });
}

function checkout(gitDir: string, commit: string, dest: string): { files: number; missing: number } {
  const entries: { sha: string; path: string }[] = [];
  for (const rec of git(gitDir, ['ls-tree', '-r', '-z', commit]).toString('utf8').split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, sha] = rec.slice(0, tab).split(' ');
    if (type !== 'blob' || mode === '120000') continue;
    entries.push({ sha, path: rec.slice(tab + 1) });
  }
  const out = git(gitDir, ['cat-file', '--batch'], Buffer.from(entries.map((e) => `${e.sha}\n`).join('')));
  rmSync(dest, { recursive: true, force: true });
  let pos = 0;
  let files = 0;
  let missing = 0;
  for (const e of entries) {
    const eol = out.indexOf(0x0a, pos);
    const header = out.subarray(pos, eol).toString().split(' ');
    pos = eol + 1;
    if (header[1] === 'missing') { missing++; continue; }
    const size = Number(header[2]);
    const body = out.subarray(pos, pos + size);
    pos += size + 1;
    if (size > MAX_BLOB) continue;
    const file = join(dest, e.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, body);
    files++;
  }
  writeFileSync(join(dest, MARKER), `${commit}\n`);
  markProjectRoot(dest);
  return { files, missing };
}

function ensureCheckouts(m: Manifest, o: Options): void {
  for (const { repo, commit, set } of m.repos) {
    if (o.only && repo !== o.only) continue;
    if (o.set && set !== o.set) continue;
    const dest = join(CACHE, slug(repo));
    const marker = join(dest, MARKER);
    if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === commit) { markProjectRoot(dest); continue; }
    if (!o.mirrors) {
      if (existsSync(dest)) { markProjectRoot(dest); continue; } // a checkout made by hand: used as it is
      throw new Error(`${repo}: no checkout in .cache/realcode and no --mirrors (or OOMLENS_REALCODE_MIRRORS) to make one`);
    }
    const gitDir = findGitDir(o.mirrors, repo, commit);
    if (!gitDir) throw new Error(`${repo}: commit ${commit} not found under ${o.mirrors}`);
    const r = checkout(gitDir, commit, dest);
    console.log(`checked out ${repo}@${commit.slice(0, 7)}: ${r.files} files${r.missing ? `, ${r.missing} absent from the mirror` : ''}`);
  }
}

// ---------------------------------------------------------------- classification

type Outcome = 'exact' | 'wrong' | 'unknown' | 'none';

/** Framework building blocks: reported as a model of their own they are a fragment, not the program's model. */
const LAYER_NAMES = new Set([
  'linear', 'bilinear', 'embedding', 'embeddingbag', 'embed', 'dropout', 'dropout1d', 'dropout2d', 'dropout3d',
  'layernorm', 'rmsnorm', 'groupnorm', 'batchnorm', 'batchnorm1d', 'batchnorm2d', 'batchnorm3d', 'instancenorm2d',
  'conv', 'conv1d', 'conv2d', 'conv3d', 'convtranspose', 'convtranspose1d', 'convtranspose2d', 'convtranspose3d',
  'maxpool2d', 'avgpool2d', 'adaptiveavgpool2d', 'relu', 'gelu', 'silu', 'tanh', 'sigmoid', 'softmax', 'identity',
  'sequential', 'modulelist', 'moduledict', 'parameter', 'multiheadattention', 'multiheaddotproductattention',
  'lstm', 'gru', 'lstmcell', 'grucell', 'dense', 'densegeneral',
  'flatten', 'upsample', 'pixelshuffle',
]);

const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

function isFragment(name: string): boolean {
  const last = name.split('.').pop() ?? name;
  return LAYER_NAMES.has(norm(last));
}

function nameMatches(reported: string, truth: TruthModel): boolean {
  const r = norm(reported);
  const rLast = norm(reported.split('/').pop() ?? reported);
  return truth.names.some((n) => {
    const t = norm(n);
    return r === t || rLast === norm(n.split('/').pop() ?? n);
  });
}

/** Reason text with the program-specific parts (the expression, quoted and dotted names, numbers) taken out. */
function bucket(u: Unknown): string {
  const r = u.reason
    .replace(/"[^"]*"|`[^`]*`|'[^']*'/g, '…')
    .replace(/\b\w+(\.\w+)+\b/g, '…')
    .replace(/\b\d[\d_,.]*\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
  return (/^[a-z][a-z -]*$/i.test(u.what) ? `${u.what}: ${r}` : r).slice(0, 110);
}

/**
 * Where the model of a file reported as none is defined: in the file itself,
 * or elsewhere (an import oomlens does not follow, or a hub checkpoint).
 */
function noneWhere(entry: ManifestFile, source: string): string {
  if (entry.truth.kind !== 'model') return '';
  const defined = entry.truth.models.some((t) => t.names.some((n) =>
    new RegExp(`^\\s*(class|def)\\s+${n.replace(/[^\w]/g, '')}\\b`, 'm').test(source) ||
    new RegExp(`^\\s*${n.replace(/[^\w]/g, '')}\\s*=`, 'm').test(source)));
  if (defined) return 'model defined in this file';
  if (entry.framework === 'transformers') return 'hub checkpoint';
  return 'model defined in another file';
}

interface FileResult {
  repo: string;
  commit: string;
  path: string;
  framework: string;
  role: string;
  truth: string;
  truthParams: (number | null)[];
  outcome: Outcome;
  reported: { name: string; params: number | null; line: number; fragment: boolean }[];
  fragments: number;
  extras: number;
  reasons: string[];
  /** For outcome none with a truth model: where that model is defined. */
  where?: string;
  error?: string;
  /** Breaches of the unknown invariant (docs/json-format.md: an unknown is never "fits", never 0 B, never 0 parameters). */
  invariant: string[];
  ms: number;
}

/**
 * The unknown invariant over one file's report: a model with an unknown (its own unknowns, or no parameter
 * count) has no phase with fits=true and no phase at 0 B; a phase that is a lower bound never fits; a model
 * with unknowns never has 0 parameters.
 */
function invariantBreaches(report: ReportFile | null): string[] {
  const out: string[] = [];
  for (const m of report?.models ?? []) {
    // The model's list holds every phase's unknowns too (docs/json-format.md): a phase is judged by its own and the
    // model's size (its parameter count), not by another phase's.
    const phaseReasons = new Set((m.phases ?? []).flatMap((p) => ((p as { unknowns?: { reason: string }[] }).unknowns ?? []).map((u) => u.reason)));
    // The model's own unknowns (not only one phase's) count against every phase, as before phases listed theirs.
    const unknownSize = m.params === null || m.unknowns.some((u) => !phaseReasons.has(u.reason));
    if (m.unknowns.length > 0 && m.params === 0) out.push(`${m.name}: 0 parameters with unknowns`);
    for (const p of m.phases ?? []) {
      const own = (p as { unknowns?: unknown[] }).unknowns?.length ?? 0;
      if (p.fits === true && (unknownSize || p.peakIsLowerBound || own > 0)) out.push(`${m.name} ${p.name}: fits with ${p.peakIsLowerBound ? 'a lower-bound peak' : 'unknowns'}`);
      if (p.peakBytes === 0 && (unknownSize || p.peakIsLowerBound || own > 0)) out.push(`${m.name} ${p.name}: 0 B with unknowns`);
    }
  }
  return out;
}

function classify(entry: ManifestFile, report: ReportFile | null): Pick<FileResult, 'outcome' | 'fragments' | 'extras' | 'reasons'> {
  const models = report?.models ?? [];
  const fragments = models.filter((x) => isFragment(x.name));
  const main = models.filter((x) => !isFragment(x.name));
  // A model class the file defines but could not build is an explicit unknown, with its reason.
  const unbuilt: Unknown[] = (report?.unbuilt ?? []).map((u) => ({ what: 'unbuilt', reason: u.reason, line: null }));
  const unknowns = [...(report?.unknowns ?? []), ...unbuilt, ...models.flatMap((x) => x.unknowns)];
  const reasons = [...new Set(unknowns.map(bucket))];
  if (report?.skipped) reasons.unshift(`skipped: ${report.skipped}`);
  const anyUnknown = models.some((x) => x.params === null) || (report?.unknowns.length ?? 0) > 0 || unbuilt.length > 0;

  if (entry.truth.kind === 'needs-declaration') {
    const confident = main.filter((x) => x.params !== null && x.params > 0);
    const outcome: Outcome = confident.length ? 'wrong' : anyUnknown ? 'unknown' : 'none';
    return { outcome, fragments: fragments.length, extras: confident.length, reasons };
  }

  const used = new Set<ReportedModel>();
  const perModel: Outcome[] = entry.truth.models.map((t) => {
    const exact = models.find((x) => x.params !== null && x.params === t.params && !used.has(x));
    if (exact) { used.add(exact); return 'exact'; }
    const named = models.filter((x) => nameMatches(x.name, t) && !used.has(x));
    if (named.some((x) => x.params !== null)) { used.add(named[0]); return 'wrong'; }
    if (named.length) { used.add(named[0]); return 'unknown'; }
    return anyUnknown ? 'unknown' : 'none';
  });
  const outcome: Outcome = perModel.includes('wrong') ? 'wrong'
    : perModel.every((x) => x === 'exact') ? 'exact'
    : perModel.includes('unknown') ? 'unknown' : 'none';
  const extras = main.filter((x) => !used.has(x)).length;
  return { outcome, fragments: fragments.filter((x) => !used.has(x)).length, extras, reasons };
}

function runFile(entry: ManifestFile, device: string): FileResult {
  const cwd = join(CACHE, slug(entry.repo));
  const started = Date.now();
  const r = spawnSync(process.execPath, [CLI, 'check', entry.path, '--format', 'json', '--device', device], {
    cwd, encoding: 'utf8', timeout: 180_000, maxBuffer: 1 << 28,
  });
  const ms = Date.now() - started;
  let report: ReportFile | null = null;
  let error: string | undefined;
  if (r.status !== 0 && r.status !== 1) error = `exit ${r.status ?? r.signal}: ${(r.stderr || '').trim().split('\n').pop() ?? ''}`;
  else {
    try { report = (JSON.parse(r.stdout) as Report).files[0] ?? null; } catch (e) { error = `unreadable JSON: ${String(e)}`; }
  }
  const c = classify(entry, report);
  const truth = entry.truth.kind === 'model'
    ? entry.truth.models.map((t) => `${t.class} ${fmt(t.params ?? null)}`).join(' + ')
    : `needs-declaration (${entry.truth.missing})`;
  const result: FileResult = {
    repo: entry.repo, commit: entry.commit, path: entry.path, framework: entry.framework, role: entry.role,
    truth, truthParams: entry.truth.kind === 'model' ? entry.truth.models.map((t) => t.params ?? null) : [],
    reported: (report?.models ?? []).map((x) => ({ name: x.name, params: x.params, line: x.line, fragment: isFragment(x.name) })),
    ...c, ...(error ? { error, outcome: 'none' as const } : {}), invariant: invariantBreaches(report), ms,
  };
  if (result.outcome === 'none' && entry.truth.kind === 'model') {
    result.where = noneWhere(entry, readFileSync(join(cwd, entry.path), 'utf8'));
  }
  return result;
}

// ---------------------------------------------------------------- output

const fmt = (n: number | null): string => (n === null ? '?' : n.toLocaleString('en-US'));

function describe(r: FileResult): string {
  if (r.error) return `error: ${r.error}`;
  const shown = r.reported.filter((x) => !x.fragment).map((x) => `${x.name} ${fmt(x.params)}`);
  const frag = r.fragments ? ` (+${r.fragments} fragment${r.fragments > 1 ? 's' : ''})` : '';
  return (shown.length ? shown.join(', ') : 'no model') + frag;
}

function main(): void {
  const o = parseArgs(process.argv.slice(2));
  const m = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
  ensureCheckouts(m, o);
  if (o.checkoutOnly) return;
  if (!existsSync(join(ROOT, 'dist'))) throw new Error('run `npm run build` first');

  const inSet = new Set(m.repos.filter((r) => r.set === o.set).map((r) => r.repo));
  const results = m.files
    .filter((f) => (!o.only || f.repo === o.only) && (!o.set || inSet.has(f.repo)))
    .map((f) => runFile(f, o.device));
  for (const r of results) {
    console.log(`${r.outcome.padEnd(7)} ${`${r.repo}@${r.commit.slice(0, 7)} ${r.path}`.padEnd(96)} truth: ${r.truth.slice(0, 60)}  oomlens: ${describe(r)}`);
  }
  const count = (pred: (r: FileResult) => boolean): number => results.filter(pred).length;
  const summary = {
    files: results.length,
    repos: new Set(results.map((r) => r.repo)).size,
    withTruthModel: count((r) => r.truthParams.length > 0),
    needsDeclaration: count((r) => r.truthParams.length === 0),
    exact: count((r) => r.outcome === 'exact'),
    wrong: count((r) => r.outcome === 'wrong'),
    unknown: count((r) => r.outcome === 'unknown'),
    none: count((r) => r.outcome === 'none'),
    filesWithFragments: count((r) => r.fragments > 0),
    fragments: results.reduce((s, r) => s + r.fragments, 0),
    extraModels: results.reduce((s, r) => s + r.extras, 0),
    invariantBreaches: results.reduce((s, r) => s + r.invariant.length, 0),
  };
  const byFramework: Record<string, Record<Outcome, number>> = {};
  for (const r of results) {
    const f = (byFramework[r.framework] ??= { exact: 0, wrong: 0, unknown: 0, none: 0 });
    f[r.outcome]++;
  }
  const reasonCounts: Record<string, number> = {};
  for (const r of results) if (r.outcome === 'unknown') for (const x of r.reasons) reasonCounts[x] = (reasonCounts[x] ?? 0) + 1;
  const whereCounts: Record<string, number> = {};
  for (const r of results) if (r.where) whereCounts[r.where] = (whereCounts[r.where] ?? 0) + 1;
  const reasons = Object.entries(reasonCounts).sort((a, b) => b[1] - a[1]).map(([reason, files]) => ({ reason, files }));

  console.log(`\n${summary.files} files from ${summary.repos} repositories (${summary.withTruthModel} with a truth model, ${summary.needsDeclaration} needs-declaration)`);
  console.log(`exact ${summary.exact}, unknown ${summary.unknown}, wrong ${summary.wrong}, none ${summary.none}; fragments ${summary.fragments} in ${summary.filesWithFragments} files; other extra models ${summary.extraModels}`);
  console.log(`unknown invariant (no "fits", 0 B or 0 parameters with an unknown): ${summary.invariantBreaches} breaches`);
  for (const r of results) for (const b of r.invariant) console.log(`  ${r.repo} ${r.path}: ${b}`);
  for (const [fw, c] of Object.entries(byFramework)) console.log(`  ${fw.padEnd(13)} exact ${c.exact}, unknown ${c.unknown}, wrong ${c.wrong}, none ${c.none}`);
  if (Object.keys(whereCounts).length) {
    console.log('Files with a truth model reported as none, by where the model is defined:');
    for (const [w, n] of Object.entries(whereCounts)) console.log(`  ${String(n).padStart(3)}  ${w}`);
  }
  if (reasons.length) {
    console.log('Unknown reasons (files):');
    for (const x of reasons) console.log(`  ${String(x.files).padStart(3)}  ${x.reason}`);
  }
  if (o.write && !o.only && !o.set) {
    writeFileSync(LAST_RUN, JSON.stringify({ device: o.device, summary, byFramework, noneWhere: whereCounts, reasons, files: results }, null, 2) + '\n');
    console.log(`written ${LAST_RUN.slice(ROOT.length + 1)}`);
  }
}

try { main(); } catch (e) { console.error(e instanceof Error ? e.message : e); process.exit(2); }
