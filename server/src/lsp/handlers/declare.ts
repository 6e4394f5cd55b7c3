/**
 * For a model class that got no number (no program builds it, its defaults
 * do not build it): a code action — and the lens above the class — that adds
 * a `[[tool.oomlens.models]]` template to the project's pyproject.toml
 * (created beside the workspace root when there is none), with the class's
 * constructor parameters to fill in. See docs/workspace.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CodeActionKind, type CodeAction, type Range, type WorkspaceEdit } from 'vscode-languageserver';
import type { AnalysisResult, UnbuiltModel } from '../../analysis/api';
import { findPyproject } from '../../config/pyproject';
import { findRoot } from '../../program/workspace';

export const COMMAND_DECLARE = 'oomlens.server.declareModel';

/** The template's text: the parameters the reason names become keyword arguments to fill. */
export function declarationTemplate(u: UnbuiltModel, relFile: string): string {
  const m = /needs its constructor arguments \(([^)]*)\)/.exec(u.reason);
  const args = m ? m[1].split(',').map((a) => `${a.trim()}=...`).join(', ') : '';
  return [
    '',
    '[[tool.oomlens.models]]',
    `name = "${u.name}"`,
    `file = "${relFile}"`,
    "construct = '''",
    `model = ${u.name}(${args})  # the arguments your program passes`,
    "'''",
    '',
  ].join('\n');
}

/** The edit that appends `text` to the project's pyproject.toml (or creates it at the workspace root with it). */
function appendToPyproject(file: string, text: (relFile: string) => string): WorkspaceEdit {
  const existing = findPyproject(file);
  const path = existing ?? join(findRoot(file), 'pyproject.toml');
  const rel = relative(dirname(path), file).split(sep).join('/');
  const uri = pathToFileURL(path).href;
  if (!existing || !existsSync(path)) {
    return { documentChanges: [{ kind: 'create', uri, options: { ignoreIfExists: true } }, { textDocument: { uri, version: null }, edits: [{ range: zero, newText: text(rel).replace(/^\n/, '') }] }] };
  }
  const lines = readFileSync(path, 'utf8').split('\n');
  const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
  return { changes: { [uri]: [{ range: { start: end, end }, newText: (lines[lines.length - 1] === '' ? '' : '\n') + text(rel) }] } };
}

/** The edit that appends the template to pyproject.toml (or creates it at the workspace root). */
export function declarationEdit(file: string, u: UnbuiltModel): WorkspaceEdit {
  return appendToPyproject(file, (rel) => declarationTemplate(u, rel));
}

const zero: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * A script whose command-line values are missing (a required argparse option, a positional, a config-file
 * flag without a default) and that no launch command runs: a `[[tool.oomlens.runs]]` template naming the
 * missing flags (program/launch.ts reads it).
 */
export function runTemplate(relFile: string, flags: string[]): string {
  const words = flags.map((f) => (f.startsWith('-') ? `${f} ...` : '...')).join(' ');
  return ['', '[[tool.oomlens.runs]]', `command = "python ${relFile}${words ? ` ${words}` : ''}"  # the command line you run it with`, ''].join('\n');
}

/** Flags named by "command-line argument" unknowns anywhere in a result. */
export function missingFlags(result: AnalysisResult): string[] {
  const reasons = [...result.unknowns, ...result.models.flatMap((m) => [...m.facts.unknowns, ...m.estimate.phases.flatMap((p) => p.unknowns)])].map((u) => u.reason);
  const flags = new Set<string>();
  for (const r of reasons) {
    for (const m of r.matchAll(/command-line argument `([^`]+)`/g)) flags.add(m[1]);
    for (const m of r.matchAll(/(--[\w.-]+) names the config file/g)) flags.add(m[1]);
  }
  return [...flags];
}

export function runActions(file: string, result: AnalysisResult): CodeAction[] {
  const flags = missingFlags(result);
  if (!flags.length || result.models.some((m) => m.run)) return [];
  const edit = appendToPyproject(file, (rel) => runTemplate(rel, flags));
  return [{ title: `Declare how this script is run (pyproject.toml [[tool.oomlens.runs]]: ${flags.join(', ')})`, kind: CodeActionKind.QuickFix, edit }];
}

export function declarationActions(file: string, unbuilt: UnbuiltModel[], inRange: (u: UnbuiltModel) => boolean): CodeAction[] {
  return unbuilt.filter(inRange).map((u) => ({
    title: `Declare how \`${u.name}\` is built (pyproject.toml [[tool.oomlens.models]])`,
    kind: CodeActionKind.QuickFix,
    edit: declarationEdit(file, u),
  }));
}
