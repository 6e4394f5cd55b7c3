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
import { displayName, parseDeviceSpec } from '../../../shared/src/devices';
import { DEVICE_SET_IN, StatusNotification, type StatusParams } from '../protocol';
import type { AnalysisResult } from '../analysis/api';
import { readProjectConfig } from '../config/pyproject';
import { DEFAULT_SETTINGS, SETTINGS_SCHEMA, flatten, fromFlat, type Settings } from '../config/settings';
import { AnalysisWorker } from './analysisWorker';
import type { Boot } from '../serverMain';
import { DocumentStore, type DocState } from './documents';
import { registerCodeAction } from './handlers/codeAction';
import { registerCodeLens } from './handlers/codeLens';
import { registerConfiguration } from './handlers/configuration';
import { registerCustom } from './handlers/custom';
import { isInternalReason, publishDiagnostics } from './handlers/diagnostics';
import { registerDocumentSync } from './handlers/documentSync';
import { registerExecuteCommand } from './handlers/executeCommand';
import { registerHover } from './handlers/hover';
import { registerInitialize } from './handlers/initialize';
import { Notebooks } from './notebooks';

/**
 * Delay between an edit and re-analysis. Analyses run in a worker and a newer
 * edit cancels the one in flight (the interpreter polls every 4,096 steps,
 * about a millisecond), so waiting buys nothing for typing: keystrokes come
 * 30–150 ms apart, further apart than any delay worth adding, and each one
 * would cancel the run anyway. A 0 ms timer still coalesces the changes that
 * arrive together (a paste split in several changes, multi-cursor edits,
 * auto-closed brackets): they are read in one turn of the event loop, before
 * the timer fires. The former 25 ms was a quarter of the measured edit →
 * diagnostics p50 (docs/performance.md).
 */
const DEBOUNCE_MS = 0;

/**
 * The editor's analysis time budget (wall clock). The CLI keeps the analyzer's
 * 20 s; in the editor a result with an unknown ("time budget reached") after
 * 5 s is worth more than a complete one after 20, and under the fuzzer on a
 * loaded 2-CPU machine a few mutated files ran past the 15 s in which every
 * document must get diagnostics.
 */
const EDITOR_TIME_BUDGET_MS = 5000;
/** How many model names one "analysed" log line lists. */
const LOGGED_MODEL_NAMES = 12;

export class OomlensServer {
  readonly store = new DocumentStore();
  readonly analyses: AnalysisWorker;
  /** Filled by the initialize handler. */
  clientCaps: InitializeParams['capabilities'] = {};
  /** Settings pushed by didChangeConfiguration, used when the client cannot be asked per document. */
  pushedSettings: Settings = DEFAULT_SETTINGS;

  /** Notebook documents (LSP notebook sync): their cells live in `store` with `notebook` set. */
  readonly notebooks: Notebooks;

  constructor(readonly connection: Connection, boot: Boot = {}) {
    this.analyses = new AnalysisWorker((m) => this.log(m), boot);
    this.analyses.textOf = (uri) => this.store.get(uri)?.doc.getText();
    this.analyses.openCount = () => this.store.size;
    this.notebooks = new Notebooks(this);
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
    // The analysis worker starts with the process (module load, parser and grammar, a first tiny analysis),
    // while the client is still sending `initialize`, not on the first open.
    this.analyses.warm();
    this.notebooks.listen();
    this.connection.listen();
  }

  /** Documents whose analysis died, told to the user once per session (the diagnostic stays). */
  private readonly toldOfFailure = new Set<string>();

  log(msg: string): void {
    this.connection.console.log(msg);
  }

  /** Tells the client the device in effect for a document and where it comes from (the status item). */
  sendStatus(s: DocState): void {
    const device = s.settings?.target.device;
    if (!device) return;
    const spec = parseDeviceSpec(device);
    const params: StatusParams = {
      uri: s.doc.uri, device, deviceName: 'error' in spec ? device : displayName(spec),
      source: s.deviceSource?.source ?? 'default', pyproject: s.deviceSource?.pyproject, problems: s.configProblems,
    };
    void this.connection.sendNotification(StatusNotification, params);
  }

