/**
 * `workspace/didChangeConfiguration` and `workspace/didChangeWatchedFiles`
 * (pyproject.toml): drop every document's resolved settings and re-analyse,
 * so a device switch updates all open files' diagnostics, lenses and hovers.
 */
import { flatten, fromFlat } from '../../config/settings';
import type { OomlensServer } from '../server';

export function registerConfiguration(server: OomlensServer): void {
  server.connection.onDidChangeConfiguration((params) => {
    const settings: unknown = (params as { settings?: unknown } | null)?.settings;
    const raw = typeof settings === 'object' && settings !== null ? (settings as { oomlens?: unknown }).oomlens : undefined;
    if (raw !== undefined) server.pushedSettings = fromFlat(flatten(raw));
    server.refreshAll();
    server.refreshLenses();
  });
  server.connection.onDidChangeWatchedFiles(() => {
    server.analyses.filesChanged();
    server.refreshAll();
    server.refreshLenses();
  });
}
