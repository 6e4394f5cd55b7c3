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
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
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

// ---------------------------------------------------------------------------
// Checkpoint files: exact tensor counts without reading the weights.

export interface StoredTensor { name: string; dtype: string; shape: number[] }

export interface LocalWeights {
  /** Every tensor of the checkpoint, from the safetensors headers; absent when only an index's total size is known. */
  tensors?: StoredTensor[];
  /** metadata.total_size of a sharded checkpoint's index (bytes as stored). */
  totalBytes?: number;
  /** The files read, for notes. */
  source: string;
}

/**
 * The directory from_pretrained reads for `modelId`: a local folder (relative
 * ids against `baseDir`, the analysed file's folder), else the hub cache
 * snapshot `refs/main` points to, else any snapshot; undefined when not on disk.
 */
export function checkpointDir(modelId: string, env: NodeJS.ProcessEnv = process.env, baseDir?: string): string | undefined {
  const id = modelId.trim();
  const local = isAbsolute(id) || !baseDir ? id : resolve(baseDir, id);
  if (id && isDir(local)) return local;
  const clean = id.replace(/\/+$/, '');
  if (!/^[\w.-]+(\/[\w.-]+)?$/.test(clean)) return undefined;
  const repo = join(hubCacheDir(env), `models--${clean.replace(/\//g, '--')}`);
  const snaps = join(repo, 'snapshots');
  if (!isDir(snaps)) return undefined;
  try {
    const ref = readFileSync(join(repo, 'refs', 'main'), 'utf8').trim();
    if (ref && isDir(join(snaps, ref))) return join(snaps, ref);
  } catch {
    // No refs/main: a snapshot downloaded by commit.
  }
  const revs = readdirSync(snaps).sort().filter((r) => isDir(join(snaps, r)));
  return revs.length ? join(snaps, revs[0]) : undefined;
}

/**
 * The config.json of folder `sub` of a checkpoint on disk (a diffusers pipeline's `unet`, `vae`, `text_encoder`):
 * `{ config, path, dir }`, `{ unknown }` when the file is not valid JSON, undefined when not on disk.
 */
export function readLocalSubfolder(modelId: string, sub: string, env: NodeJS.ProcessEnv = process.env, baseDir?: string): (LocalConfig & { dir: string }) | { unknown: string } | undefined {
  const root = checkpointDir(modelId, env, baseDir);
  if (!root || !sub || sub.split(/[\\/]/).includes('..')) return undefined;
  const dir = join(root, sub);
  const p = join(dir, 'config.json');
  if (!existsSync(p)) return undefined;
  const r = parse(p);
  return 'config' in r ? { ...r, dir } : r;
}

/** Bytes per element of each safetensors dtype (huggingface/safetensors safetensors/src/tensor.rs `Dtype::bitsize`). */
export const SAFETENSORS_DTYPE_BYTES: Record<string, number> = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, I16: 2, U16: 2, F16: 2, BF16: 2, I32: 4, U32: 4, F32: 4, I64: 8, U64: 8, F64: 8,
};

/**
 * A safetensors file's header: the first 8 bytes are the header length N
 * (little-endian u64), then N bytes of JSON mapping each tensor name to
 * { dtype, shape, data_offsets } (and an optional "__metadata__"), as the
 * format specifies (huggingface/safetensors README "Format"). Only the
 * header is read, never the weights.
 */
export function readSafetensorsHeader(path: string): StoredTensor[] | { unknown: string } {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const lenBuf = Buffer.alloc(8);
    if (readSync(fd, lenBuf, 0, 8, 0) !== 8) return { unknown: `${path}: shorter than the 8-byte safetensors header length` };
    const n = Number(lenBuf.readBigUInt64LE(0));
    if (!Number.isSafeInteger(n) || n <= 0 || n > 100_000_000) return { unknown: `${path}: implausible safetensors header length ${n}` };
    const buf = Buffer.alloc(n);
    if (readSync(fd, buf, 0, n, 8) !== n) return { unknown: `${path}: truncated safetensors header` };
    const h = JSON.parse(buf.toString('utf8')) as Record<string, { dtype?: unknown; shape?: unknown }>;
    const out: StoredTensor[] = [];
    for (const [name, t] of Object.entries(h)) {
      if (name === '__metadata__') continue;
      if (typeof t?.dtype !== 'string' || !Array.isArray(t.shape) || !t.shape.every((d) => Number.isInteger(d) && d >= 0)) return { unknown: `${path}: tensor ${name} has no dtype/shape` };
      out.push({ name, dtype: t.dtype, shape: t.shape as number[] });
    }
    return out;
  } catch (e) {
    return { unknown: `${path}: not a readable safetensors file (${(e as Error).message})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The weights of a checkpoint directory, in from_pretrained's order of
 * preference (transformers modeling_utils.py: model.safetensors.index.json /
 * model.safetensors before pytorch_model.bin.index.json / pytorch_model.bin):
 * every shard's safetensors header when the shards are present, else the
 * index's metadata.total_size.
 */
export function readLocalWeights(dir: string, stem = 'model'): LocalWeights | { unknown: string } | undefined {
  // diffusers names its files diffusion_pytorch_model.safetensors / .bin (diffusers utils/constants.py
  // SAFETENSORS_WEIGHTS_NAME, WEIGHTS_NAME); transformers model.safetensors / pytorch_model.bin.
  const st = join(dir, `${stem}.safetensors`);
  const stIndex = join(dir, `${stem}.safetensors.index.json`);
  const binIndex = join(dir, stem === 'model' ? 'pytorch_model.bin.index.json' : `${stem}.bin.index.json`);
  if (existsSync(stIndex)) {
    let idx: { metadata?: { total_size?: unknown }; weight_map?: Record<string, string> };
    try { idx = JSON.parse(readFileSync(stIndex, 'utf8')); } catch (e) { return { unknown: `${stIndex} is not valid JSON: ${(e as Error).message}` }; }
    const shards = [...new Set(Object.values(idx.weight_map ?? {}))];
    if (shards.length && shards.every((s) => existsSync(join(dir, s)))) {
      const tensors: StoredTensor[] = [];
      for (const s of shards) {
        const h = readSafetensorsHeader(join(dir, s));
        if ('unknown' in h) return h;
        tensors.push(...h);
      }
      return { tensors, source: `${shards.length} safetensors shard header(s) listed in model.safetensors.index.json` };
    }
    const total = idx.metadata?.total_size;
    if (typeof total === 'number') return { totalBytes: total, source: 'model.safetensors.index.json metadata.total_size' };
    return { unknown: `${stIndex}: shards not on disk and no metadata.total_size` };
  }
  if (existsSync(st)) {
    const h = readSafetensorsHeader(st);
    return 'unknown' in h ? h : { tensors: h, source: 'model.safetensors header' };
  }
  if (existsSync(binIndex)) {
    try {
      const idx = JSON.parse(readFileSync(binIndex, 'utf8')) as { metadata?: { total_size?: unknown } };
      if (typeof idx.metadata?.total_size === 'number') return { totalBytes: idx.metadata.total_size, source: 'pytorch_model.bin.index.json metadata.total_size' };
    } catch (e) {
      return { unknown: `${binIndex} is not valid JSON: ${(e as Error).message}` };
    }
  }
  return undefined;
}
