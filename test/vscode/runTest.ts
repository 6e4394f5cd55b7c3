/**
 * `npm run test:vscode`: the smoke scenarios through the `vscode` API in a
 * desktop VS Code (Electron) started by @vscode/test-electron.
 *
 * test-electron downloads VS Code from update.code.visualstudio.com. Where
 * that is unreachable (this project's CI machines: npm and Debian only), the
 * suite cannot run; it says so and exits 2 instead of pretending to pass.
 * The real-editor suite that CI does run is test/e2e (code-server + Chromium).
 * Set OOMLENS_VSCODE_EXECUTABLE to use an installed VS Code instead of a
 * download.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const root = resolve(__dirname, '../..');
  const workspace = mkdtempSync(join(tmpdir(), 'oomlens-vscode-'));
  cpSync(join(root, 'test/fixtures/scenarios'), workspace, { recursive: true });
  try {
    await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: join(__dirname, 'suite.js'),
      vscodeExecutablePath: process.env.OOMLENS_VSCODE_EXECUTABLE || undefined,
      launchArgs: [workspace, '--disable-extensions', '--skip-welcome', '--disable-workspace-trust'],
    });
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    if (/ENOTFOUND|ECONNREFUSED|EAI_AGAIN|getaddrinfo|fetch failed|timed? ?out/i.test(msg)) {
      console.error(`test:vscode: desktop VS Code could not be downloaded (${msg}). ` +
        'Set OOMLENS_VSCODE_EXECUTABLE to an installed VS Code, or run the real-editor suite: npm run test:e2e');
      process.exit(2);
    }
    console.error(`test:vscode failed: ${msg}`);
    process.exit(1);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

void main();
