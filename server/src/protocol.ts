/**
 * Custom protocol messages between the oomlens client and server, declared
 * once (vscode-eslint's custom messages file). Each comment says who sends it.
 */
export interface DeviceItem {
  /** Catalogue id, e.g. 'h100-80gb'. */
  id: string;
  /** Display name, e.g. 'H100 80GB'. */
  name: string;
  /** Capacity in the user's units, e.g. '85.5 GB'. */
  capacity: string;
}

/** client → server request: the device catalogue, for the quick pick. */
export const ListDevicesRequest = 'oomlens/listDevices';
export interface ListDevicesResult { devices: DeviceItem[] }

/**
 * client → server request: the memory timeline of the model at a position
 * (or the file's first model): a standalone SVG (shared/src/timelineSvg.ts)
 * and the hover Markdown; all null when the file has no model.
 */
export const ShowTimelineRequest = 'oomlens/showTimeline';
export interface ShowTimelineParams { uri: string; position: { line: number; character: number } }
export interface ShowTimelineResult { svg: string | null; title: string | null }

/** server → client notification: the effective target device of a document changed (for the status item). */
export const StatusNotification = 'oomlens/status';
export interface StatusParams { uri: string; device: string; deviceName: string; problems: string[] }
