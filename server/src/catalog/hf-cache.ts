/**
 * Reads a checkpoint's config.json from the local Hugging Face cache
 * ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub; layout
 * models--{org}--{name}/snapshots/<rev>/config.json) or from a local
 * directory. Never the network. (Bootstrap version.)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function readLocalConfig(modelId: string, env: NodeJS.ProcessEnv = process.env): { config: Record<string, unknown>; path: string } | { unknown: string } | undefined {
  const candidates: string[] = [];
  if (existsSync(join(modelId, 'config.json'))) candidates.push(join(modelId, 'config.json'));
  else {
    const hub = env.HF_HUB_CACHE ?? (env.HF_HOME ? join(env.HF_HOME, 'hub') : join(homedir(), '.cache', 'huggingface', 'hub'));
    const dir = join(hub, `models--${modelId.replace(/\//g, '--')}`, 'snapshots');
    if (existsSync(dir)) for (const rev of readdirSync(dir)) candidates.push(join(dir, rev, 'config.json'));
  }
  for (const p of candidates) {
    if (!existsSync(p)) continue;
    try {
      return { config: JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>, path: p };
    } catch (e) {
      return { unknown: `${p} is not valid JSON: ${(e as Error).message}` };
    }
  }
  return undefined;
}
