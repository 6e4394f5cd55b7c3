/**
 * `textDocument/codeAction`: per oomlens diagnostic, in order: the preferred
 * fix, the alternatives, "Ignore OOMxxx for this line", "Show documentation"
 * (vscode-eslint, ruff). `source.fixAll.oomlens` applies safe fixes only:
 * anything that changes numerics or placement is unsafe and needs review.
 * Fixes come from the diagnostic's `data`, so no server cache must match;
 * fixes made for another document version are not offered.
 */
import { CodeActionKind, type CodeAction, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Fix } from '../../analysis/api';
import { ruleDocUrl } from '../convert';
import type { OomlensServer } from '../server';
import { codeActionParams, isRange } from '../validate';
import type { DiagnosticData } from './diagnostics';
import { COMMAND_SHOW_DOCS } from './executeCommand';
import { declarationActions, runActions } from './declare';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.oomlens`;

function toEdits(doc: TextDocument, fix: Fix): TextEdit[] {
  return fix.edits.map((e) => ({ range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) }, newText: e.newText }));
}

/** Adds the code to an existing `# oomlens: ignore[...]` comment on the line, or appends one. */
export function ignoreEdit(doc: TextDocument, line: number, code: string): TextEdit {
  const text = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '');
  const m = /#\s*oomlens:\s*ignore\[([^\]]*)\]/.exec(text);
  if (m) {
    const at = m.index + m[0].length - 1;
    return { range: { start: { line, character: at }, end: { line, character: at } }, newText: `, ${code}` };
  }
  return { range: { start: { line, character: text.length }, end: { line, character: text.length } }, newText: `  # oomlens: ignore[${code}]` };
}

/** An oomlens diagnostic as we published it (the client echoes it back; anything else is skipped). */
function isOurs(x: unknown): x is Diagnostic & { data: DiagnosticData } {
  const d = x as Diagnostic;
  if (typeof d !== 'object' || d === null || d.source !== 'oomlens' || typeof d.code !== 'string' || !isRange(d.range)) return false;
  const data = d.data as Partial<DiagnosticData> | null | undefined;
  return typeof data === 'object' && data !== null && Array.isArray(data.fixes) && typeof data.name === 'string'
    && data.fixes.every((f) => typeof f === 'object' && f !== null && typeof f.title === 'string' && Array.isArray(f.edits)
      && f.edits.every((e) => typeof e === 'object' && e !== null && Number.isInteger(e.start) && Number.isInteger(e.end) && typeof e.newText === 'string'));
}

export function registerCodeAction(server: OomlensServer): void {
  server.connection.onCodeAction(async (params) => {
    const { uri, only, diagnostics } = codeActionParams(params);
    const s = server.store.get(uri);
    if (!s) return [];
    const doc = s.doc;
    const actions: CodeAction[] = [];

    if (only?.some((k) => FIX_ALL_KIND.startsWith(k) || k === CodeActionKind.Source)) {
      const r = await server.store.current(s);
      if (!r) return [];
      // Non-overlapping safe edits, first come first served; a second pass of
      // fixAll (on the next save) picks up what was skipped.
      const edits: TextEdit[] = [];
      const taken: Array<[number, number]> = [];
      for (const f of r.findings) {
        for (const fix of f.fixes.filter((x) => x.applicability === 'safe')) {
          if (fix.edits.some((e) => taken.some(([a, b]) => e.start < b && a < e.end))) continue;
          for (const e of fix.edits) taken.push([e.start, e.end]);
          edits.push(...toEdits(doc, fix));
          break;
        }
      }
      if (edits.length) actions.push({ title: 'oomlens: Fix all safe problems', kind: FIX_ALL_KIND, edit: { changes: { [doc.uri]: edits } } });
      if (only.every((k) => k !== CodeActionKind.QuickFix)) return actions;
    }

    for (const d of diagnostics.filter(isOurs)) {
      const code = d.code as string;
      const fresh = d.data.version === doc.version;
      const fixes = fresh ? [...d.data.fixes].sort((a, b) => Number(!!b.preferred) - Number(!!a.preferred)) : [];
      for (const fix of fixes) {
        if (fix.applicability === 'display' || fix.edits.length === 0) continue;
        actions.push({
          title: fix.applicability === 'unsafe' ? `${fix.title} (changes behaviour: review)` : fix.title,
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          // Only safe fixes are preferred, so no keybinding applies an unsafe change unseen.
          isPreferred: fix.preferred === true && fix.applicability === 'safe' ? true : undefined,
          edit: { changes: { [doc.uri]: toEdits(doc, fix) } },
        });
      }
      actions.push({
        title: `Ignore ${code} for this line`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        edit: { changes: { [doc.uri]: [ignoreEdit(doc, d.range.start.line, code)] } },
      });
      actions.push({
        title: `Show documentation for ${code} (${d.data.name})`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        command: { title: 'Show documentation', command: COMMAND_SHOW_DOCS, arguments: [d.codeDescription?.href ?? ruleDocUrl(d.data.name)] },
      });
    }
    // A model class that got no number: offer a declaration template in pyproject.toml.
    const path = server.pathOf(uri);
    const latest = s.result && s.resultVersion === doc.version ? s.result : undefined;
    if (path && latest?.unbuilt.length) {
      const range = (params as { range: Range }).range;
      const start = doc.offsetAt(range.start), end = doc.offsetAt(range.end);
      actions.push(...declarationActions(path, latest.unbuilt, (u) => u.span.start <= end && start <= u.span.end));
    }
    // Command-line values the script needs and no launch command gives: offer a [[tool.oomlens.runs]] template.
    if (path && latest) actions.push(...runActions(path, latest));
    return actions;
  });
}
