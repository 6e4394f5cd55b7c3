/**
 * Test harness for the language server as users run it: spawns the bundled
 * `dist/server.js --stdio` and speaks LSP over its pipes with vscode-jsonrpc.
 * Answers the server's `workspace/configuration` pulls from a settings object
 * the test can change, and collects publishDiagnostics so tests can poll for
 * them (never sleeping a fixed time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serverEnv } from '../../client/src/serverEnv';
import { StreamMessageReader, StreamMessageWriter, createMessageConnection, type MessageConnection } from 'vscode-jsonrpc/node';
import type { CodeAction, CodeLens, Diagnostic, Hover, Position, PublishDiagnosticsParams, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';

export const ROOT = resolve(__dirname, '../..');
export const SERVER = join(ROOT, 'dist/server.js');
export const SCENARIOS = join(ROOT, 'test/fixtures/scenarios');

export interface Opened { uri: string; version: number; text: string }

export class LspClient {
  readonly conn: MessageConnection;
  readonly proc: ChildProcess;
  /** Settings returned for `workspace/configuration` section `oomlens`. */
  settings: Record<string, unknown> = {};
  private readonly diags = new Map<string, PublishDiagnosticsParams>();
  private readonly listeners: Array<() => void> = [];
  private readonly docs = new Map<string, Opened>();
  stderr = '';
  /** The server's window/logMessage output, for failure messages. */
  log = '';

  /** window/showMessage notifications and showMessageRequest requests from the server. */
  messages: { type: number; message: string }[] = [];

  /** `server`: the server's entry, dist/server.js unless a test runs a copy of the bundles. */
  constructor(env?: Record<string, string>, server = SERVER) {
    if (!existsSync(server)) throw new Error(`${server} is missing: run npm run build first`);
    // The environment the extension starts it with (client/src/serverEnv.ts).
    this.proc = spawn(process.execPath, [server, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: serverEnv(env ? { ...process.env, ...env } : process.env) });
    this.proc.stderr!.on('data', (d: Buffer) => { this.stderr += d.toString(); });
    this.conn = createMessageConnection(new StreamMessageReader(this.proc.stdout!), new StreamMessageWriter(this.proc.stdin!));
    this.conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.diags.set(p.uri, p);
      for (const l of this.listeners.splice(0)) l();
    });
    this.conn.onRequest('workspace/configuration', (p: { items: Array<{ section?: string }> }) => p.items.map((i) => (i.section === 'oomlens' ? this.settings : null)));
    this.conn.onRequest('workspace/codeLens/refresh', () => null);
    this.conn.onRequest('window/showDocument', () => ({ success: true }));
    this.conn.onNotification('window/logMessage', (p: { message: string }) => { this.log += p.message + '\n'; });
    this.conn.onNotification('window/showMessage', (p: { type: number; message: string }) => { this.messages.push(p); });
    this.conn.onRequest('window/showMessageRequest', (p: { type: number; message: string }) => { this.messages.push(p); return null; });
    this.conn.listen();
  }

  async initialize(): Promise<void> {
    await this.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(ROOT).href,
      capabilities: {
        workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: false }, codeLens: { refreshSupport: true } },
        textDocument: { publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true } },
      },
    });
    await this.conn.sendNotification('initialized', {});
  }

  open(path: string, text = readFileSync(path, 'utf8')): Opened {
    const d: Opened = { uri: pathToFileURL(path).href, version: 1, text };
    this.docs.set(d.uri, d);
    void this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri: d.uri, languageId: 'python', version: 1, text } });
    return d;
  }

  /** Closes the document (didClose). */
  closeDocument(d: Opened): void {
    this.docs.delete(d.uri);
    void this.conn.sendNotification('textDocument/didClose', { textDocument: { uri: d.uri } });
  }

  /** Replaces the whole text (full-document change). */
  change(d: Opened, text: string): void {
    d.version += 1;
    d.text = text;
    void this.conn.sendNotification('textDocument/didChange', { textDocument: { uri: d.uri, version: d.version }, contentChanges: [{ text }] });
  }

  /** Replaces [start, end) (offsets) with `text`, sent as a ranged (incremental) change. */
  edit(d: Opened, start: number, end: number, text: string): void {
    const range = { start: positionAt(d.text, start), end: positionAt(d.text, end) };
    d.version += 1;
    d.text = d.text.slice(0, start) + text + d.text.slice(end);
    void this.conn.sendNotification('textDocument/didChange', { textDocument: { uri: d.uri, version: d.version }, contentChanges: [{ range, text }] });
  }

  /** Applies a workspace edit for this document locally and sends it as a change. */
  applyEdit(d: Opened, edit: WorkspaceEdit): void {
    const edits = edit.changes?.[d.uri] ?? [];
    this.change(d, applyTextEdits(d.text, edits));
  }

  /** Waits for diagnostics published for exactly the document's current version. */
  async diagnostics(d: Opened, timeoutMs = 15_000): Promise<Diagnostic[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const p = this.diags.get(d.uri);
      if (p && p.version === d.version) return p.diagnostics;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no diagnostics for ${d.uri} v${d.version} within ${timeoutMs} ms; stderr: ${this.stderr} log: ${this.log}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, Math.min(left, 200));
        this.listeners.push(() => { clearTimeout(t); res(); });
      });
    }
  }

  hover(d: Opened, position: Position): Promise<Hover | null> {
    return this.conn.sendRequest('textDocument/hover', { textDocument: { uri: d.uri }, position });
  }

  codeLens(d: Opened): Promise<CodeLens[]> {
    return this.conn.sendRequest('textDocument/codeLens', { textDocument: { uri: d.uri } });
  }

  codeActions(d: Opened, diagnostics: Diagnostic[], only?: string[]): Promise<CodeAction[]> {
    const range = diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return this.conn.sendRequest('textDocument/codeAction', { textDocument: { uri: d.uri }, range, context: { diagnostics, only } });
  }

  setSettings(s: Record<string, unknown>): void {
    this.settings = s;
    void this.conn.sendNotification('workspace/didChangeConfiguration', { settings: { oomlens: s } });
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
      await this.conn.sendNotification('exit').catch(() => undefined);
    } catch {
      // The server may already be gone; the kill below cleans up either way.
    }
    // Let the server exit before the pipes go: a reply still being written to a killed
    // process would fail after the test ended.
    if (this.proc.exitCode === null) await new Promise((r) => { this.proc.once('exit', r); setTimeout(r, 2000); });
    this.conn.dispose();
    this.proc.kill();
  }
}

