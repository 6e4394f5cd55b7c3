/**
 * Records the accelerator allocations the interpreter implies, per model and
 * phase, as the engine's MemoryEvent timeline. Liveness follows Python: a
 * buffer stays alive while a name, an object attribute, a closure or an
 * unfinished expression still refers to it, so `self.layers = to_dtype(...)`
 * keeps the float32 stack alive until the float16 copy is complete, exactly
 * as in CPython. Inside `jax.jit` intermediates are virtual (XLA fuses or
 * frees them); only the outputs are materialised when the call returns.
 */
import type { MemoryEvent, PhaseName, Placement, Span, Unknown } from '../../../shared/src/facts';
import type { DType } from '../../../shared/src/facts';
import type { Dim } from './catalog-types';
import type { CallArgs, Interpreter } from './interp';
import type { SyntaxNode } from './parser';
import type { Env, TensorV, Value } from './values';
import type { CastSite, VmapSite } from '../frameworks/jax/stack-sites';

export interface ModelRecord {
  name: string;
  framework: 'equinox' | 'flax' | 'haiku' | 'jax' | 'torch' | 'transformers';
  span: Span;
  definitionSpan?: Span;
  phase: PhaseName;
  events: MemoryEvent[];
  live: Map<number, TensorV>;
  unknowns: Unknown[];
  /** Unknowns of the record's own phase only (its peak), not of its size: the count stays exact. */
  phaseUnknowns?: Unknown[];
  notes: string[];
  jitted: boolean;
  /** Eager JAX frees buffers when the last reference goes: track it. */
  gc: boolean;
  /** How many assignment targets were open when the model started (labels drop them). */
  targetBase: number;
  /** Begun while an imported module's body ran (module-level code of another file): that file reports it. */
  atImport?: boolean;
  /** For a model built by another file's code: the main file's call that reached it. */
  entrySpan?: Span;
  /**
   * For a model built by another file's code: the call sites that led there, innermost first, one per file
   * (train.py's call of a helper in utils.py that initialises the model), so that the file whose function
   * started the build can report it.
   */
  viaSpans?: Span[];
  /** The value the construction produced (the model object or the params tree). */
  result?: Value;
  /** Tensors that are parameters, if the framework model says which (else: all tensors reachable from result). */
  params?: TensorV[];
  /** Extra facts the rules read (vmapped constructions, casts, random init under sharding...). */
  observations: Observation[];
  /**
   * Begun by a construction outside any Module constructor (a vmapped layer stack in a builder function or
   * in module-level code): it lasts to the end of the module-level statement that made it, and a later
   * statement that casts its arrays, or a Module constructor given them, continues it (Memory.beginLoose /
   * resumeLoose). The number is the frame depth at or above which a statement's end ends it: the caller of
   * the function that built the stack (or the module level).
   */
  loose?: number;
  /**
   * Begun by a random draw or an initializer call in plain JAX code (no framework Module): it is a model only
   * if the statement that ends it binds a parameter tree (a dict, list, tuple or plain object) whose every
   * array it made (jax/plain-init.ts). `calls` are the call sites that led to the first draw.
   */
  plainInit?: { calls: { node: SyntaxNode; call: CallArgs }[]; gradCalls: number };
}

export type Observation =
  | {
      kind: 'vmap-construct'; span: Span; batch: number; bytes: number; dtypes: DType[]; target?: string; group: string;
      jitted: boolean;
      /** The parameter buffers the construction made (casts of them are matched by id). */
      ids: number[];
      /** The nodes a fix rewrites (frameworks/jax/stack-sites.ts). */
      site?: VmapSite;
    }
  | {
      kind: 'cast-copy'; span: Span; from: DType; to: DType; bytes: number; group: string; inVmapGroup?: string;
      /** The buffer that was copied. */
      sourceId: number;
      /** Where the copy was asked for, when the source is a leaf of a vmapped stack (frameworks/jax/stack-sites.ts). */
      site?: CastSite;
    }
  | { kind: 'random-sharded'; span: Span; elements: number; shards: number; partitionable: boolean; transientBytes: number; label: string; initSpan?: Span }
  | {
      kind: 'eager-init'; span: Span; framework: string;
      /** The init callee (`model.init`), and how this file spells `jax.jit` (with the import to add when it does not import jax). */
      callee?: Span; jit?: string; jitImport?: { at: number; text: string };
      /** Plain JAX: the init function's arguments jit must take as static (shapes, sizes). */
      static?: { argnums: number[]; argnames: string[] };
      /** Plain JAX: the expression that built the tree in place (no init function to wrap). */
      expression?: Span;
    }
  | { kind: 'jit-init'; span: Span };

