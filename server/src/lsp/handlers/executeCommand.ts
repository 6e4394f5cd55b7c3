/**
 * `workspace/executeCommand`: server-side commands usable from any editor.
 * "Show documentation" asks the client to open the rule's page.
 */
import type { OomlensServer } from '../server';

export const COMMAND_SHOW_DOCS = 'oomlens.server.showDocumentation';

export function registerExecuteCommand(server: OomlensServer): void {
  server.connection.onExecuteCommand(async ({ command, arguments: args }) => {
    if (command === COMMAND_SHOW_DOCS && typeof args?.[0] === 'string') {
      await server.connection.window.showDocument({ uri: args[0], external: true }).catch(() => undefined);
    }
    return null;
  });
}
