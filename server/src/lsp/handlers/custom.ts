/** The custom `oomlens/<verb>` requests declared in ../../protocol.ts. */
import { listDevices } from '../../../../shared/src/devices';
import { formatBytes } from '../../../../shared/src/units';
import { DEFAULT_SETTINGS } from '../../settings';
import { ListDevicesRequest, ShowTimelineRequest, type ListDevicesResult, type ShowTimelineParams, type ShowTimelineResult } from '../../protocol';
import { hoverMarkdown } from '../format';
import type { OomlensServer } from '../server';
import { modelAt } from './hover';

export function registerCustom(server: OomlensServer): void {
  server.connection.onRequest(ListDevicesRequest, (): ListDevicesResult => ({
    devices: listDevices().map((d) => ({ id: d.id, name: d.name, capacity: formatBytes(d.capacityBytes, server.pushedSettings.units ?? DEFAULT_SETTINGS.units) })),
  }));
  // Placeholder for the timeline view: returns the hover Markdown of the model at the position.
  server.connection.onRequest(ShowTimelineRequest, async (p: ShowTimelineParams): Promise<ShowTimelineResult> => {
    const s = server.store.get(p.uri);
    if (!s) return { markdown: null };
    await server.store.current(s);
    const hit = modelAt(s, s.doc.offsetAt(p.position)) ?? (s.result?.models[0] ? { report: s.result.models[0] } : undefined);
    return { markdown: hit ? hoverMarkdown(hit.report, s.doc, s.settings?.units ?? 'GB') : null };
  });
}
