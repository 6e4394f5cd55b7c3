/**
 * `textDocument/hover`: on a model's construction / init / from_pretrained
 * call or its class definition, a small Markdown table of parameters, phase
 * peaks against the budget, top contributors and unknowns.
 */
import { MarkupKind } from 'vscode-languageserver';
import type { AnalysisResult, ModelReport } from '../../analysis/api';
import { toRange } from '../convert';
import { adviceReady, hoverMarkdown } from '../format';
import type { OomlensServer } from '../server';
import { docPosition } from '../validate';

export function modelAt(result: AnalysisResult | undefined, offset: number): { report: ModelReport; span: { start: number; end: number } } | undefined {
  for (const m of result?.models ?? []) {
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
    // Answered at once from the latest finished analysis (positions mapped through the text it saw).
    const latest = await server.store.latest(s);
    if (!s.settings?.hover.enable || !latest) return null;
    const hit = modelAt(latest.result, latest.doc.offsetAt(position));
    if (!hit) return null;
    await adviceReady(hit.report);
    return { contents: { kind: MarkupKind.Markdown, value: hoverMarkdown(hit.report, latest.doc, s.settings.units) }, range: toRange(latest.doc, hit.span) };
  });
}
