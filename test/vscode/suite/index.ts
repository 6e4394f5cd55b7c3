/**
 * Runs inside VS Code's extension host (loaded by @vscode/test-electron):
 * the five scenario programs opened as a user would, asserting through the
 * public `vscode` API what the Problems panel, hover, CodeLens and quick
 * fixes show. The workspace is a copy of test/fixtures/scenarios.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

/** What a user should see in each scenario on its story's device (see ../shared/scenarios). */
const CASES = [
  { file: 's1_equinox_mistral/model.py', device: 'a100-40gb', code: 'OOM101', fitsOn: 'h200' },
  { file: 's2_flax_sharded_dense/train.py', device: '8xh100-80gb', code: 'OOM103', fitsOn: undefined },
  { file: 's3_haiku_pair_init/model.py', device: 'a100-80gb', code: 'OOM104', fitsOn: 'h200' },
  { file: 's4_equinox_mlp_prealloc/infer.py', device: 't4', code: 'OOM901', fitsOn: undefined },
  { file: 's5_hf_llama_edit/edit.py', device: '2xv100-32gb', code: 'OOM201', fitsOn: undefined },
] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const ours = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'oomlens');
const codeOf = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

async function setDevice(device: string): Promise<void> {
  await vscode.workspace.getConfiguration('oomlens').update('target.device', device, vscode.ConfigurationTarget.Global);
}

async function lensTitles(uri: vscode.Uri): Promise<string[]> {
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
  return (lenses ?? []).map((l) => l.command?.title ?? '').filter(Boolean);
}

async function hoverText(uri: vscode.Uri, pos: vscode.Position): Promise<string> {
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, pos);
  return (hovers ?? []).flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
}

export async function run(): Promise<void> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  assert.ok(root, 'the test workspace is open');
  const failures: string[] = [];
  for (const c of CASES) {
    try {
      await setDevice(c.device);
      const uri = vscode.Uri.joinPath(root, c.file);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      const diag = await until(`${c.code} in ${c.file}`, () => ours(uri).find((d) => codeOf(d) === c.code));

      // Hover on the flagged line, then on every model lens line: one of them shows params and a peak.
      const lenses = await until(`CodeLens in ${c.file}`, async () => {
        const t = await lensTitles(uri);
        return t.length ? t : undefined;
      });
      assert.ok(lenses.some((t) => /params/.test(t) && /peak/.test(t)), `lens: ${lenses.join(' | ')}`);
      const hover = await hoverText(uri, diag.range.start);
      assert.match(hover, /param/i, `hover at ${c.code}: ${hover}`);

      // The preferred quick fix removes the diagnostic.
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, diag.range, vscode.CodeActionKind.QuickFix.value);
      const fix = (actions ?? []).find((a) => a.isPreferred && a.edit) ?? (actions ?? []).find((a) => a.edit && !/^Ignore/.test(a.title));
      assert.ok(fix?.edit, `a quick fix for ${c.code}: ${(actions ?? []).map((a) => a.title).join(' | ')}`);
      assert.ok(await vscode.workspace.applyEdit(fix.edit), 'edit applied');
      await until(`${c.code} gone after "${fix.title}"`, () => (ours(uri).some((d) => codeOf(d) === c.code) ? undefined : true));
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

      if (c.fitsOn) {
        // The device switch flips the verdict without reopening.
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
        await until(`OOM001 in ${c.file} on ${c.device}`, () => ours(uri).find((d) => codeOf(d) === 'OOM001'));
        await setDevice(c.fitsOn);
        await until(`OOM001 gone on ${c.fitsOn}`, () => (ours(uri).some((d) => codeOf(d) === 'OOM001') ? undefined : true));
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      }
    } catch (e) {
      failures.push(`${c.file}: ${(e as Error).message}`);
    }
  }
  await vscode.workspace.getConfiguration('oomlens').update('target.device', undefined, vscode.ConfigurationTarget.Global);
  if (failures.length) throw new Error(`${failures.length} scenario(s) failed:\n${failures.join('\n')}`);
}
