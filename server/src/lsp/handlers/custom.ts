/** The custom `oomlens/<verb>` requests declared in ../../protocol.ts. */
import { pathToFileURL } from 'node:url';
import { displayName, listDevices, usableCapacity } from '../../../../shared/src/devices';
import { formatBytes } from '../../../../shared/src/units';
import { DEFAULT_SETTINGS } from '../../config/settings';
import { ListDevicesRequest, ShowTimelineRequest, type ListDevicesResult, type ShowTimelineParams, type ShowTimelineResult } from '../../protocol';
import type { OomlensServer } from '../server';
import { invalid, isPosition } from '../validate';
import { modelAt } from './hover';
import { locatorFor, timelineView } from '../../timeline/view';

/** Plot width of a timeline drawn to a file, in px. */
export const FILE_WIDTH = 720;

export function registerCustom(server: OomlensServer): void {
  server.connection.onRequest(ListDevicesRequest, (): ListDevicesResult => ({
    devices: listDevices().map((d) => {
      const units = server.pushedSettings.units ?? DEFAULT_SETTINGS.units;
      const u = usableCapacity(d);
      return { id: d.id, name: d.name, capacity: u.known ? `${formatBytes(u.bytes, units)} usable of ${formatBytes(d.capacityBytes, units)}` : `${formatBytes(d.capacityBytes, units)} (usable not known)` };
    }),
  }));
  // The memory timeline of the model at the position (else the file's first model), as one Vega-Lite chart per phase for the client's webview.
  server.connection.onRequest(ShowTimelineRequest, (p: ShowTimelineParams): Promise<ShowTimelineResult> => {
    if (typeof p !== 'object' || p === null || typeof p.uri !== 'string' || !isPosition(p.position)) throw invalid('expected { uri: string, position: Position }');
    return timelineAt(server, p);
  });
}

/** The timeline of the model at a position of an open document, or of its first model; nulls when there is none. */
export async function timelineAt(server: OomlensServer, p: ShowTimelineParams, forFile = false): Promise<ShowTimelineResult> {
  const none = { view: null, title: null };
  const s = server.store.get(p.uri);
  if (!s) return none;
  await server.store.current(s, 10_000); // a command the user asked for: worth waiting for the current analysis
  const hit = modelAt(s.result, s.doc.offsetAt(p.position)) ?? (s.result?.models[0] ? { report: s.result.models[0] } : undefined);
  if (!hit) return none;
  const units = s.settings?.units ?? DEFAULT_SETTINGS.units;
  const { facts, estimate } = hit.report;
  const path = server.pathOf(p.uri);
  const locate = locatorFor(s.doc.getText(), p.uri, path ?? p.uri, (f) => pathToFileURL(f).href);
  return {
    // The webview follows its panel's width and shows headings as page text; a file has them drawn in.
    view: timelineView(facts, estimate, locate, forFile ? { units, width: FILE_WIDTH } : { units, width: 'container', titles: false }),
    title: `Memory timeline: ${facts.name} on ${displayName(estimate.target)}`,
  };
}