  /** Logs one analysis at info level: file, time, models, unknowns (the "oomlens" output channel). */
  logAnalysis(uri: string, r: AnalysisResult, ms: number, extra = ''): void {
    const unknowns = r.unknowns.length + r.models.reduce((n, m) => n + m.facts.unknowns.length + m.estimate.unknowns.length, 0);
    // At most LOGGED_MODEL_NAMES names: a file with thousands of models made one log line of hundreds of kB.
    const names = r.models.slice(0, LOGGED_MODEL_NAMES).map((m) => m.facts.name);
    const models = names.join(', ') + (r.models.length > names.length ? `, and ${r.models.length - names.length} more` : '');
    this.connection.console.info(`analysed ${uri}${extra} in ${ms} ms: ${r.models.length} model${r.models.length === 1 ? '' : 's'}${models ? ` (${models})` : ''}, ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}, ${unknowns} unknown${unknowns === 1 ? '' : 's'}`);
  }

  /** Logs an internal error with its stack at error level. */
  logError(what: string, e: unknown): void {
    this.connection.console.error(`internal error: ${what}: ${(e as Error)?.stack ?? String(e)}`);
  }

  /**
   * The effective settings of one document. Editor settings win over
   * pyproject.toml, except that a setting left at its default lets the
   * project file decide (so `[tool.oomlens] device = "h200"` works with no
   * editor configuration). Disabled rule lists are combined.
   */
  async settingsFor(s: DocState): Promise<{ settings: Settings; problems: string[]; deviceSource: NonNullable<DocState['deviceSource']> }> {
    let editor = this.pushedSettings;
    /** Where the client says the device setting is set: 'workspace' (or folder), 'user', or not said. */
    let setIn: unknown;
    if (this.clientCaps.workspace?.configuration) {
      try {
        const raw: unknown = await this.connection.workspace.getConfiguration({ scopeUri: s.doc.uri, section: 'oomlens' });
        editor = fromFlat(flatten(raw));
        setIn = (raw as { target?: Record<string, unknown> } | null)?.target?.[DEVICE_SET_IN];
      } catch (e) {
        this.log(`workspace/configuration failed: ${(e as Error).message}`);
      }
    }
    const problems: string[] = [];
    let project: ReturnType<typeof readProjectConfig> = { problems: [] };
    const path = this.pathOf(s.doc.uri);
    if (path) project = readProjectConfig(path);
    problems.push(...project.problems);
    // The device: one set for the workspace or folder wins; then pyproject.toml, over a user-level
    // setting; then the setting. A client that does not say where the setting is set (not VS Code):
    // a non-default setting wins over pyproject.toml.
    const workspaceDevice = setIn === 'workspace';
    const fromProject = !!project.device && !workspaceDevice
      && (setIn === 'user' || editor.target.device === SETTINGS_SCHEMA['oomlens.target.device'].default);
    const settings: Settings = {
      ...editor,
      target: { device: fromProject ? project.device! : editor.target.device },
      units: editor.units === SETTINGS_SCHEMA['oomlens.units'].default && project.units ? project.units : editor.units,
      diagnostics: {
        enable: editor.diagnostics.enable,
        disabled: [...new Set([...(project.disabled ?? []), ...editor.diagnostics.disabled])],
        severity: { ...(project.severity ?? {}), ...editor.diagnostics.severity },
      },
    };
    const spec = parseDeviceSpec(settings.target.device);
    if ('error' in spec) problems.push(`oomlens: ${spec.error} Known devices: ${spec.known.join(', ')}`);
    const deviceSource = fromProject ? { source: 'pyproject' as const, pyproject: project.path }
      : workspaceDevice ? { source: 'setting' as const, pyproject: project.device ? project.path : undefined }
      : { source: 'default' as const, pyproject: project.device ? project.path : undefined };
    return { settings, problems, deviceSource };
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
    // A notebook cell is analysed with its notebook.
    if (s.notebook) { this.notebooks.scheduleCell(s.doc.uri, delay); return; }
    if (s.timer) clearTimeout(s.timer);
    const generation = ++s.generation;
    if (refreshSettings) s.settings = undefined;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void this.run(s, generation);
    }, delay);
  }

  /** Schedules the other open documents whose last analysis read this one (imports it, or a program of it). */
  scheduleDependents(s: DocState): void {
    const path = this.pathOf(s.doc.uri);
    if (!path) return;
    // Later than the edited document, so its text (which the worker reads for imports) reaches the worker first.
    for (const o of this.store.all()) if (o !== s && o.result?.dependencies?.includes(path)) this.schedule(o, 2 * DEBOUNCE_MS + 20);
  }

  /** Schedules every open document again, e.g. after a configuration change. */
  refreshAll(): void {
    for (const s of this.store.all()) this.schedule(s, 0, true);
  }

  private async run(s: DocState, generation: number): Promise<void> {
    const uri = s.doc.uri;
    try {
      if (!s.settings) {
        const { settings, problems, deviceSource } = await this.settingsFor(s);
        if (generation !== s.generation && !s.settings) {
          // Superseded while we waited for the client: the newer run will ask again.
          return;
        }
        s.settings = settings;
        s.configProblems = problems;
        s.deviceSource = deviceSource;
      }
      const st = s.settings;
      // The text is read when the worker takes the run (see AnalysisWorker), so it is checked against the document below.
      const outcome = await this.analyses.run(uri, () => s.doc.getText(), {
        path: this.pathOf(uri),
        device: st.target.device,
        disabledRules: st.diagnostics.disabled,
        severityOverrides: st.diagnostics.severity,
        preview: st.preview.enable,
        timeBudgetMs: EDITOR_TIME_BUDGET_MS,
      });
      if (outcome.kind === 'cancelled') return;
      let result: AnalysisResult;
      if (outcome.kind === 'result') {
        result = outcome.result;
        this.logAnalysis(uri, result, result.elapsedMs);
        // Internal errors the analysis survived, with the stacks the worker sent.
        if (outcome.internalErrors?.length) for (const m of outcome.internalErrors) this.logError(`on ${uri}`, m);
        else for (const u of result.unknowns) if (isInternalReason(u.reason)) this.logError(`${u.what} on ${uri}`, u.reason);
      } else {
        // The analyzer promises not to throw on user input; if it (or its worker) fails anyway,
        // keep the server alive and say so instead of publishing stale results.
        this.logError(`analysis of ${uri}`, outcome.message);
        if (!this.toldOfFailure.has(uri)) {
          this.toldOfFailure.add(uri);
          void this.connection.window.showWarningMessage(`oomlens could not analyse ${uri.split('/').pop()}: internal error (a bug in oomlens). The stack is in the "oomlens" output channel (oomlens: Show logs).`);
        }
        const text = s.doc.getText();
        result = { text, models: [], findings: [], unbuilt: [], unknowns: [{ what: 'analysis', reason: `internal error: ${outcome.message.split('\n')[0]}` }], elapsedMs: 0 };
      }
      const version = s.doc.version;
      // A newer edit or a close arrived meanwhile: drop this result.
      if (generation !== s.generation || this.store.get(uri) !== s || result.text !== s.doc.getText()) return;
      s.result = result;
      s.resultVersion = version;
      s.resultDoc = undefined;
      publishDiagnostics(this, s);
      this.sendStatus(s);
      const waiters = s.waiters.splice(0);
      for (const w of waiters) w();
    } catch (e) {
      this.logError(`unexpected error for ${uri}`, e);
    }
  }

  /** Asks the client to re-query lenses after settings changed (LSP 3.16 refresh). */
  refreshLenses(): void {
    if (this.clientCaps.workspace?.codeLens?.refreshSupport) void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
  }
}

export function createServer(connection: Connection, boot?: Boot): OomlensServer {
  return new OomlensServer(connection, boot);
}