export function offsetAt(text: string, p: Position): number {
  const lines = text.split('\n');
  let o = 0;
  for (let i = 0; i < p.line; i++) o += lines[i].length + 1;
  return o + p.character;
}

export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
}

export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const sorted = edits.map((e) => ({ s: offsetAt(text, e.range.start), e: offsetAt(text, e.range.end), t: e.newText })).sort((a, b) => b.s - a.s);
  let out = text;
  for (const x of sorted) out = out.slice(0, x.s) + x.t + out.slice(x.e);
  return out;
}

/**
 * RSS of a process and its descendants in MB (Linux /proc; NaN elsewhere or once it is gone): the server's
 * analysis worker runs in a child process (server/src/lsp/workerStart.ts), whose memory is the server's too.
 */
export function treeRssMb(pid: number): number {
  try {
    let kb = 0;
    const stack = [pid];
    while (stack.length) {
      const p = stack.pop()!;
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      for (const t of readdirSync(`/proc/${p}/task`)) {
        try { stack.push(...readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number)); } catch { /* the thread ended */ }
      }
    }
    return kb / 1024;
  } catch {
    return NaN;
  }
}

/**
 * A server with `OOMLENS_TEST_FAULT=hang` (its runs spin, or wait for their cancel flag, on a text asking for it:
 * server/src/lsp/worker.ts), given the diagnostics of `text` analysed normally as the reference.
 */
export async function withHangingServer(text: string, body: (c: LspClient, dir: string, reference: Diagnostic[]) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'oomlens-hang-'));
  const c = new LspClient({ OOMLENS_TEST_FAULT: 'hang' });
  c.settings = { target: { device: 't4' } };
  try {
    await c.initialize();
    const ref = c.open(join(dir, 'ref.py'), text);
    const reference = await c.diagnostics(ref, 30_000);
    c.closeDocument(ref);
    await body(c, dir, reference);
  } finally {
    await c.close();
  }
}
