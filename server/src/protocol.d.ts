/**
 * Custom protocol messages between the oomlens client and server, declared
 * once (vscode-eslint's custom messages file). Each comment says who sends it.
 */
import type { TimelineView } from './timeline/view';
export interface DeviceItem {
    /** Catalogue id, e.g. 'h100-80gb'. */
    id: string;
    /** Display name, e.g. 'H100 80GB'. */
    name: string;
    /** Capacity in the user's units, e.g. '85.5 GB'. */
    capacity: string;
}
/** client → server request: the device catalogue, for the quick pick. */
export declare const ListDevicesRequest = "oomlens/listDevices";
export interface ListDevicesResult {
    devices: DeviceItem[];
}
/**
 * client → server request: the memory timeline of the model at a position
 * (or the file's first model): one Vega-Lite chart per phase
 * (server/src/timeline/view.ts), drawn by the client's webview; nulls when
 * the file has no model.
 */
export declare const ShowTimelineRequest = "oomlens/showTimeline";
export interface ShowTimelineParams {
    uri: string;
    position: {
        line: number;
        character: number;
    };
}
export interface ShowTimelineResult {
    svg: string | null;
    title: string | null;
}
/**
 * server → client notification, after each analysis: the target device in
 * effect for a document and where it comes from, for the status item.
 * `source`: 'setting' (an oomlens.target.device set for the workspace or
 * folder, which wins), 'pyproject' (`[tool.oomlens] device` of `pyproject`),
 * or 'default' (a user-level or default setting).
 */
export declare const StatusNotification = "oomlens/status";
export interface StatusParams {
    uri: string;
    device: string;
    deviceName: string;
    source: 'setting' | 'pyproject' | 'default';
    pyproject?: string;
    problems: string[];
}
/**
 * Added by the client to the `oomlens` section it returns for
 * `workspace/configuration`: 'workspace' when oomlens.target.device is set
 * for the workspace or the folder (then it overrides pyproject.toml).
 */
export declare const DEVICE_SET_IN = "deviceSetIn";