export interface AllocSpec {
  shape: Dim[];
  dtype: DType;
  role: TensorV['role'];
  /** Name inside its layer, e.g. 'weight'. */
  name?: string;
  span?: Span;
  random?: boolean;
  sampler?: TensorV['sampler'];
  partition?: (string | null)[];
  note?: string;
  citation?: string;
  /** Set for dtype casts: the group says "float16 copy". */
  castFrom?: DType;
  placement?: Placement;
  /** Do not add the vmap batch axes (the value already has them). */
  noBatch?: boolean;
  /** The arrays the shape was computed from: when one already carries every
   *  vmap axis (it was made inside the same vmap), the axes are not added again. */
  from?: TensorV[];
  lib?: 'jax' | 'torch';
  /** Label path to use instead of the assignment targets (flax/haiku parameter scopes such as "Dense_0"). */
  path?: string[];
}

/** One traced op (a catalogue op or layer call): what it read and made, for the saved-tensor model (phases/saved.ts). */
export interface OpEvent {
  op: string; inputs: TensorV[]; outputs: TensorV[]; args?: Record<string, unknown>;
  /** A layer's own parameters (a module called as one op): its backward writes their gradients. */
  params?: TensorV[];
}

interface JitFrame {
  /** Model records begun while this (outermost) jitted call ran. */
  built?: ModelRecord[];
  node: SyntaxNode;
  mesh?: Map<string, number | undefined>;
  transients: MemoryEvent[];
  /** Work to do once the outputs are materialised (ending a model started inside the jit). */
  onExit: (() => void)[];
}

/** A finished record that stands for a model: it has a result or at least one event. */
function isReported(r: ModelRecord): boolean {
  return r.result !== undefined || r.events.length > 0;
}

/** What `Memory.watch` keeps: a log of moves and the unreported records, or a full copy of `finished`. */
export interface Watch {
  unreported?: Set<ModelRecord>;
  log?: { r: ModelRecord; entered: boolean }[];
  full?: { records: ModelRecord[]; reported: boolean[] };
}

/** `firstReportedSince` from a full copy: the first reported record now that was not reported in the copy. */
function firstNew(after: ModelRecord[], snap: { records: ModelRecord[]; reported: boolean[] }): ModelRecord | undefined {
  const before = new Set<ModelRecord>();
  snap.records.forEach((r, i) => { if (snap.reported[i]) before.add(r); });
  return after.find((r) => isReported(r) && !before.has(r));
}

export class Memory {
  readonly recorders: ModelRecord[] = [];
  readonly finished: ModelRecord[] = [];

  /** The finished records that stand for a model (a result or at least one event). */
  reported(): ModelRecord[] {
    return this.finished.filter(isReported);
  }

  /** How many finished records stand for a model, counted up to `limit` (`reported().length` without the list). */
  reportedCount(limit = Infinity): number {
    let n = 0;
    for (const r of this.finished) if (isReported(r) && ++n >= limit) break;
    return n;
  }

  /**
   * Watches `finished` from now on, for `firstReportedSince`: a build from defaults asks which model record
   * it added. The answer is found from the records that entered or left `finished` meanwhile (a log kept
   * while watching) and the records that were not reported when they ended (few), not from a copy of every
   * finished record (one per build made the builds quadratic in the models). Once a record has been in
   * `finished` twice at the same time, a full copy is taken instead.
   */
  watch(): Watch {
    if (this.duplicated) return { full: { records: this.finished.slice(), reported: this.finished.map(isReported) } };
    const unreported = new Set<ModelRecord>();
    for (const r of this.unreportedAtEnd) {
      if (isReported(r)) this.unreportedAtEnd.delete(r);
      else if (this.inFinished.get(r)) unreported.add(r);
    }
    this.log = [];
    return { unreported, log: this.log };
  }

