/**
 * Where `device_map="auto"` (and "balanced", "balanced_low_0", "sequential")
 * puts each module, following accelerate's algorithm step by step
 * (huggingface/accelerate src/accelerate/utils/modeling.py, v1.15.0:
 * `get_balanced_memory`, `get_max_layer_size`, `infer_auto_device_map`) and
 * transformers' copy of it that `from_pretrained` runs
 * (src/transformers/integrations/accelerate.py, v5.x: `_get_device_map`,
 * `get_balanced_memory`, `infer_auto_device_map`):
 *
 * 1. Balance ("auto", "balanced", "balanced_low_0"): every listed GPU but the
 *    last gets a cap of min(its max_memory, total // n + buffer), where
 *    buffer = int(1.25 × max(largest no-split block, X)); X is the mean size
 *    of the leaf modules in accelerate, the largest leaf module in
 *    transformers ≥ 5. The last GPU keeps its max_memory. One GPU with no
 *    max_memory given keeps 90% of its memory. "balanced_low_0" gives GPU 0
 *    only what the others cannot hold.
 * 2. Fill in order: modules are taken in definition order; one goes on the
 *    current device when it fits under the cap minus, on the first GPU and
 *    on the CPU (the "main devices"), the largest unsplittable layer still to
 *    place (room to bring an offloaded layer back); a module that does not fit
 *    is split into its children unless it is a no-split block or a leaf;
 *    otherwise the device is closed and the next one (GPUs in index order,
 *    then "cpu" when listed, then "disk") is tried. A device is never
 *    revisited.
 *
 * The tree given here holds the modules oomlens sizes (embeddings, decoder
 * layers as no-split blocks, norms, heads); modules holding no tensors are
 * not in accelerate's size table either, and tiny non-persistent buffers
 * (rotary `inv_freq`) are left out (bytes, not a layer's worth). Checked
 * against the real accelerate and transformers on meta-device models in
 * test/analysis/max_memory.test.ts (test/python/hf_device_map.py).
 */
export interface ModuleSize { name: string; bytes: number }

/** A module in load order: its bytes (children included), its children, and whether it may be split. */
export interface PlaceNode { name: string; bytes: number; children: PlaceNode[]; noSplit: boolean }

/** A device of the map: a GPU index, the host's RAM, or disk offload. */
export type MapDevice = number | 'cpu' | 'disk';

export interface DevicePlan {
  /** Module name (the tree's leaves and no-split blocks) → device. */
  assignment: Record<string, MapDevice>;
  /** Bytes placed per GPU index (0 .. deviceCount - 1). */
  perDevice: number[];
  /** Bytes placed on the CPU and on disk. */
  cpuBytes: number;
  diskBytes: number;
  /** Modules that went to disk (no GPU nor CPU had room). */
  unplaced: string[];
  /** The caps used, per device, after balancing. */
  caps: Partial<Record<string, number>>;
  /**
   * False when accelerate's balance buffer depends on the mean leaf-module size, which the tree
   * cannot give exactly (the caps may then differ); always true for the transformers variant.
   */
  exact: boolean;
  formula: string;
  citation: string;
}

export type MapMode = 'auto' | 'balanced' | 'balanced_low_0' | 'sequential';

export interface MapOptions {
  mode: MapMode;
  /** GPU index → bytes, as listed in max_memory (or the target's memory when it is not given). */
  gpus: Record<number, number>;
  /** "cpu" bytes when listed (Infinity: listed, size not known). */
  cpu?: number;
  /** Whether the user gave max_memory (one GPU without it keeps 90%). */
  userSet: boolean;
  /** Whose copy of the algorithm runs: from_pretrained (transformers ≥ 5) or accelerate's load_checkpoint_and_dispatch. */
  variant: 'transformers' | 'accelerate';
  /** Number of GPUs of the target (for perDevice). */
  deviceCount: number;
  /**
   * A factor on every cap after balancing: transformers' bitsandbytes quantizers keep 10% free for the buffers
   * quantisation creates (quantizers/quantizer_bnb_4bit.py, quantizer_bnb_8bit.py `adjust_max_memory`: × 0.90).
   */
  capScale?: number;
}

/**
 * Builds the module tree from flat, load-ordered sizes (`model.embed_tokens`, `model.layers.0`, …,
 * `lm_head`): a name ending in a number is a decoder block of a ModuleList (transformers'
 * `_no_split_modules`), every entry is unsplittable (its inner modules are not listed), and the
 * parents (`model`, `model.layers`) are containers that may be split. Repeated names add up.
 */
