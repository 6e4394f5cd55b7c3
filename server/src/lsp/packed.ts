/**
 * How an analysis result crosses from the worker to the server's main
 * thread cheaply. Most of a result is per-tensor data: each model's
 * parameters and buffers, its phases' memory events, each phase estimate's
 * timeline and breakdown, and the estimate's budget text (~1.15 MB of the
 * ~1.3 MB a 2,000-line file with 110 models gives). Structured cloning made the main thread rebuild all
 * of it on every result (6–30 ms, delaying hovers), though only a hover on
 * one model, its advice and the timeline view ever read it.
 *
 * The worker now serialises those parts one model at a time into one
 * `ArrayBuffer`, which is transferred (moved, not copied) beside the rest of
 * the result. On the main thread each of those fields is a getter that
 * deserialises its model's bytes on first read and then becomes a plain
 * property, so every reader sees the same values as before, in the same key
 * order; a result no one looks into is never unpacked.
 *
 * Each model's parts are packed in two pieces: what its hover reads (each
 * phase's breakdown, the budget: ~6 kB for the bench file's main model) and
 * the rest (parameters, buffers, memory events, timelines: ~330 kB, ~5 ms to
 * deserialise warm), read only by the advice (made ahead by the worker), the
 * timeline view and fits-where. A hover on a new result no longer unpacks the
 * events and timelines it does not show.
 */
import { deserialize, serialize } from 'node:v8';
import type { AnalysisResult, ModelReport } from '../analysis/api';
import type { MemoryEvent, TensorFact } from '../../../shared/src/facts';
import type { Budget, Contributor, TimelinePoint } from '../../../shared/src/types';

/** The per-tensor parts of one model that its hover reads, in the order of its phases. */
interface Shown {
  breakdown: Contributor[][];
  /** The estimate's budget: its explanation and citations are most of what else a model weighs (~1.5 kB). */
  budget: Budget;
}

/** The rest of them. */
interface Heavy {
  params: TensorFact[];
  buffers: TensorFact[];
  events: MemoryEvent[][];
  timeline: TimelinePoint[][];
}

/**
 * The packed parts of a result's models: `chunks[i]` is [offset, length] of model i's `Shown` bytes in `buffer`,
 * then [offset, length] of its `Heavy` bytes.
 */
export interface PackedModels { buffer: ArrayBuffer; chunks: Array<[number, number, number, number]> }

/**
 * Splits a result into what is cloned (the heavy fields set to null, so they keep their place among
 * the keys) and the packed heavy parts; `transfer` goes in postMessage's transfer list. `r` is not changed.
 */
export function packResult(r: AnalysisResult): { slim: AnalysisResult; packed: PackedModels; transfer: ArrayBuffer[] } {
  const bytes: Buffer[] = [];
  const models = r.models.map((m): ModelReport => {
    const shown: Shown = { breakdown: m.estimate.phases.map((p) => p.breakdown), budget: m.estimate.budget };
    const heavy: Heavy = {
      params: m.facts.params,
      buffers: m.facts.buffers,
      events: m.facts.phases.map((p) => p.events),
      timeline: m.estimate.phases.map((p) => p.timeline),
    };
    bytes.push(serialize(shown), serialize(heavy));
    const none = null as never;
    return {
      ...m,
      facts: { ...m.facts, params: none, buffers: none, phases: m.facts.phases.map((p) => ({ ...p, events: none })) },
      estimate: { ...m.estimate, budget: none, phases: m.estimate.phases.map((p) => ({ ...p, timeline: none, breakdown: none })) },
    };
  });
  const buffer = new ArrayBuffer(bytes.reduce((n, b) => n + b.length, 0));
  const view = new Uint8Array(buffer);
  const chunks: Array<[number, number, number, number]> = [];
  let at = 0;
  for (let i = 0; i < bytes.length; i += 2) {
    const [a, b] = [bytes[i], bytes[i + 1]];
    view.set(a, at);
    view.set(b, at + a.length);
    chunks.push([at, a.length, at + a.length, b.length]);
    at += a.length + b.length;
  }
  return { slim: { ...r, models }, packed: { buffer, chunks }, transfer: [buffer] };
}

/** Replaces `obj[key]` (keeping its place among the keys) by a getter that reads `get()` once and then is a plain property. */
function lazy(obj: object, key: string, get: () => unknown): void {
  const settle = (value: unknown) => Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(obj, key, {
    enumerable: true, configurable: true,
    get() { const v = get(); settle(v); return v; },
    set(v: unknown) { settle(v); },
  });
}

/** Makes a result received with `packResult`'s parts whole again, in place: the heavy fields unpack on first read. */
export function unpackResult(slim: AnalysisResult, packed: PackedModels): AnalysisResult {
  slim.models.forEach((m, i) => {
    const [shownAt, shownLength, heavyAt, heavyLength] = packed.chunks[i];
    let shown: Shown | undefined;
    let heavy: Heavy | undefined;
    const loadShown = (): Shown => (shown ??= deserialize(new Uint8Array(packed.buffer, shownAt, shownLength)) as Shown);
    const load = (): Heavy => (heavy ??= deserialize(new Uint8Array(packed.buffer, heavyAt, heavyLength)) as Heavy);
    lazy(m.facts, 'params', () => load().params);
    lazy(m.facts, 'buffers', () => load().buffers);
    m.facts.phases.forEach((p, j) => lazy(p, 'events', () => load().events[j]));
    lazy(m.estimate, 'budget', () => loadShown().budget);
    m.estimate.phases.forEach((p, j) => {
      lazy(p, 'timeline', () => load().timeline[j]);
      lazy(p, 'breakdown', () => loadShown().breakdown[j]);
    });
  });
  return slim;
}