  /** The first record that `reported()` holds now and did not hold when `w` was taken, in `reported()` order. */
  firstReportedSince(w: Watch): ModelRecord | undefined {
    if (this.log === w.log) this.log = undefined;
    if (w.full) return firstNew(this.finished, w.full);
    // Whether each record that moved since was in `finished` then: the opposite of its first move.
    const wasIn = new Map<ModelRecord, boolean>();
    for (const m of w.log!) if (!wasIn.has(m.r)) wasIn.set(m.r, !m.entered);
    const found = new Set<ModelRecord>();
    const consider = (r: ModelRecord, wasReported: boolean) => { if (this.inFinished.get(r) && isReported(r) && !wasReported) found.add(r); };
    // Records in `finished` throughout: new only if they were not reported then and are now.
    for (const r of w.unreported!) if (!wasIn.has(r)) consider(r, false);
    // Records that moved: new unless they were in `finished`, and reported, when the watch began.
    for (const [r, was] of wasIn) consider(r, was && !w.unreported!.has(r));
    if (found.size <= 1 || this.duplicated) return found.size <= 1 ? found.values().next().value : this.finished.find((r) => found.has(r));
    // `finished` grows only at its end and keeps its order: the earliest to enter is the first there.
    let best: ModelRecord | undefined;
    for (const r of found) if (!best || this.enteredAt.get(r)! < this.enteredAt.get(best)!) best = r;
    return best;
  }

  readonly vmap: number[] = [];
  jitDepth = 0;
  abstractDepth = 0;
  private readonly jits: JitFrame[] = [];
  private nextId = 1;
  /** Values that must stay alive though no frame names them (objects under construction). */
  readonly pins: Value[] = [];
  /** Extra roots supplied by framework models (e.g. the parameters an init has created so far). */
  readonly rootProviders: (() => Value[])[] = [];
  /**
   * Buffers allocated since the last statement boundary. A library call may
   * allocate several buffers before returning them; until the statement that
   * called it ends they count as referenced, as they are in CPython.
   */
  private readonly fresh = new Set<number>();

  constructor(private readonly it: Interpreter) {}

  get current(): ModelRecord | undefined {
    return this.recorders[this.recorders.length - 1];
  }

  /** Unknowns that every model begun from now on inherits (a branch taken on a missing command-line value). */
  readonly taints: Unknown[] = [];
  /** Unknowns of the bytes, not the count, of every model begun from now on (built under a torch mode: its dtype). */
  readonly phaseTaints: Unknown[] = [];

  begin(rec: Omit<ModelRecord, 'events' | 'live' | 'unknowns' | 'notes' | 'targetBase' | 'observations'>): ModelRecord {
    const r: ModelRecord = { ...rec, events: [], live: new Map(), unknowns: [...this.taints], notes: [], targetBase: this.it.targets.length, observations: [], ...(this.phaseTaints.length ? { phaseUnknowns: [...this.phaseTaints] } : {}) };
    if (this.jits.length) (this.jits[0].built ??= []).push(r);
    if (this.it.importDepth > 0) r.atImport = true;
    // Built by code of another file: remember the main file's call that led there (where the editor shows it).
    if (rec.span.file) {
      const via: Span[] = [];
      for (let i = this.it.callSites.length - 1; i >= 0; i--) {
        const s = this.it.span(this.it.callSites[i].node);
        if (!s.file) { r.entrySpan = s; break; }
        if (s.file !== rec.span.file && !via.some((v) => v.file === s.file)) via.push(s);
      }
      if (via.length) r.viaSpans = via;
    }
    this.recorders.push(r);
    return r;
  }

