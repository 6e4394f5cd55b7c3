/**
 * The settings schema, declared once: each key with its type, default and
 * documentation. `scripts/gen-settings.mjs` generates package.json
 * `contributes.configuration` from it and a test checks they agree, so the
 * editor's Settings UI and the server can never drift apart.
 */
import type { Severity } from '../analysis/api';
import type { Units } from '../../../shared/src/types';

export type RuleSeverity = Severity | 'off';

export interface Settings {
  target: { device: string };
  units: Units;
  diagnostics: { enable: boolean; disabled: string[]; severity: Record<string, RuleSeverity> };
  preview: { enable: boolean };
  codeLens: { enable: boolean };
  hover: { enable: boolean };
  trace: { server: 'off' | 'messages' | 'verbose' };
}

/** One JSON-schema entry of `contributes.configuration.properties`. */
export interface SettingSchema {
  type: string;
  default: unknown;
  markdownDescription: string;
  enum?: string[];
  enumDescriptions?: string[];
  items?: { type: string };
  additionalProperties?: { type: string; enum: string[] };
  scope?: 'resource' | 'window';
}

/** Keys are the full setting names under the `oomlens` section. */
export const SETTINGS_SCHEMA: Record<string, SettingSchema> = {
  'oomlens.target.device': {
    type: 'string',
    default: 'a100-80gb',
    markdownDescription: 'Target accelerator, from the device catalogue: `a100-40gb`, `h100-80gb`, `h200`, `tpu-v4`, … Prefix a count for several devices: `8xh100-80gb`. `[tool.oomlens] device` in `pyproject.toml` wins over a user-level value (and the default); a value set for the workspace or folder wins over the project file.',
    scope: 'resource',
  },
  'oomlens.units': {
    type: 'string',
    default: 'GB',
    enum: ['GB', 'GiB'],
    enumDescriptions: ['Decimal gigabytes (10^9 bytes), as vendors quote capacity.', 'Binary gibibytes (2^30 bytes), as nvidia-smi and allocators count.'],
    markdownDescription: 'Units for every byte figure in diagnostics, hovers and lenses.',
    scope: 'resource',
  },
  'oomlens.diagnostics.enable': {
    type: 'boolean',
    default: true,
    markdownDescription: 'Report oomlens findings in the Problems panel.',
    scope: 'resource',
  },
  'oomlens.diagnostics.disabled': {
    type: 'array',
    items: { type: 'string' },
    default: [],
    markdownDescription: 'Rule codes to turn off, e.g. `["OOM901"]`. Added to `[tool.oomlens] disabled` from `pyproject.toml`.',
    scope: 'resource',
  },
  'oomlens.diagnostics.severity': {
    type: 'object',
    additionalProperties: { type: 'string', enum: ['error', 'warning', 'information', 'hint', 'off'] },
    default: {},
    markdownDescription: 'Per-rule severity overrides, e.g. `{ "OOM101": "warning" }`. Overrides `[tool.oomlens] severity`.',
    scope: 'resource',
  },
  'oomlens.preview.enable': {
    type: 'boolean',
    default: false,
    markdownDescription: 'Run preview rules as well as stable ones.',
    scope: 'resource',
  },
  'oomlens.codeLens.enable': {
    type: 'boolean',
    default: true,
    markdownDescription: 'Show a lens above each model with its parameters and worst phase peak against the budget.',
    scope: 'resource',
  },
  'oomlens.hover.enable': {
    type: 'boolean',
    default: true,
    markdownDescription: 'Show the memory table when hovering a model, its construction or its init / from_pretrained call.',
    scope: 'resource',
  },
  'oomlens.trace.server': {
    type: 'string',
    default: 'off',
    enum: ['off', 'messages', 'verbose'],
    markdownDescription: 'Trace the communication between VS Code and the oomlens language server (in the "oomlens" output channel).',
    scope: 'window',
  },
};