export function treeFromSizes(mods: ModuleSize[]): PlaceNode[] {
  const root: PlaceNode = { name: '', bytes: 0, children: [], noSplit: false };
  const byName = new Map<string, PlaceNode>([['', root]]);
  const node = (name: string): PlaceNode => {
    let n = byName.get(name);
    if (n) return n;
    const dot = name.lastIndexOf('.');
    const parent = node(dot < 0 ? '' : name.slice(0, dot));
    n = { name, bytes: 0, children: [], noSplit: false };
    parent.children.push(n);
    byName.set(name, n);
    return n;
  };
  for (const m of mods) {
    const n = node(m.name);
    n.noSplit = true;
    for (let p = m.name; ; p = p.slice(0, p.lastIndexOf('.'))) {
      byName.get(p)!.bytes += m.bytes;
      if (!p.includes('.')) break;
    }
    root.bytes += m.bytes;
  }
  return root.children;
}

const unsplittable = (n: PlaceNode) => n.noSplit || n.children.length === 0;

/** get_max_layer_size: the largest module that cannot be split (a no-split block or a leaf), and its names. */
function maxLayer(nodes: PlaceNode[]): { size: number; names: string[] } {
  let size = 0;
  let names: string[] = [];
  const todo = [...nodes];
  while (todo.length) {
    const n = todo.shift()!;
    if (unsplittable(n)) {
      if (n.bytes > size) { size = n.bytes; names = [n.name]; } else if (n.bytes === size) names.push(n.name);
    } else todo.unshift(...n.children);
  }
  return { size, names };
}

function walk(nodes: PlaceNode[], f: (n: PlaceNode) => void): void {
  for (const n of nodes) { f(n); walk(n.children, f); }
}

/**
 * get_balanced_memory: the caps each GPU gets for "auto" / "balanced" / "balanced_low_0" (unchanged for
 * "sequential"), GPU index → bytes, with "cpu" kept as given.
 */
export function balancedMemory(top: PlaceNode[], o: Omit<MapOptions, 'deviceCount'>): { mem: Record<string, number>; exact: boolean; formula: string } {
  const total = top.reduce((a, n) => a + n.bytes, 0);
  const gpuIdx = Object.keys(o.gpus).map(Number).filter((i) => Number.isInteger(i) && i >= 0).sort((a, b) => a - b);
  const mem: Record<string, number> = {};
  for (const g of gpuIdx) mem[g] = o.gpus[g];
  if (o.cpu !== undefined) mem.cpu = o.cpu;
  let exact = true;
  let balance = '';
  if (o.mode !== 'sequential') {
    const active = gpuIdx.filter((g) => mem[g] > 0);
    const n = active.length;
    let lowZero = o.mode === 'balanced_low_0';
    if (n === 1) {
      lowZero = false;
      if (!o.userSet) mem[active[0]] = Math.floor(mem[active[0]] * 0.9);
    }
    if (n > 0) {
      let noSplitMax = 0;
      let leafMax = 0;
      let leaves = 0;
      walk(top, (x) => {
        if (x.noSplit) noSplitMax = Math.max(noSplitMax, x.bytes);
        if (unsplittable(x)) { leafMax = Math.max(leafMax, x.bytes); leaves++; }
      });
      let other: number;
      if (o.variant === 'transformers') other = leafMax;
      else {
        // accelerate: the mean over leaf modules. A block's inner leaves are not in the tree; counting
        // each block as one leaf gives an upper bound on the mean, exact in effect when it stays below
        // the largest block (then the block decides the buffer).
        other = Math.floor(total / Math.max(1, leaves));
        if (other > noSplitMax) exact = false;
      }
      const buffer = Math.floor(1.25 * Math.max(noSplitMax, other));
      const perGpu = Math.floor(total / (lowZero ? n - 1 : n)) + buffer;
      for (const g of active.slice(0, -1)) mem[g] = Math.min(lowZero && g === active[0] ? mem[g] : perGpu, mem[g]);
      if (lowZero) {
        const rest = active.slice(1).reduce((a, g) => a + mem[g], 0);
        mem[active[0]] = Math.min(Math.max(0, total - rest), mem[active[0]]);
      }
      balance = `balanced caps: total ${total} B // ${lowZero ? n - 1 : n} GPU(s) + buffer ${buffer} B (1.25 × max(largest no-split block ${noSplitMax} B, ${o.variant === 'transformers' ? `largest leaf ${leafMax}` : `mean leaf ≤ ${other}`} B)) on all but the last GPU; `;
    }
  }
  return { mem, exact, formula: balance };
}

