/**
 * `textDocument/publishDiagnostics`: turns one analysis into diagnostics.
 * Each diagnostic carries its fixes in `data` (ruff_server's stateless code
 * actions), tagged with the document version they apply to.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { Fix } from '../../analysis/api';
import { ruleDocUrl, toRange, toSeverity } from '../convert';
import type { DocState } from '../documents';
import type { OomlensServer } from '../server';

export interface DiagnosticData {
  name: string;
  version: number;
  fixes: Fix[];
}

/** An analyzer problem that is a bug in oomlens (the analysis died or a rule failed), not a limit of static analysis. */
export const isInternalReason = (reason: string): boolean => /internal error|rule failed/.test(reason);

export function buildDiagnostics(s: DocState): Diagnostic[] {
  const out: Diagnostic[] = [];
  const r = s.result;
  if (!r || !s.settings?.diagnostics.enable) return out;
  const doc = s.doc;
  for (const p of s.configProblems) {
    out.push({ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Warning, source: 'oomlens', message: p });
  }
  // A bug in oomlens is said, not swallowed: one warning at the top of the file, pointing to the log with the stack.
  const internal = r.unknowns.filter((u) => isInternalReason(u.reason));
  if (internal.length) {
    const first = `${internal[0].what}: ${internal[0].reason.split('\n')[0]}`;
    out.push({
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Warning, source: 'oomlens', code: 'internal-error',
      message: `oomlens hit an internal error (a bug in oomlens, not in your code), so results for this file may be missing or incomplete: ${first}${internal.length > 1 ? ` (and ${internal.length - 1} more)` : ''}. The stack is in the "oomlens" output channel (command "oomlens: Show logs").`,
    });
  }
  for (const f of r.findings) {
    const data: DiagnosticData = { name: f.name, version: s.resultVersion ?? doc.version, fixes: f.fixes };
    out.push({
      range: toRange(doc, f.span),
      severity: toSeverity(f.severity),
      source: 'oomlens',
      code: f.code,
      codeDescription: { href: ruleDocUrl(f.name) },
      message: f.message,
      relatedInformation: f.related.map((rel) => ({ location: { uri: doc.uri, range: toRange(doc, rel.span) }, message: rel.message })),
      data,
    });
  }
  return out;
}

export function publishDiagnostics(server: OomlensServer, s: DocState): void {
  void server.connection.sendDiagnostics({ uri: s.doc.uri, version: s.resultVersion, diagnostics: buildDiagnostics(s) });
}
