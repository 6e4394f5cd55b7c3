/**
 * The oomlens language server as a class constructible over any connection
 * (stdio, IPC, or an in-memory pair in tests), like bash-language-server's
 * `create(connection, params)`. It owns the document store, resolves the
 * settings of each document (editor settings pulled per document merged with
 * `[tool.oomlens]` from pyproject.toml), schedules analyses, and publishes
 * diagnostics. Each LSP method's logic lives in its own file under handlers/.
 */
import { fileURLToPath } from 'node:url';
import type { Connection, InitializeParams } from 'vscode-languageserver';
import { parseDeviceSpec } from '../../../shared/src/devices';
import { analyzeFile as analyze } from '../program/project';
import type { AnalysisResult } from '../analysis/api';
import { readProjectConfig } from '../config/pyproject';
import { DEFAULT_SETTINGS, SETTINGS_SCHEMA, flatten, fromFlat, type Settings } from '../config/settings';
import { DocumentStore, type DocState } from './documents';
import { registerCodeAction } from './handlers/codeAction';
import { registerCodeLens } from './handlers/codeLens';
import { registerConfiguration } from './handlers/configuration';
import { registerCustom } from './handlers/custom';
import { publishDiagnostics } from './handlers/diagnostics';
import { registerDocumentSync } from './handlers/documentSync';
import { registerExecuteCommand } from './handlers/executeCommand';
import { registerHover } from './handlers/hover';
import { registerInitialize } from './handlers/initialize';

/** Delay between the last keystroke and re-analysis; short enough to feel live. */
const DEBOUNCE_MS = 120;

export class OomlensServer {
  readonly store = new DocumentStore();
  /** Filled by the initialize handler. */
  clientCaps: InitializeParams['capabilities'] = {};
  /** Settings pushed by didChangeConfiguration, used when the client cannot be asked per document. */
  pushedSettings: Settings = DEFAULT_SETTINGS;

  constructor(readonly connection: Connection) {
    registerInitialize(this);
    registerDocumentSync(this);
    registerConfiguration(this);
    registerHover(this);
    registerCodeLens(this);
    registerCodeAction(this);
    registerExecuteCommand(this);
    registerCustom(this);
  }

  listen(): void {
    this.connection.listen();
  }

  log(msg: string): void {
    this.connection.console.log(msg);
  }

  /**
   * The effective settings of one document. Editor settings win over
   * pyproject.toml, except that a setting left at its default lets the
   * project file decide (so `[tool.oomlens] device = "h200"` works with no
   * editor configuration). Disabled rule lists are combined.
   */
  async settingsFor(s: DocState): Promise<{ settings: Settings; problems: string[] }> {
    let editor = this.pushedSettings;
    if (this.clientCaps.workspace?.configuration) {
      try {
        const raw: unknown = await this.connection.workspace.getConfiguration({ scopeUri: s.doc.uri, section: 'oomlens' });
        editor = fromFlat(flatten(raw));
      } catch (e) {
        this.log(`workspace/configuration failed: ${(e as Error).message}`);
      }
    }
    const problems: string[] = [];
    let project: ReturnType<typeof readProjectConfig> = { problems: [] };
    const path = this.pathOf(s.doc.uri);
    if (path) project = readProjectConfig(path);
    problems.push(...project.problems);
    const settings: Settings = {
      ...editor,
      target: { device: editor.target.device === SETTINGS_SCHEMA['oomlens.target.device'].default && project.device ? project.device : editor.target.device },
      units: editor.units === SETTINGS_SCHEMA['oomlens.units'].default && project.units ? project.units : editor.units,
      diagnostics: {
        enable: editor.diagnostics.enable,
        disabled: [...new Set([...(project.disabled ?? []), ...editor.diagnostics.disabled])],
        severity: { ...(project.severity ?? {}), ...editor.diagnostics.severity },
      },
    };
    const spec = parseDeviceSpec(settings.target.device);
    if ('error' in spec) problems.push(`oomlens: ${spec.error} Known devices: ${spec.known.join(', ')}`);
    return { settings, problems };
  }

  pathOf(uri: string): string | undefined {
    if (!uri.startsWith('file:')) return undefined;
    try {
      return fileURLToPath(uri);
    } catch {
      return undefined;
    }
  }

  /** Schedules (or reschedules) analysis of a document; `delay` 0 analyses at once. */
  schedule(s: DocState, delay = DEBOUNCE_MS, refreshSettings = false): void {
    if (s.timer) clearTimeout(s.timer);
    const generation = ++s.generation;
    if (refreshSettings) s.settings = undefined;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void this.run(s, generation);
    }, delay);
  }

  /** Schedules every open document again, e.g. after a configuration change. */
  refreshAll(): void {
    for (const s of this.store.all()) this.schedule(s, 0, true);
  }

  private async run(s: DocState, generation: number): Promise<void> {
    const uri = s.doc.uri;
    try {
      if (!s.settings) {
        const { settings, problems } = await this.settingsFor(s);
        if (generation !== s.generation && !s.settings) {
          // Superseded while we waited for the client: the newer run will ask again.
          return;
        }
        s.settings = settings;
        s.configProblems = problems;
      }
      const version = s.doc.version;
      const text = s.doc.getText();
      const st = s.settings;
      let result: AnalysisResult;
      try {
        result = await analyze(text, {
          path: this.pathOf(uri),
          device: st.target.device,
          disabledRules: st.diagnostics.disabled,
          severityOverrides: st.diagnostics.severity,
          preview: st.preview.enable,
        });
      } catch (e) {
        // The analyzer promises not to throw on user input; if it does anyway,
        // keep the server alive and publish nothing stale for this version.
        this.log(`analysis of ${uri} v${version} failed: ${(e as Error).stack ?? String(e)}`);
        result = { text, models: [], findings: [], unbuilt: [], unknowns: [{ what: 'analysis', reason: `internal error: ${(e as Error).message}` }], elapsedMs: 0 };
      }
      // A newer edit or a close arrived meanwhile: drop this result.
      if (generation !== s.generation || this.store.get(uri) !== s || s.doc.version !== version) return;
      s.result = result;
      s.resultVersion = version;
      publishDiagnostics(this, s);
      const waiters = s.waiters.splice(0);
      for (const w of waiters) w();
    } catch (e) {
      this.log(`oomlens: unexpected error for ${uri}: ${(e as Error).stack ?? String(e)}`);
    }
  }

  /** Asks the client to re-query lenses after settings changed (LSP 3.16 refresh). */
  refreshLenses(): void {
    if (this.clientCaps.workspace?.codeLens?.refreshSupport) void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
  }
}

export function createServer(connection: Connection): OomlensServer {
  return new OomlensServer(connection);
}
