/**
 * Reads `[tool.oomlens]` from the nearest `pyproject.toml` above a file:
 * `device`, `disabled`, `severity`, `units`. Shared by the language server
 * and the CLI. Bad TOML or bad values become messages, never exceptions, so a
 * half-edited pyproject.toml cannot take the server down.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import type { Units } from '../../../shared/src/types';
import { type Declaration, readDeclarations } from '../program/declarations';
import { checkRuns } from '../program/launch';
import type { RuleSeverity } from './settings';

export interface ProjectConfig {
  /** The pyproject.toml that was read, if one was found. */
  path?: string;
  device?: string;
  disabled?: string[];
  severity?: Record<string, RuleSeverity>;
  units?: Units;
  /** Declared constructions (`[[tool.oomlens.models]]`). */
  declarations?: Declaration[];
  /** Human-readable problems with the file; the valid parts are still used. */
  problems: string[];
}

const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'];

/** Walks up from `file`'s directory to the filesystem root looking for pyproject.toml. */
export function findPyproject(file: string): string | undefined {
  let dir = dirname(file);
  for (;;) {
    const p = join(dir, 'pyproject.toml');
    if (existsSync(p)) return p;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function readProjectConfig(file: string): ProjectConfig {
  const path = findPyproject(file);
  if (!path) return { problems: [] };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { path, problems: [`${path}: cannot be read (${(e as Error).message})`] };
  }
  return parseProjectConfig(text, path);
}

export function parseProjectConfig(text: string, path = 'pyproject.toml'): ProjectConfig {
  const problems: string[] = [];
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    // smol-toml's message names the line and column already.
    return { path, problems: [`${path}: invalid TOML, [tool.oomlens] ignored: ${(e as Error).message.split('\n')[0]}`] };
  }
  const tool = (doc.tool as Record<string, unknown> | undefined)?.oomlens;
  if (tool === undefined) return { path, problems };
  const decl = readDeclarations(doc, text, path);
  problems.push(...decl.problems);
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    return { path, problems: [`${path}: [tool.oomlens] must be a table`] };
  }
  const t = tool as Record<string, unknown>;
  const runHeaders = text.split('\n').flatMap((l, i) => (/^\s*\[\[\s*tool\.oomlens\.runs\s*\]\]/.test(l) ? [i + 1] : []));
  problems.push(...checkRuns(t, (i) => `${path}:${runHeaders[i] ?? 0}`));
  const out: ProjectConfig = { path, problems, ...(decl.declarations.length ? { declarations: decl.declarations } : {}) };
  if (t.device !== undefined) {
    if (typeof t.device === 'string') out.device = t.device;
    else problems.push(`${path}: [tool.oomlens] device must be a string such as "a100-40gb"`);
  }
  if (t.units !== undefined) {
    if (t.units === 'GB' || t.units === 'GiB') out.units = t.units;
    else problems.push(`${path}: [tool.oomlens] units must be "GB" or "GiB"`);
  }
  if (t.disabled !== undefined) {
    if (Array.isArray(t.disabled) && t.disabled.every((x) => typeof x === 'string')) out.disabled = (t.disabled as string[]).map((x) => x.toUpperCase());
    else problems.push(`${path}: [tool.oomlens] disabled must be a list of rule codes such as ["OOM901"]`);
  }
  if (t.severity !== undefined) {
    if (typeof t.severity === 'object' && t.severity !== null && !Array.isArray(t.severity)) {
      out.severity = {};
      for (const [k, v] of Object.entries(t.severity as Record<string, unknown>)) {
        if (typeof v === 'string' && SEVERITIES.includes(v)) out.severity[k.toUpperCase()] = v as RuleSeverity;
        else problems.push(`${path}: [tool.oomlens.severity] ${k} must be one of ${SEVERITIES.join(', ')}`);
      }
    } else problems.push(`${path}: [tool.oomlens] severity must be a table such as { OOM101 = "warning" }`);
  }
  return out;
}