/** Reads one value, falling back to the schema's default when it is missing or of the wrong type. */
function pick<T>(flat: Record<string, unknown>, key: string, ok: (v: unknown) => boolean): T {
  const v = flat[key];
  return (v !== undefined && ok(v) ? v : SETTINGS_SCHEMA[key].default) as T;
}

const isStr = (v: unknown): boolean => typeof v === 'string';
const isBool = (v: unknown): boolean => typeof v === 'boolean';
const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'];

/** Builds typed settings from flat `oomlens.*` keys; bad values fall back to defaults instead of throwing. */
export function fromFlat(flat: Record<string, unknown>): Settings {
  const sev = pick<Record<string, unknown>>(flat, 'oomlens.diagnostics.severity', (v) => typeof v === 'object' && v !== null && !Array.isArray(v));
  const severity: Record<string, RuleSeverity> = {};
  for (const [k, v] of Object.entries(sev)) if (typeof v === 'string' && SEVERITIES.includes(v)) severity[k.toUpperCase()] = v as RuleSeverity;
  return {
    target: { device: pick(flat, 'oomlens.target.device', isStr) },
    units: pick(flat, 'oomlens.units', (v) => v === 'GB' || v === 'GiB'),
    diagnostics: {
      enable: pick(flat, 'oomlens.diagnostics.enable', isBool),
      disabled: pick<unknown[]>(flat, 'oomlens.diagnostics.disabled', Array.isArray).filter((x): x is string => typeof x === 'string').map((x) => x.toUpperCase()),
      severity,
    },
    preview: { enable: pick(flat, 'oomlens.preview.enable', isBool) },
    codeLens: { enable: pick(flat, 'oomlens.codeLens.enable', isBool) },
    hover: { enable: pick(flat, 'oomlens.hover.enable', isBool) },
    trace: { server: pick(flat, 'oomlens.trace.server', (v) => v === 'off' || v === 'messages' || v === 'verbose') },
  };
}

export const DEFAULT_SETTINGS: Settings = fromFlat({});

/**
 * Flattens the nested object VS Code returns for `workspace/configuration`
 * section `oomlens` ({ target: { device } } → 'oomlens.target.device').
 * Per-rule severity maps are kept whole: their keys are rule codes, not settings.
 */
export function flatten(obj: unknown, prefix = 'oomlens', depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Settings are a few levels deep; anything deeper is not ours (and must not exhaust the stack).
  if (typeof obj !== 'object' || obj === null || depth > 8) return out;
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    const key = `${prefix}.${k}`;
    if (key in SETTINGS_SCHEMA || typeof v !== 'object' || v === null || Array.isArray(v)) out[key] = v;
    else Object.assign(out, flatten(v, key, depth + 1));
  }
  return out;
}

/** The `contributes` fragment for package.json, generated from the schema. */
export function contributes(): { configuration: unknown; commands: unknown[] } {
  return {
    configuration: { title: 'oomlens', properties: SETTINGS_SCHEMA },
    commands: COMMANDS.map((c) => ({ command: c.command, title: c.title, category: 'oomlens' })),
  };
}

/** Client commands, declared here so package.json is generated from one list. */
export const COMMANDS = [
  { command: 'oomlens.pickDevice', title: 'Pick target device' },
  { command: 'oomlens.restartServer', title: 'Restart server' },
  { command: 'oomlens.showLogs', title: 'Show logs' },
  { command: 'oomlens.showTimeline', title: 'Show memory timeline' },
] as const;

/** The README's settings table (Markdown), generated from the schema by `npm run gen-settings`. */
export function settingsTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = Object.entries(SETTINGS_SCHEMA).map(([k, v]) => {
    const type = v.enum ? v.enum.map((e) => `\`${e}\``).join(' / ') : v.type;
    return `| \`${k}\` | ${type} | \`${JSON.stringify(v.default)}\` | ${cell(v.markdownDescription)} |`;
  });
  return ['| Setting | Type | Default | What it does |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

export const README_TABLE_START = '<!-- settings-table:start (generated by npm run gen-settings) -->';
export const README_TABLE_END = '<!-- settings-table:end -->';
