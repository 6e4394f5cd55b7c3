/**
 * Reads a checkpoint's config.json from the local Hugging Face cache or from
 * a local model directory, never the network, so that checkpoints missing
 * from the shipped table can still be sized when the user has them on disk.
 *
 * Cache location and layout follow huggingface_hub (docs "Manage
 * huggingface_hub cache-system", constants.py): $HF_HUB_CACHE, else
 * $HF_HOME/hub, else ~/.cache/huggingface/hub; a model lives in
 * models--{org}--{name}/ with snapshots/<commit>/ and refs/main holding the
 * commit that `main` points to, which is the snapshot from_pretrained uses.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export type LocalConfig = { config: Record<string, unknown>; path: string };

/** The hub cache directory for this environment. */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.HOME || homedir(), '.cache', 'huggingface', 'hub');
}

function isDir(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

/**
 * The config for `modelId`: `{ config, path }` when found and parsed,
 * `{ unknown }` when found but unreadable (bad JSON), `undefined` when not on
 * disk. A model id that names an existing directory (`./my-model`, an
 * absolute path) is read from that directory, as from_pretrained does.
 * `baseDir` resolves relative directory ids (the analysed file's folder).
 */
export function readLocalConfig(modelId: string, env: NodeJS.ProcessEnv = process.env, baseDir?: string): LocalConfig | { unknown: string } | undefined {
  const id = modelId.trim();
  const local = isAbsolute(id) || !baseDir ? id : resolve(baseDir, id);
  if (id && isDir(local)) {
    const p = join(local, 'config.json');
    return existsSync(p) ? parse(p) : undefined;
  }
  const clean = id.replace(/\/+$/, '');
  if (!/^[\w.-]+(\/[\w.-]+)?$/.test(clean)) return undefined;
  const repo = join(hubCacheDir(env), `models--${clean.replace(/\//g, '--')}`);
  const snaps = join(repo, 'snapshots');
  if (!isDir(snaps)) return undefined;
  const candidates: string[] = [];
  try {
    const ref = readFileSync(join(repo, 'refs', 'main'), 'utf8').trim();
    if (ref) candidates.push(join(snaps, ref, 'config.json'));
  } catch {
    // No refs/main (a snapshot downloaded by commit): fall back to any snapshot.
  }
  for (const rev of readdirSync(snaps).sort()) candidates.push(join(snaps, rev, 'config.json'));
  for (const p of candidates) if (existsSync(p)) return parse(p);
  return undefined;
}

function parse(p: string): LocalConfig | { unknown: string } {
  try {
    const v: unknown = JSON.parse(readFileSync(p, 'utf8'));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return { unknown: `${p} does not hold a JSON object` };
    return { config: v as Record<string, unknown>, path: p };
  } catch (e) {
    return { unknown: `${p} is not valid JSON: ${(e as Error).message}` };
  }
}
