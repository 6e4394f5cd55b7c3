/**
 * `textDocument/codeLens`: one line above each model, e.g. "7.24 B params ·
 * init peak 42.4 GB of 32.2 GB usable on A100 40GB ✗". Clicking it runs the
 * client's "Show memory timeline" command.
 */
import type { CodeLens } from 'vscode-languageserver';
import { anchorSpan } from '../../analysis/api';
import { toRange } from '../convert';
import { lensTitle } from '../format';
import { formatBytes } from '../../../../shared/src/units';
import type { OomlensServer } from '../server';
import { docUri } from '../validate';
import { COMMAND_DECLARE } from './declare';

export function registerCodeLens(server: OomlensServer): void {
  server.connection.onCodeLens(async (params) => {
    const s = server.store.get(docUri(params));
    if (!s) return [];
    const latest = await server.store.latest(s);
    if (!s.settings?.codeLens.enable || !latest) return [];
    const lenses: CodeLens[] = [];
    for (const m of latest.result.models) {
      const range = toRange(latest.doc, anchorSpan(m));
      lenses.push({ range, command: { title: lensTitle(m.estimate, s.settings.units) + (m.origin ? ` · ${m.origin}` : '') + (m.run ? ` · ${m.run}` : ''), tooltip: 'Show memory timeline', command: 'oomlens.showTimeline', arguments: [s.doc.uri, range.start] } });
    }
    // Classes that got no number say so on the class, and clicking offers the declaration template.
    for (const u of latest.result.unbuilt) {
      const range = toRange(latest.doc, u.span);
      const why = u.reason.replace(/: declare one in \[\[tool\.oomlens\.models\]\]$/, '');
      lenses.push({ range, command: { title: `no number: ${why.length > 110 ? why.slice(0, 109) + '…' : why} · declare…`, tooltip: 'Add a [[tool.oomlens.models]] declaration to pyproject.toml', command: COMMAND_DECLARE, arguments: [s.doc.uri, u.name] } });
    }
    // A model kept on the host only: its size and where it lives, no device verdict (nothing to click).
    for (const h of latest.result.host ?? []) {
      if (h.span.file) continue;
      const size = h.bytes === null ? 'size unknown' : formatBytes(h.bytes, s.settings.units);
      lenses.push({ range: toRange(latest.doc, h.span), command: { title: `${size} on the host, not on the accelerator`, tooltip: h.reason, command: '' } });
    }
    return lenses;
  });
}
