/**
 * CI outputs of `oomlens check`:
 *
 * - `--format sarif`: SARIF 2.1.0 (OASIS), what GitHub code scanning and
 *   other viewers read. One run; the driver lists every rule with its help
 *   page; each finding is a result with its region (columns in Unicode code
 *   points, as the JSON report counts them) and its fixes as SARIF fixes
 *   (artifact changes with deleted regions and inserted text).
 * - `--format github`: GitHub Actions workflow commands
 *   (`::warning file=…,line=…::message`), shown as annotations on the diff.
 */
import { RULES } from '../rules';
import type { Rule } from '../rules/types';
import type { Finding } from '../analysis/api';
import { diagnosticJson, LineIndex, type JsonRange } from './report';
import type { Outcome } from './main';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const REPO = 'https://github.com/oomlens/oomlens';

export const helpUri = (r: Pick<Rule, 'name'>): string => `${REPO}/blob/main/docs/rules/${r.name}.md`;

type Level = 'error' | 'warning' | 'note';
const level = (s: Finding['severity']): Level => (s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note');

/** A path as a SARIF artifact location: relative paths against %SRCROOT%, forward slashes. */
function artifact(path: string): { uri: string; uriBaseId?: string } {
  const p = path.replace(/\\/g, '/');
  if (p.startsWith('/')) return { uri: `file://${encodeURI(p)}` };
  return { uri: encodeURI(p), uriBaseId: '%SRCROOT%' };
}

const region = (r: JsonRange) => ({ startLine: r.line, startColumn: r.column, endLine: r.endLine, endColumn: r.endColumn });


export function sarifReport(outcomes: Outcome[], version: string): object {
  const rules = [...RULES].sort((a, b) => a.code.localeCompare(b.code));
  const index = new Map(rules.map((r, i) => [r.code, i]));
  const results: object[] = [];
  const notifications: object[] = [];
  for (const o of outcomes) {
    for (const m of o.internal) {
      notifications.push({ level: 'error', message: { text: `${o.path}: ${m.split('\n')[0]}` }, locations: [{ physicalLocation: { artifactLocation: artifact(o.path) } }] });
    }
    if (!o.result) continue;
    const idx = new LineIndex(o.result.text, o.file, o.cells);
    for (const f of o.findings) {
      const d = diagnosticJson(idx, f);
      const loc = artifact(o.path);
      results.push({
        ruleId: f.code,
        ...(index.has(f.code) ? { ruleIndex: index.get(f.code) } : {}),
        level: level(f.severity),
        // In a notebook the region's lines count from the start of the cell.
        message: { text: d.cell ? `cell ${d.cell}: ${f.message}` : f.message },
        ...(d.cell ? { properties: { cell: d.cell } } : {}),
        locations: [{ physicalLocation: { artifactLocation: loc, region: region(d) } }],
        ...(d.related.length ? { relatedLocations: d.related.map((r, i) => ({ id: i, message: { text: r.message }, physicalLocation: { artifactLocation: loc, region: region(r) } })) } : {}),
        ...(d.fixes.length ? {
          fixes: d.fixes.map((x) => ({
            description: { text: `${x.title} (${x.applicability} fix)` },
            artifactChanges: [{
              artifactLocation: loc,
              replacements: x.edits.map((e) => ({ deletedRegion: region(e), insertedContent: { text: e.newText } })),
            }],
          })),
        } : {}),
      });
    }
  }
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'oomlens',
          version,
          informationUri: REPO,
          rules: rules.map((r) => ({
            id: r.code,
            name: r.name,
            shortDescription: { text: r.summary },
            helpUri: helpUri(r),
            help: { text: `${r.summary} See ${helpUri(r)}` },
            defaultConfiguration: { level: level(r.severity) },
            properties: { tags: ['memory', r.status] },
          })),
        },
      },
      columnKind: 'unicodeCodePoints',
      originalUriBaseIds: { '%SRCROOT%': { description: { text: 'The directory oomlens was run from.' } } },
      results,
      invocations: [{ executionSuccessful: notifications.length === 0, toolExecutionNotifications: notifications }],
    }],
  };
}

/** Escapes a workflow command's message (`%`, CR, LF) or, with `property`, a property value (also `:` and `,`). */
export function escapeCommand(s: string, property = false): string {
  let out = s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) out = out.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return out;
}

/** GitHub Actions annotations, one line per finding and per internal error. */
export function githubAnnotations(outcomes: Outcome[]): string[] {
  const out: string[] = [];
  for (const o of outcomes) {
    for (const m of o.internal) out.push(`::error file=${escapeCommand(o.path, true)},title=${escapeCommand('oomlens internal error', true)}::${escapeCommand(m)}`);
    if (!o.result) continue;
    const idx = new LineIndex(o.result.text, o.file, o.cells);
    for (const f of o.findings) {
      const d = diagnosticJson(idx, f);
      const kind = f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'notice';
      const props = [
        `file=${escapeCommand(o.path, true)}`, `line=${d.line}`, `col=${d.column}`, `endLine=${d.endLine}`, `endColumn=${d.endColumn}`,
        `title=${escapeCommand(`${f.code} ${f.name}`, true)}`,
      ];
      out.push(`::${kind} ${props.join(',')}::${escapeCommand(d.cell ? `cell ${d.cell}: ${f.message}` : f.message)}`);
    }
  }
  return out;
}