export function inferDeviceMap(top: PlaceNode[], o: MapOptions): DevicePlan {
  const gpuIdx = Object.keys(o.gpus).map(Number).filter((i) => Number.isInteger(i) && i >= 0).sort((a, b) => a - b);
  const { mem, exact, formula: balance } = balancedMemory(top, o);
  if (o.capScale !== undefined) for (const k of Object.keys(mem)) mem[k] *= o.capScale;

  // infer_auto_device_map
  const devices: MapDevice[] = [...gpuIdx, ...(o.cpu !== undefined ? ['cpu' as const] : []), 'disk'];
  const main = new Set<MapDevice>(gpuIdx.length ? [gpuIdx[0], 'cpu'] : ['cpu']);
  const used = new Map<MapDevice, number>(devices.map((d) => [d, 0]));
  const assignment: Record<string, MapDevice> = {};
  let todo = [...top];
  let cur = 0;
  let { size: maxSize, names: maxNames } = maxLayer(todo);
  while (todo.length) {
    const m = todo.shift()!;
    maxNames = maxNames.filter((x) => x !== m.name && !x.startsWith(`${m.name}.`));
    if (!maxNames.length) ({ size: maxSize, names: maxNames } = maxLayer(todo));
    const dev = devices[cur];
    let cap = dev === 'disk' ? Infinity : mem[String(dev)] ?? 0;
    let reserved = 0;
    if (main.has(dev) && dev !== 'disk') { cap -= maxSize; reserved = maxSize; }
    if (used.get(dev)! + m.bytes <= cap) {
      used.set(dev, used.get(dev)! + m.bytes);
      assignLeaves(m, dev, assignment);
      continue;
    }
    if (!unsplittable(m)) {
      todo = [...m.children, ...todo];
      ({ size: maxSize, names: maxNames } = maxLayer(todo));
      continue;
    }
    used.set(dev, used.get(dev)! + reserved);
    cur++;
    todo.unshift(m);
  }

  const perDevice = new Array<number>(Math.max(1, o.deviceCount)).fill(0);
  let cpuBytes = 0;
  let diskBytes = 0;
  const unplaced: string[] = [];
  const sizeOf = new Map<string, number>();
  walk(top, (x) => { if (unsplittable(x)) sizeOf.set(x.name, x.bytes); });
  for (const [name, d] of Object.entries(assignment)) {
    const b = sizeOf.get(name) ?? 0;
    if (d === 'cpu') cpuBytes += b;
    else if (d === 'disk') { diskBytes += b; unplaced.push(name); } else if (d < perDevice.length) perDevice[d] += b;
  }
  const caps: Partial<Record<string, number>> = { ...mem };
  return {
    assignment, perDevice, cpuBytes, diskBytes, unplaced, caps, exact,
    formula: `${balance}modules placed in order on ${devices.map((d) => (typeof d === 'number' ? `GPU ${d} (cap ${mem[d]} B)` : d === 'cpu' ? `cpu (${mem.cpu === Infinity ? 'its free RAM' : `cap ${mem.cpu} B`})` : 'disk')).join(', ')}, keeping room for the largest layer still to place on GPU ${gpuIdx[0] ?? '-'} and the CPU`,
    citation: o.variant === 'transformers'
      ? 'transformers v5 integrations/accelerate.py _get_device_map, get_balanced_memory, infer_auto_device_map'
      : 'accelerate v1.15.0 utils/modeling.py get_balanced_memory, infer_auto_device_map (big_modeling.py load_checkpoint_and_dispatch)',
  };
}

function assignLeaves(n: PlaceNode, d: MapDevice, out: Record<string, MapDevice>): void {
  if (unsplittable(n)) out[n.name] = d;
  else for (const c of n.children) assignLeaves(c, d, out);
}

/**
 * accelerate's convert_file_size_to_int (utils/modeling.py, v1.15.0): an int is bytes; "GiB"/"MiB"/"KiB"
 * are powers of 2, "GB"/"MB"/"KB" powers of 10, and a lower-case final "b" ("5Gb") means bits (÷ 8).
 * Anything else is an error in accelerate too.
 */
export function fileSizeToInt(s: string): number | undefined {
  const m = /^\s*([\d.]+(?:e[+-]?\d+)?)\s*(GIB|MIB|KIB|GB|MB|KB)$/i.exec(s);
  if (!m) return undefined;
  const v = Number(m[1]);
  if (!Number.isFinite(v)) return undefined;
  const u = m[2].toUpperCase();
  if (u.endsWith('IB')) return Math.floor(v * 2 ** ({ GIB: 30, MIB: 20, KIB: 10 } as Record<string, number>)[u]);
  const bytes = Math.floor(v * 10 ** ({ GB: 9, MB: 6, KB: 3 } as Record<string, number>)[u]);
  return s.trimEnd().endsWith('b') ? Math.floor(bytes / 8) : bytes;
}
