/**
 * Conversions between the analyzer's plain data (UTF-16 offsets, finding
 * severities) and LSP types. The only place offsets become ranges.
 */
import { DiagnosticSeverity, type Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Span } from '../../../shared/src/facts';
import type { Severity } from '../analysis/api';

export function toRange(doc: TextDocument, span: Span): Range {
  return { start: doc.positionAt(span.start), end: doc.positionAt(span.end) };
}

export function toSeverity(s: Severity): DiagnosticSeverity {
  switch (s) {
    case 'error': return DiagnosticSeverity.Error;
    case 'warning': return DiagnosticSeverity.Warning;
    case 'information': return DiagnosticSeverity.Information;
    case 'hint': return DiagnosticSeverity.Hint;
  }
}

/** Stable link to a rule's documentation: the rule's page in the repository's docs/rules. */
export function ruleDocUrl(name: string): string {
  return `https://github.com/oomlens/oomlens/blob/main/docs/rules/${name}.md`;
}