  /**
   * Traces `fn` in a scratch record that is not a model: it is ended and taken out of `finished`, so
   * only the caller sees its events (a forward traced for the activations it allocates).
   */
  aside<T>(spec: Parameters<Memory['begin']>[0], fn: (rec: ModelRecord) => T): { value: T; rec: ModelRecord } {
    const rec = this.begin(spec);
    try {
      return { value: fn(rec), rec };
    } finally {
      this.end(rec);
      const k = this.finished.indexOf(rec);
      if (k >= 0) this.removeFinished(k);
    }
  }

  /**
   * A record for parameters made outside any Module constructor. It stays current until the module-level
   * statement that is running ends (Interpreter.exec calls endLoose), so a builder function's cast and
   * the Module that receives the stack belong to it, as they belong to one `__init__` otherwise.
   */
  beginLoose(spec: Parameters<Memory['begin']>[0]): ModelRecord {
    const r = this.begin(spec);
    r.loose = Math.max(1, this.it.frames.length - 1);
    return r;
  }

  /**
   * A plain-JAX init record ends at the end of a statement in a function that returns no value, or at module
   * level: a function that returns a value (an `init_params` or an `init_layer` it calls) is building what it
   * returns, and its caller's statement binds the tree.
   */
  private deferPlainInit(stmt: SyntaxNode | undefined): boolean {
    for (let p = stmt?.parent; p; p = p.parent) {
      if (p.type === 'lambda') return true;
      if (p.type !== 'function_definition') continue;
      let returns = false;
      const walk = (n: SyntaxNode): void => {
        if (returns) return;
        if (n.id !== p!.id && (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda')) return;
        if (n.type === 'return_statement' && n.namedChildren.some((c) => c && c.type !== 'none')) { returns = true; return; }
        for (const c of n.namedChildren) if (c) walk(c);
      };
      walk(p);
      return returns;
    }
    return false;
  }

  /**
   * A plain-JAX init record is only a candidate until its statement binds a tree: when a model is built or
   * run, or a gradient taken, while it is current, its draws were that computation's inputs, not parameters.
   * It is dropped so that the model, forward or step sees what it would see without it.
   */
  abortPlainInit(): void {
    if (this.current?.plainInit) this.recorders.pop();
  }

  /** Drops a loose record that made no parameters (a vmap of plain arrays). */
  dropLoose(r: ModelRecord): void {
    const i = this.recorders.lastIndexOf(r);
    if (i >= 0) this.recorders.splice(i, 1);
  }

  /**
   * When nothing is being built and `t` is a live array of a finished loose record, that record continues
   * (the statement casts the stack that module-level code built): its timeline keeps the old copy alive
   * next to the new one until the statement rebinds the name.
   */
  resumeLoose(t: TensorV): void {
    if (this.current) return;
    for (let k = this.finished.length - 1; k >= 0; k--) {
      const r = this.finished[k];
      if (!r.loose || r.atImport || !r.live.has(t.id)) continue;
      this.removeFinished(k);
      this.recorders.push(r);
      r.loose = this.it.frames.length;
      return;
    }
  }

  /** At the end of a module-level statement: ends the loose record, its result the value the statement bound when that holds its arrays. */
  endLoose(bound: Value | undefined, stmt?: SyntaxNode): void {
    const r = this.current;
    if (!r?.loose || this.recorders.length !== 1 || this.it.frames.length > r.loose) return;
    if (r.plainInit) {
      if (this.deferPlainInit(stmt)) return;
      this.recorders.pop();
      if (this.it.plainInitEnd?.(r, bound, stmt)) this.pushFinished(r);
      return;
    }
    if (bound) {
      const mine = new Set<number>();
      for (const ev of r.events) if (ev.op === 'alloc') mine.add(ev.tensor.id);
      let holds = false;
      visitTensors(bound, (t) => { if (mine.has(t.id)) holds = true; });
      if (holds) {
        r.result = bound;
        if (bound.t === 'inst' && !bound.cls.entry) r.name = bound.cls.name;
        // Every array leaf of an Equinox module is a parameter (as Interpreter __setattr__ marks them), also
        // when a tree map rebuilt the module outside any constructor.
        if (bound.t === 'inst' && bound.cls.kind === 'equinox') visitTensors(bound, (t) => { if (t.role === 'activation' || t.role === 'input') t.role = 'param'; });
      }
    }
    this.end(r);
  }

  end(r: ModelRecord): void {
    const i = this.recorders.lastIndexOf(r);
    if (i >= 0) this.recorders.splice(i, 1);
    this.pushFinished(r);
  }

  /** Puts `r` at the end of `finished` (every addition goes through here: `watch` and the index by result follow them). */
  private pushFinished(r: ModelRecord): void {
    this.finished.push(r);
    const n = (this.inFinished.get(r) ?? 0) + 1;
    this.inFinished.set(r, n);
    if (n > 1) this.duplicated = true;
    this.enteredAt.set(r, ++this.clock);
    this.log?.push({ r, entered: true });
    if (!isReported(r)) this.unreportedAtEnd.add(r);
    const res = r.result;
    if (res === undefined) this.endedWithoutResult.push(r);
    else {
      const l = this.byResult.get(res);
      if (l) l.push(r); else this.byResult.set(res, [r]);
    }
  }

  /** Takes the record at `i` out of `finished` (every removal goes through here: `watch` follows them). */
  removeFinished(i: number): void {
    const [r] = this.finished.splice(i, 1);
    if (!r) return;
    this.inFinished.set(r, (this.inFinished.get(r) ?? 1) - 1);
    this.log?.push({ r, entered: false });
  }

  /** How many times each record is in `finished` now. */
  private readonly inFinished = new Map<ModelRecord, number>();
  /** When each record last entered `finished` (its order there: `finished` grows only at its end). */
  private readonly enteredAt = new Map<ModelRecord, number>();
  private clock = 0;
  /** A record was in `finished` twice at once: `watch` copies `finished` from then on. */
  private duplicated = false;
  /** Records that were not reported when they ended (pruned as they become reported). */
  private readonly unreportedAtEnd = new Set<ModelRecord>();
  /** Moves in and out of `finished` while a `watch` is open. */
  private log?: { r: ModelRecord; entered: boolean }[];

  /**
   * The record latest in `finished` whose result is `v` now (what a backwards scan of `finished` finds),
   * from the index by result instead of the whole list: a file with thousands of models asks once per model.
   */
  lastFinishedWithResult(v: object): ModelRecord | undefined {
    let best: ModelRecord | undefined;
    let bestAt = -1;
    const consider = (r: ModelRecord) => {
      if (r.result !== v || !this.inFinished.get(r)) return;
      const at = this.enteredAt.get(r) ?? -1;
      if (at > bestAt) { best = r; bestAt = at; }
    };
    for (const r of this.byResult.get(v) ?? []) consider(r);
    for (const r of this.endedWithoutResult) consider(r);
    return best;
  }

  /** Records by the result they had when they ended (a result is set before its record ends). */
  private readonly byResult = new WeakMap<object, ModelRecord[]>();
  /** Records that ended without a result: looked at one by one (a result set later is seen). */
  private readonly endedWithoutResult: ModelRecord[] = [];

  /**
   * Indices in `finished` of the records whose result is one of `values`, highest first: what a scan of
   * `finished` from its end would meet, found from the records ended with those results instead of
   * every finished record (a model's end asked this of every finished record, quadratic in the models).
   */
  finishedIndicesOf(values: Set<object>): number[] {
    const cands = new Set<ModelRecord>();
    for (const v of values) for (const r of this.byResult.get(v) ?? []) cands.add(r);
    for (const r of this.endedWithoutResult) if (r.result !== undefined) cands.add(r);
    const out: number[] = [];
    for (const r of cands) {
      if (r.result === undefined || !values.has(r.result)) continue;
      for (let k = this.finished.lastIndexOf(r); k >= 0; k = k > 0 ? this.finished.lastIndexOf(r, k - 1) : -1) out.push(k);
    }
    return out.sort((a, b) => b - a);
  }

  noteUnknown(u: Unknown): void {
    this.current?.unknowns.push(u);
  }

  observe(o: Observation): void {
    this.current?.observations.push(o);
  }

  /** The outermost assignment inside the current model that is being evaluated (`self.layers = ...`). */
  topStatement(): SyntaxNode | undefined {
    const base = this.current?.targetBase ?? 0;
    return this.it.targetNodes[base];
  }

  /** The label path of the statement being evaluated, relative to the current model. */
  labelPath(): string[] {
    const base = this.current?.targetBase ?? 0;
    return this.it.targets.slice(base);
  }

  alloc(spec: AllocSpec): TensorV {
    const depth = this.vmap.length;
    const inherits = depth > 0 && !!spec.from?.some((a) => (a.batched ?? 0) >= depth);
    const batch = spec.noBatch || inherits ? [] : [...this.vmap];
    const shape: Dim[] = [...batch, ...spec.shape];
    const path = spec.path ?? this.labelPath();
    const label = [...path, ...(spec.name ? [spec.name] : [])].join('.') || spec.name || 'array';
    const quals: string[] = [];
    if (batch.length) quals.push(`vmapped ×${batch.join('×')}`);
    if (spec.castFrom) quals.push(`${spec.dtype} copy of ${spec.castFrom}`);
    else quals.push(spec.dtype);
    const head = path[0] ?? (spec.role === 'param' || spec.role === 'buffer' ? this.current?.name : undefined) ?? spec.name ?? 'array';
    // Parameters group by the top-level attribute they belong to ("layers"); activations by the statement and op.
    const paramLike = spec.role === 'param' || spec.role === 'buffer' || !!spec.castFrom || this.current?.framework === 'equinox';
    const group = paramLike ? `${head} (${quals.join(', ')})` : `${path.join('.') || 'array'}${spec.name ? `: ${spec.name}` : ''} (${quals.join(', ')})`;
    const t: TensorV = {
      t: 'tensor', id: this.nextId++, shape, dtype: spec.dtype, role: spec.role, label, group,
      span: spec.span, random: spec.random, sampler: spec.sampler, partition: spec.partition, note: spec.note, citation: spec.citation,
      placement: spec.placement ?? { kind: 'device', index: 0 },
      lib: spec.lib ?? 'jax',
      batched: batch.length ? depth : inherits ? depth : undefined,
      virtual: this.jitDepth > 0 || undefined,
      abstract: this.abstractDepth > 0 || undefined,
    };
    for (const w of this.watchers) w(t);
    if (!t.virtual && !t.abstract) this.record(t);
    return t;
  }

  private readonly watchers: ((t: TensorV) => void)[] = [];
  private readonly opWatchers: ((ev: OpEvent) => void)[] = [];

  /** Calls `fn` with every op traced from now on, until the returned stop is called. */
  watchOps(fn: (ev: OpEvent) => void): () => void {
    this.opWatchers.push(fn);
    return () => { const i = this.opWatchers.indexOf(fn); if (i >= 0) this.opWatchers.splice(i, 1); };
  }

  /** Reports an op to the op watchers (cheap when none). */
  op(name: string, inputs: Value[], out: Value, args?: Record<string, unknown>, params?: TensorV[]): void {
    if (!this.opWatchers.length) return;
    const tens = (v: Value): TensorV[] => (v.t === 'tensor' ? [v] : v.t === 'tuple' || v.t === 'list' ? v.items.flatMap(tens) : []);
    const ev: OpEvent = { op: name, inputs: inputs.flatMap(tens), outputs: tens(out), args, ...(params?.length ? { params } : {}) };
    for (const w of this.opWatchers) w(ev);
  }

  /** Calls `fn` with every array allocated from now on, virtual (under jit) or not, until the returned stop is called. */
  watchAllocs(fn: (t: TensorV) => void): () => void {
    this.watchers.push(fn);
    return () => { const i = this.watchers.indexOf(fn); if (i >= 0) this.watchers.splice(i, 1); };
  }

  /** Adds a live tensor to every active recorder (nested model constructions share buffers). */
  private record(t: TensorV): void {
    if (t.placement.kind === 'host') return;
    const r = this.current;
    if (!r) return;
    const dims = t.shape.map((d) => (typeof d === 'number' ? d : NaN));
    if (dims.some((d) => !Number.isFinite(d))) {
      const reason = t.shape.map((d) => (typeof d === 'number' ? '' : d.unknown)).filter(Boolean)[0] ?? 'unknown dimension';
      r.unknowns.push({ what: `size of ${t.label}`, reason, span: t.span });
      return;
    }
    r.live.set(t.id, t);
    this.fresh.add(t.id);
    r.events.push({
      op: 'alloc',
      tensor: {
        id: t.id, label: t.label, group: t.group, shape: dims, dtype: t.dtype, role: t.role === 'input' ? 'input' : t.role,
        placement: t.placement, span: t.span, note: t.note, citation: t.citation,
      },
    });
    this.collect();
  }

  /** An instant of extra memory (XLA temporaries) on top of what is live. */
  transient(ev: Extract<MemoryEvent, { op: 'transient' }>): void {
    const j = this.jits[this.jits.length - 1];
    if (j) j.transients.push(ev);
    else this.current?.events.push(ev);
  }

  enterJit(node: SyntaxNode, mesh?: Map<string, number | undefined>): void {
    this.jitDepth++;
    this.jits.push({ node, mesh, transients: [], onExit: [] });
  }

  /** The outermost jitted call running now, as an identity (undefined outside jit). */
  outerJitKey(): object | undefined {
    return this.jits[0];
  }

  /** The model records begun inside the jitted call running now (its outermost frame). */
  builtInJit(): readonly ModelRecord[] {
    return this.jits[0]?.built ?? [];
  }

  get jitMesh(): Map<string, number | undefined> | undefined {
    for (let i = this.jits.length - 1; i >= 0; i--) if (this.jits[i].mesh) return this.jits[i].mesh;
    return undefined;
  }

  /** Leaves a jitted call: its outputs become real buffers, then its temporaries peak on top. */
  exitJit(result: Value, node: SyntaxNode, shard?: (t: TensorV) => Placement | undefined): Value {
    const frame = this.jits.pop();
    this.jitDepth--;
    if (this.jitDepth > 0) {
      if (frame) {
        this.jits[this.jits.length - 1]?.transients.push(...frame.transients);
        this.jits[this.jits.length - 1]?.onExit.push(...frame.onExit);
      }
      return result;
    }
    const seen = new Set<number>();
    const walk = (v: Value): void => {
      visitTensors(v, (t) => {
        if (seen.has(t.id)) return;
        seen.add(t.id);
        if (t.virtual) {
          t.virtual = undefined;
          const p = shard?.(t);
          if (p) t.placement = p;
          if (!t.abstract) this.record(t);
        }
      });
    };
    walk(result);
    for (const ev of frame?.transients ?? []) this.current?.events.push(ev);
    for (const f of frame?.onExit ?? []) f();
    void node;
    return result;
  }

  /** Runs `f` when the outermost jit returns, or now when not inside a jit. */
  atJitExit(f: () => void): void {
    const j = this.jits[0];
    if (j) j.onExit.push(f);
    else f();
  }

  /** Frees a buffer a library call made and dropped before returning (an initializer's unscaled sample). */
  release(t: TensorV): void {
    const r = this.current;
    this.fresh.delete(t.id);
    if (r?.live.delete(t.id)) r.events.push({ op: 'free', id: t.id });
  }

  /**
   * After a call returned: the tensors a nested call made as its arguments (`f(g(x))`: g's result) are no longer
   * temporaries of the statement (CPython drops an argument's reference when the call returns), so they are freed
   * now when nothing reaches them, not at the statement's end. Only where liveness is tracked (`gc` records: a traced
   * inference forward, an eager JAX init). `keep`: the call's result, alive.
   */
  dropArguments(args: TensorV[], keep: Value): void {
    const r = this.current;
    if (!r?.gc || !args.length) return;
    let any = false;
    for (const t of args) if (this.fresh.delete(t.id)) any = true;
    if (!any) return;
    this.pins.push(keep);
    try { this.collect(); } finally { this.pins.pop(); }
  }

  /** Frees (in the timeline) every recorded buffer that Python can no longer reach. */
  collect(statementEnd = false): void {
    if (statementEnd) this.fresh.clear();
    const r = this.current;
    if (!r || !r.gc || r.live.size === 0) return;
    // Only the live buffers' ids matter; once every one is reached nothing can be freed and the walk stops
    // (the model's parameters, reachable from the globals, are not walked at every allocation of a forward).
    const reach = new Set<number>();
    for (const id of this.fresh) if (r.live.has(id)) reach.add(id);
    if (reach.size === r.live.size) return;
    const seenObj = new Set<object>();
    const mark = (v: Value): void => visitTensors(v, (t) => {
      if (!r.live.has(t.id) || reach.has(t.id)) return;
      reach.add(t.id);
      if (reach.size === r.live.size) throw ALL_REACHED;
    }, seenObj);
    try {
      for (const f of this.it.frames) markEnv(f, mark, seenObj);
      for (const v of this.it.temps) mark(v);
      for (const v of this.pins) mark(v);
      for (const rec of this.recorders) if (rec.result) mark(rec.result);
      for (const p of this.rootProviders) for (const v of p()) mark(v);
      markEnv(this.it.globals, mark, seenObj);
      for (const m of this.it.modules.values()) if (m.env) markEnv(m.env, mark, seenObj);
    } catch (e) {
      if (e === ALL_REACHED) return;
      throw e;
    }
    for (const [id] of r.live) {
      if (!reach.has(id)) {
        r.live.delete(id);
        r.events.push({ op: 'free', id });
      }
    }
  }
}

/** Thrown out of a marking walk once every live buffer has been reached. */
const ALL_REACHED = new Error('all live buffers reached');

function markEnv(env: Env | undefined, mark: (v: Value) => void, seen: Set<object>): void {
  for (let e = env; e; e = e.parent) {
    if (seen.has(e)) return;
    seen.add(e);
    for (const v of e.vars.values()) if (mayHoldTensors(v, seen)) mark(v);
  }
}

/** Calls `fn` for every tensor reachable from `v` (objects visited once). */
/**
 * False for values that cannot reach a tensor (numbers, strings, classes,
 * plain functions whose closure is already marked): collect() runs at every
 * statement while a model is traced, and a module of thousands of classes
 * and functions must not be walked entry by entry each time.
 */
function mayHoldTensors(v: Value, seen: Set<object>): boolean {
  switch (v.t) {
    case 'tensor': case 'tuple': case 'list': case 'dict': case 'inst': case 'extern': case 'super': case 'transformed': return true;
    case 'func': return !!(v.self || v.partialArgs || v.partialKw || v.defaults.size || (v.closure && !seen.has(v.closure)));
    default: return false;
  }
}

export function visitTensors(v: Value, fn: (t: TensorV) => void, seen: Set<object> = new Set()): void {
  const stack: Value[] = [v];
  while (stack.length) {
    const x = stack.pop()!;
    if (typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    switch (x.t) {
      case 'tensor': fn(x); break;
      // Pushed one by one: spreading a 100,000-item list as arguments would overflow the stack.
      case 'tuple': case 'list': for (const y of x.items) stack.push(y); break;
      case 'dict': for (const y of x.keys) stack.push(y); for (const y of x.vals) stack.push(y); break;
      case 'inst':
        for (const y of x.attrs.values()) stack.push(y);
        if (x.lazyArgs) for (const y of x.lazyArgs.values()) stack.push(y);
        break;
      case 'func':
        if (x.self) stack.push(x.self);
        if (x.partialArgs) stack.push(...x.partialArgs);
        if (x.partialKw) stack.push(...x.partialKw.values());
        stack.push(...x.defaults.values());
        markEnv(x.closure, (y) => stack.push(y), seen);
        break;
      case 'extern':
        if (x.self) stack.push(x.self);
        if (x.kw) stack.push(...x.kw.values());
        if (x.args) stack.push(...x.args);
        break;
      case 'super': stack.push(x.self); break;
      case 'transformed': stack.push(x.fn); break;
      default: break;
    }
  }
}
