/**
 * `textDocument/hover`: on a model's construction / init / from_pretrained
 * call or its class definition, a small Markdown table of parameters, phase
 * peaks against the budget, top contributors and unknowns.
 */
import { MarkupKind } from 'vscode-languageserver';
import type { ModelReport } from '../../analysis/api';
import { toRange } from '../convert';
import type { DocState } from '../documents';
import { hoverMarkdown } from '../format';
import type { OomlensServer } from '../server';
import { docPosition } from '../validate';

export function modelAt(s: DocState, offset: number): { report: ModelReport; span: { start: number; end: number } } | undefined {
  for (const m of s.result?.models ?? []) {
    for (const span of [m.facts.span, m.facts.definitionSpan]) {
      if (span && !span.file && span.start <= offset && offset <= span.end) return { report: m, span };
    }
  }
  return undefined;
}

export function registerHover(server: OomlensServer): void {
  server.connection.onHover(async (params) => {
    const { uri, position } = docPosition(params);
    const s = server.store.get(uri);
    if (!s) return null;
    await server.store.current(s);
    if (!s.settings?.hover.enable || s.resultVersion !== s.doc.version) return null;
    const hit = modelAt(s, s.doc.offsetAt(position));
    if (!hit) return null;
    return { contents: { kind: MarkupKind.Markdown, value: hoverMarkdown(hit.report, s.doc, s.settings.units) }, range: toRange(s.doc, hit.span) };
  });
}
