/**
 * `workspace/executeCommand`: server-side commands usable from any editor.
 * "Show documentation" asks the client to open the rule's page. "Show
 * memory timeline" is for editors without the VS Code client's webview
 * (Neovim, Helix, …): arguments `[uri, position]`, as the CodeLens passes
 * them; it writes the model's timeline SVG to the temporary folder and asks
 * the client to open it with the system's viewer (window/showDocument,
 * external). It returns the file's path, or null when there is no model.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OomlensServer } from '../server';
import { invalid, isPosition } from '../validate';
import { FILE_WIDTH, timelineAt } from './custom';
import { renderSvg } from '../../timeline/render';
import { documentSpec } from '../../timeline/view';

import { COMMAND_DECLARE, declarationEdit } from './declare';
export const COMMAND_SHOW_DOCS = 'oomlens.server.showDocumentation';
export const COMMAND_SHOW_TIMELINE = 'oomlens.server.showTimeline';


export function registerExecuteCommand(server: OomlensServer): void {
  server.connection.onExecuteCommand(async (params) => {
    if (typeof params !== 'object' || params === null || typeof params.command !== 'string' || (params.arguments !== undefined && !Array.isArray(params.arguments))) {
      throw invalid('expected { command: string, arguments?: unknown[] }');
    }
    const { command, arguments: args } = params;
    if (command === COMMAND_DECLARE && typeof args?.[0] === 'string' && typeof args[1] === 'string') {
      const s = server.store.get(args[0]);
      const path = server.pathOf(args[0]);
      const u = s?.result?.unbuilt.find((x) => x.name === args[1]);
      if (path && u) await server.connection.workspace.applyEdit({ label: `Declare ${u.name}`, edit: declarationEdit(path, u) }).catch(() => undefined);
      return null;
    }
    if (command === COMMAND_SHOW_DOCS && typeof args?.[0] === 'string') {
      await server.connection.window.showDocument({ uri: args[0], external: true }).catch(() => undefined);
    }
    if (command === COMMAND_SHOW_TIMELINE && typeof args?.[0] === 'string') {
      const position = isPosition(args[1]) ? args[1] : { line: 0, character: 0 };
      const t = await timelineAt(server, { uri: args[0], position }, true);
      if (!t.view || !t.title) return null;
      const svg = await renderSvg(documentSpec(t.view, FILE_WIDTH));
      // One file per document and model, overwritten on each request.
      const name = `oomlens-timeline-${createHash('sha256').update(`${args[0]}\n${t.title}`).digest('hex').slice(0, 16)}.svg`;
      const path = join(tmpdir(), name);
      try {
        writeFileSync(path, svg);
      } catch (e) {
        server.connection.console.error(`oomlens: cannot write ${path}: ${(e as Error).message}`);
        return null;
      }
      await server.connection.window.showDocument({ uri: pathToFileURL(path).href, external: true }).catch(() => undefined);
      return { path };
    }
    return null;
  });
}
