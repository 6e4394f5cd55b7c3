/**
 * Entry point of the analyzer: text in, models with estimates and rule
 * findings out. Parses with tree-sitter, runs the static interpreter over
 * the module, turns its model records into engine facts, asks the engine
 * for per-phase peaks on the target device, and runs the rules. Never
 * throws on user input: problems become `unknowns` with a reason.
 */
import { dirname } from 'node:path';
import type { MemoryEvent, ModelFacts, PhaseTrace, TensorFact, Unknown } from '../../../shared/src/facts';
import { estimate } from '../../../shared/src/estimate';
import { dtypeBytes } from '../../../shared/src/dtypes';
import { formatBytes } from '../../../shared/src/units';
import { parseDeviceSpec, usableCapacity } from '../../../shared/src/devices';
import type { DeviceSpec } from '../../../shared/src/types';
import { buildCatalogues } from '../frameworks/catalogues';
import { readPinnedVersions } from '../config/versions';
import { RULES } from '../rules';
import type { RuleContext } from '../rules/types';
import type { AnalysisResult, AnalyzeOptions, Finding, HostModel, ModelReport, Severity, UnbuiltModel } from './api';
import { installFrameworks } from '../frameworks/index';
import { backendStart, configSets, envSets } from '../frameworks/jax/runtime';
import { threefryPartitionable } from '../frameworks/modules';
import { hfLoadOf, hfLoads, hostOnlyReason } from '../frameworks/transformers/semantics';
import { inferencePhases, isKvName } from '../phases/inference';
import { addTrainingLeftovers } from '../phases/afterTraining';
import { applyHandPlacement, handPlacement } from '../phases/handPlacement';
import { shardHostLoad } from '../phases/shardedLoad';
import { addHeldAtLoad } from '../phases/heldAtLoad';
import { visitTensors } from '../interp/memory';
import { KV_CITATION } from '../../../shared/src/kvcache';
import { constructedStateEvents, stepInputEvents, trainingPhases, trainingProgram } from '../phases/training';
import { moduleTensors, unknownModuleSlots, type TorchStateDict } from '../frameworks/torch/semantics';
import { BudgetExceeded, Cancelled, Interpreter } from '../interp/interp';
import type { ModelRecord } from '../interp/memory';
import { ParseTooSlow, parsePython, type Tree } from '../interp/parser';
import { moduleLoader } from '../program/loader';
import { installProgram } from '../program';
import { buildFromDefaults } from '../program/defaults';
import { LIBRARY_MODEL } from '../frameworks/unmodelled';
import { unreachedModels } from '../program/unreached';
import { runDeclarations } from '../program/declarations';
import { readProjectConfig } from '../config/pyproject';
import { findRoot, workspaceFor } from '../program/workspace';
import { launchCommandsFor, type LaunchCommand } from '../program/launch';
import type { TensorV, Value } from '../interp/values';
import { resolve } from 'node:path';
import { hasModelEvidence, holdsNothing, isBareLayer } from './evidence';

export { initParser } from '../interp/parser';

/** Files larger than this are not analysed (a model definition is far smaller). */
export const MAX_BYTES = 5_000_000;
const DEFAULT_STEPS = 2_000_000;
const DEFAULT_TIME_MS = 20_000;
/**
 * Models sized per file: the first this many built, in the order the program builds them; the rest are named in
 * one unknown. Sizing is per model (forward, step, estimate, result), so a file that builds thousands (generated,
 * or a loop the fuzzer unrolled) made a result of ~100 MB and left ~140 MB resident in malloc's arenas after its
 * document closed (`npm run fuzz`: a 12,831-model file, 6.4 s). At 1,000, the fuzzer's 1,000-model files of a
 * small LSTM tagger still left +77 MB at a quiet point (docs/performance.md). Real model files build a few; the
 * bench's generated 2,000-line file builds 110.
 */
export const MAX_MODELS = 250;
/**
 * How long sizing the models may run past the run's time budget. Before it had no bound: under the editor's 5 s
 * budget a mutated 51,600-line file kept the worker 19 s, and the documents queued behind it got no diagnostics
 * within the fuzzer's 15 s (docs/performance.md).
 */
const SIZING_GRACE_MS = 1000;
const DEFAULT_HEAP_MB = 2048;

/**
 * Analyses `text`. The tree-sitter tree it parses lives in wasm memory that
 * JavaScript's collector does not see: it is deleted before returning. A
 * caller that keeps one tree per document (incremental parsing) passes it to
 * `analyzeTree` instead and owns it.
 */
export async function analyze(text: string, opts: AnalyzeOptions, previousTree?: Tree): Promise<AnalysisResult> {
  if (text.length > MAX_BYTES || text.includes('\u0000')) return analyzeTree(text, opts, undefined);
  let tree: Tree;
  try {
    tree = await parsePython(text, previousTree, opts.parseDeadlineMs);
  } catch (e) {
    if (e instanceof ParseTooSlow) return analyzeTree(text, opts, undefined, e.message);
    throw e;
  }
  try {
    return await analyzeTree(text, opts, tree);
  } finally {
    tree.delete();
  }
}

/**
 * Analyses `text` whose tree is `tree` (not deleted here: it belongs to the caller). Without a tree, `noTree`
 * says why (a parse past its deadline).
 */
export async function analyzeTree(text: string, opts: AnalyzeOptions, tree: Tree | undefined, noTree?: string): Promise<AnalysisResult> {
  const t0 = Date.now();
  const unknowns: Unknown[] = [];
  const unbuilt: UnbuiltModel[] = [];
  const dependencies: string[] = [];
  const filesRead = new Set<string>();
  const host: HostModel[] = [];
  const done = (models: ModelReport[] = [], findings: Finding[] = []): AnalysisResult => ({ text, models, findings, unknowns, unbuilt, dependencies, ...(host.length ? { host } : {}), elapsedMs: Date.now() - t0 });

  if (text.length > MAX_BYTES) {
    unknowns.push({ what: 'file', reason: `file is ${(text.length / 1e6).toFixed(1)} MB; oomlens analyses files up to ${MAX_BYTES / 1e6} MB` });
    return done();
  }
  if (text.includes('\u0000')) {
    unknowns.push({ what: 'file', reason: 'file contains NUL bytes: it looks binary, not Python source' });
    return done();
  }
  const parsed = parseDeviceSpec(opts.device);
  if ('error' in parsed) {
    unknowns.push({ what: 'device', reason: `${parsed.error} Known devices: ${parsed.known.join(', ')}` });
    return done();
  }
  let spec: DeviceSpec = parsed;

  if (!tree) {
    unknowns.push({ what: 'file', reason: noTree ?? 'no syntax tree' });
    return done();
  }
  if (tree.rootNode.hasError) {
    unknowns.push({ what: 'syntax', reason: 'the file has syntax errors; analysed as far as it parses' });
  }
  const versions = opts.versions ?? (opts.path ? readPinnedVersions(opts.path).versions : {});
  const it = new Interpreter(text, tree, buildCatalogues(), opts.stepBudget ?? DEFAULT_STEPS);
  // Trees the run parsed for itself (declared constructions) are deleted however it ends: a run cancelled
  // by a newer keystroke, or failing, would otherwise leave them in tree-sitter's wasm memory for good.
  try {
    let run: string | undefined;
    let launchEntry: LaunchCommand["entry"];
    it.deadline = Date.now() + (opts.timeBudgetMs ?? DEFAULT_TIME_MS);
    it.heapCapBytes = (opts.heapBudgetMb ?? DEFAULT_HEAP_MB) * 2 ** 20;
    if (opts.cancelled) it.cancelled = opts.cancelled;
    it.state.set('versions', versions);
    it.state.set('deviceCount', spec.count);
    // What torch.cuda.mem_get_info can report: CUDA's total for the card, not nvidia-smi's (devices.ts).
    it.state.set('deviceCapacity', usableCapacity(spec.device).bytes);
    // What torch.cuda.get_device_capability / is_bf16_supported report on the target (torch/semantics.ts).
    it.state.set('deviceInfo', spec.device);
    // Local checkpoint folders named in the code resolve against the analysed file's folder.
    if (opts.path) it.state.set('fileDir', dirname(opts.path));
    installFrameworks(it);
    installProgram(it);
    if (opts.path) {
      const ws = workspaceFor(opts.workspaceRoot ?? findRoot(opts.path));
      it.path = resolve(opts.path);
      let launchDir: string | undefined;
      const loader = moduleLoader(ws, it.path, () => launchDir);
      // The workspace files the program reads (a YAML config, a params.json) are dependencies of the result too.
      it.loader = { ...loader, readText: (path) => { const t = loader.readText(path); if (t !== undefined) filesRead.add(path); return t; } };
      // The command line the workspace runs this file with, and the launcher's process count (program/launch.ts).
      let launch: LaunchCommand | undefined;
      try { launch = opts.launch === undefined ? launchCommandsFor(ws, it.path)[0] : opts.launch ?? undefined; } catch (e) { opts.onInternalError?.('launch commands', e); }
      if (launch) {
        it.state.set('argv', launch.argv);
        launchDir = dirname(launch.file);
        if (launch.env) it.state.set('launchEnv', launch.env);
        launchEntry = launch.entry;
        // One device per launched process: `torchrun --nproc_per_node 4` with a device of one card is 4 of them.
        // deepspeed / accelerate / torchrun --nproc_per_node=gpu without a count start one process per visible GPU.
        if (launch.world === undefined && launch.launcher !== 'python' && launch.launcher !== 'launch.json' && spec.count === 1) it.state.set('worldUnknown', `${launch.launcher} (${launch.source})`);
        if (launch.world && launch.world > 1 && spec.count === 1) {
          spec = { ...spec, count: launch.world };
          it.state.set('deviceCount', launch.world);
        }
        dependencies.push(launch.file);
        run = `args from ${launch.source}${launch.world && launch.world > 1 ? `, ${launch.launcher} ×${launch.world}` : ''}`;
      }
    }
    try {
      it.run(launchEntry);
    } catch (e) {
      if (e instanceof Cancelled) throw e;
      // An interpreter bug must not take the editor down: report it as an unknown and keep what was found.
      unknowns.push({ what: 'analysis', reason: `internal error: ${(e as Error).message}` });
      opts.onInternalError?.('interpreter', e);
    }
    for (const m of it.modules.values()) if (m.path) dependencies.push(m.path);
    for (const p of filesRead) if (!dependencies.includes(p)) dependencies.push(p);
    // A framework that says how many processes it starts (Lightning's Trainer(devices=4)) on a one-card target.
    const dc = Number(it.state.get('deviceCount') ?? 1);
    if (spec.count === 1 && Number.isInteger(dc) && dc > 1) spec = { ...spec, count: dc };
    // Declared constructions for this file ([[tool.oomlens.models]] in pyproject.toml).
    const origins = new Map<ModelRecord, string>();
    const declared = new Set<ModelRecord>();
    if (opts.path) {
      const cfg = readProjectConfig(opts.path);
      if (cfg.declarations?.length) {
        try {
          const d = runDeclarations(it, cfg.declarations);
          for (const b of d.built) { origins.set(b.record, `declared in pyproject.toml:${b.decl.line}`); declared.add(b.record); }
          for (const p of d.problems) unknowns.push({ what: 'declaration', reason: p });
        } catch (e) {
          if (e instanceof Cancelled) throw e;
          unknowns.push({ what: 'declaration', reason: e instanceof BudgetExceeded ? `while running declarations: ${e.message}` : `internal error while running declarations: ${(e as Error).message}` });
        }
      }
    }
    // Model classes the run did not build: from their defaults, else explained (program/defaults.ts).
    try {
      const d = buildFromDefaults(it);
      for (const b of d.built) origins.set(b.record, b.how);
      for (const u of d.unbuilt) unbuilt.push({ name: u.name, span: it.span(u.node), reason: u.reason });
    } catch (e) {
      if (e instanceof Cancelled) throw e;
      // The run's budgets end this part as they end the program: an unknown that names the budget, not an internal error.
      unknowns.push({ what: 'analysis', reason: e instanceof BudgetExceeded ? `while building models from defaults: ${e.message}` : `internal error while building models from defaults: ${(e as Error).message}` });
    }
    // What frameworks settle once the program has run (where a pipeline's components ended up).
    for (const f of (it.state.get('beforePhases') as (() => void)[] | undefined)?.splice(0) ?? []) f();
    // Command-line values the program needs and no command gives (a required option, a config-file flag without
    // a default): named once each at file level, so a file with no model still says what is missing.
    const wanted = new Set<string>();
    for (const u of it.unknowns) {
      if (!/command-line argument `|names the config file and has no default|^--\S+ is required and has no default/.test(u.reason) || wanted.has(u.reason)) continue;
      wanted.add(u.reason);
      unknowns.push({ what: 'command line', reason: u.reason, span: u.span });
    }
    // A checkpoint load whose name is not known (from_pretrained(None): a parser field the command line
    // fills): a model is made there and has no size, so the file says so even when it reports no model.
    for (const u of it.unknowns) {
      if (!(/\.from_pretrained: the checkpoint name is /.test(u.reason) || LIBRARY_MODEL.test(u.reason)) || wanted.has(u.reason)) continue;
      wanted.add(u.reason);
      unknowns.push({ what: 'model', reason: u.reason, span: u.span });
    }
    // The analyzer's own limits (budgets, size caps, depth limits) are reported once each, where first hit.
    const seen = new Set<string>();
    for (const u of it.unknowns) {
      if (!/budget|internal|depth limit|size cap/.test(u.reason)) continue;
      const key = u.reason.replace(/\d+ (items|characters|keys)/, '');
      if (seen.has(key)) continue;
      seen.add(key);
      unknowns.push({ what: 'analysis', reason: u.reason, span: u.span });
    }

    // Models built by another file's module-level code are that file's to report; a bare layer or
    // the lines of a class a syntax error broke are no model (evidence.ts).
    const trained = new Set(trainingProgram(it).optimizers.flatMap((o) => o.params.map((t) => t.id)));
    const movedToDevice = (r: ModelRecord): boolean => {
      const m = r.result?.t === 'inst' ? it.state.get(`deviceOnce:${r.result.id}`) : undefined;
      return typeof m === 'string';
    };
    const candidates = it.memory.reported().filter((r) => (!r.atImport || declared.has(r)) && (r.span.file ? !isBareLayer(r) && !holdsNothing(r) : hasModelEvidence(r, tree, trained, movedToDevice)));
    // A program that trains something oomlens could not resolve (`model = build(cfg)` from code it does not follow,
    // then an optimizer over `model.parameters()`) and has no model oomlens found: said at file level, so "no model
    // found" is not the whole answer.
    if (!candidates.length) {
      for (const o of trainingProgram(it).optimizers) {
        if (!o.paramsUnknown || wanted.has(o.paramsUnknown)) continue;
        wanted.add(o.paramsUnknown);
        unknowns.push({ what: 'model', reason: `${o.callee} trains parameters oomlens could not resolve (${o.paramsUnknown}): the model they belong to is not known`, span: o.span });
      }
    }
    // A module built first and then handed to another model (hydra's nested `net: {_target_: …}`, a backbone
    // passed to a wrapper) is part of that model, not a model of its own.
    // Held at any depth: blocks built in a loop, put in an nn.ModuleList and handed to an Encoder that the model
    // holds (`Transformer(Encoder(nn.ModuleList(blocks)), ...)`) are parts as much as a direct attribute is. Two
    // models that hold each other (a shared submodule cycle) are both kept.
    const reach = new Map<unknown, Set<unknown>>();
    const partsOf = (root: Value): Set<unknown> => {
      let got = reach.get(root);
      if (!got) { got = reachableInstances(root); reach.set(root, got); }
      return got;
    };
    // A part whose class another file asks about (opts.partsOf) is reported as well.
    const asked = (r: ModelRecord): boolean => !!opts.partsOf && r.definitionSpan?.file === opts.partsOf.file && opts.partsOf.starts.includes(r.definitionSpan.start);
    // r is a part when another candidate o reaches r's instance and r does not reach o's. Found from each o's
    // reachable set through an index of the candidates by instance, not by testing every pair of candidates: a file
    // with hundreds of models has thousands of layer records, and the pairs were quadratic (34 s on a 4,500-line file).
    const byResult = new Map<unknown, ModelRecord[]>();
    for (const r of candidates) {
      if (r.framework !== 'torch' || r.result?.t !== 'inst') continue;
      const rs = byResult.get(r.result);
      if (rs) rs.push(r); else byResult.set(r.result, [r]);
    }
    const parts = new Set<ModelRecord>();
    for (const o of candidates) {
      if (o.result?.t !== 'inst') continue;
      for (const x of partsOf(o.result)) {
        const rs = byResult.get(x);
        if (!rs) continue;
        for (const r of rs) if (r !== o && !parts.has(r) && !partsOf(r.result!).has(o.result)) parts.add(r);
      }
    }
    // A module whose modules a model built after it took over without holding the module itself (a backbone cut up
    // and re-wrapped, then handed on: DeepLabV3's `_segm_resnet` puts `IntermediateLayerGetter(backbone)` in the
    // model it returns): every tensor it holds is held by that later model, which holds more. A smaller module built
    // from an earlier one (DETR's `IntermediateLayerGetter(resnet50())` as the body) is not a part of it. Found
    // through an index of the candidates by tensor, bounded.
    const torchInsts = candidates.filter((r) => r.framework === 'torch' && r.result?.t === 'inst' && !parts.has(r));
    if (torchInsts.length > 1 && torchInsts.length <= 200) {
      const held = new Map<ModelRecord, Set<number>>();
      const byTensor = new Map<number, ModelRecord[]>();
      for (const r of torchInsts) {
        const ids = new Set<number>();
        const mt = moduleTensors(r.result!);
        for (const t of [...mt.params, ...mt.buffers]) ids.add(t.id);
        held.set(r, ids);
        for (const id of ids) { const l = byTensor.get(id); if (l) l.push(r); else byTensor.set(id, [r]); }
      }
      const order = new Map(candidates.map((r, i) => [r, i]));
      for (const r of torchInsts) {
        const ids = held.get(r)!;
        const first = ids.values().next();
        if (first.done) continue;
        for (const o of byTensor.get(first.value) ?? []) {
          const big = held.get(o)!;
          if (o === r || parts.has(o) || big.size <= ids.size || order.get(o)! < order.get(r)!) continue;
          let all = true;
          for (const id of ids) if (!big.has(id)) { all = false; break; }
          if (all) { parts.add(r); break; }
        }
      }
    }
    const allKept = candidates.filter((r) => asked(r) || !parts.has(r));
    const kept = allKept.slice(0, MAX_MODELS);
    if (allKept.length > kept.length) {
      unknowns.push(notSized(text, allKept.length - kept.length, allKept[MAX_MODELS], `over the analysis cap of ${MAX_MODELS} models per file`));
    }
    // A model that lives only on the host (a transformers copy never moved, run or handed on: frameworks/transformers/
    // semantics.ts hostOnlyReason) is no device model: listed with its host size, not estimated. Only when the run
    // was complete (a budget or an internal error may have cut off the code that moves or uses it) and no other
    // object holds it (a module attribute moves with its parent).
    const complete = !it.unknowns.some((u) => /budget|internal error|depth limit/.test(u.reason));
    const onHost = new Set<ModelRecord>();
    if (complete) {
      for (const r of kept) {
        const why = hostOnlyReason(it, r.result);
        if (!why || heldByAnother(r.result!, [...it.memory.reported().map((o) => o.result), ...it.globals.vars.values()])) continue;
        onHost.add(r);
        let n: number | null = 0, bytes: number | null = 0;
        for (const t of r.params ?? []) {
          const e = t.shape.every((d) => typeof d === 'number') ? (t.shape as number[]).reduce((a, b) => a * b, 1) : NaN;
          if (!Number.isFinite(e)) { n = bytes = null; break; }
          n! += e; bytes! += e * dtypeBytes(t.dtype);
        }
        if (r.unknowns.length) n = bytes = null;
        const load = hfLoadOf(r.result);
        if (n !== null && load?.params != null) n = load.params;
        host.push({ name: r.name, framework: r.framework, span: r.span, paramCount: n, bytes, reason: why });
      }
    }
    const records = kept.filter((r) => !onHost.has(r));
    const models: { report: ModelReport; record: ModelRecord }[] = [];
    // Sizing stops at the run's deadline, but gets SIZING_GRACE_MS however much of the budget the program used: the
    // models built before a slow loop are still sized.
    const sizingDeadline = Math.max(it.deadline, Date.now() + (opts.sizingGraceMs ?? SIZING_GRACE_MS));
    for (const [i, rec] of records.entries()) {
      // Sizing a model runs its forward and step through the interpreter, but the work between its checks does not;
      // a file with many models must stop here when its document is closed or edited, and when the run's time is up.
      if (opts.cancelled?.()) throw new Cancelled('superseded by a newer edit');
      if (Date.now() > sizingDeadline) {
        unknowns.push(notSized(text, records.length - i, rec, 'analysis time budget exhausted'));
        break;
      }
      let facts: ModelFacts;
      try {
        facts = toFacts(rec, versions, it, spec);
      } catch (e) {
        // The phases trace forwards and steps with the same interpreter: its budgets end them the same way.
        if (e instanceof Cancelled) throw e;
        const why = e instanceof BudgetExceeded ? e.message : e instanceof RangeError ? `nesting too deep (depth limit): ${e.message}` : `internal error: ${(e as Error).message}`;
        unknowns.push({ what: 'analysis', reason: `${rec.name}: ${why}`, span: rec.span });
        continue;
      }
      const origin = origins.get(rec);
      models.push({ report: { facts, estimate: estimate(facts, spec), ...(origin ? { origin } : {}), ...(run && !declared.has(rec) ? { run } : {}) }, record: rec });
    }

    // A training step that runs (a backward pass, then an optimizer step) while no model oomlens reports has a
    // training phase: the parameters it trains belong to no reported model (a LoRA network attached by replacing the
    // forwards of a pipeline's layers, an optimizer over parameters oomlens could not resolve). Said at file level, so
    // "All checks passed" is not the answer for the step where the memory goes.
    const prog = trainingProgram(it);
    const untracedBackward = prog.unfollowed?.find((u) => /\.backward\s*\(/.test(u.text));
    if (models.length && (prog.backward.length || untracedBackward) && !models.some((m) => m.report.facts.phases.some((p) => p.phase === 'training'))) {
      const o = prog.optimizers[0];
      const what = !o ? undefined : o.paramsUnknown ? `parameters oomlens could not resolve (${o.paramsUnknown})` : 'parameters that belong to no model oomlens reports';
      if (o && prog.backward.length) unknowns.push({ what: 'training step', reason: `a training step runs (${o.callee} trains ${what}): its memory is not sized, and no model here has a training phase`, span: prog.backward[0] });
      // A backward on a loss oomlens could not follow (a library's training wrapper computed it): which model it
      // trains is not known.
      else if (untracedBackward) unknowns.push({ what: 'training step', reason: `a backward pass runs (\`${untracedBackward.text}\`) on a loss oomlens could not follow (${untracedBackward.reason}): the model it trains and its memory are not known, and no model here has a training phase`, span: untracedBackward.span });
      else unknowns.push({ what: 'training step', reason: 'a backward pass runs, but no optimizer oomlens follows steps the parameters: the training step is not sized, and no model here has a training phase', span: prog.backward[0] });
    }
    // A program that stops at a `raise` before building anything: "no model found" says where it stopped.
    if (!models.length) {
      for (const u of it.unknowns) {
        if (!u.reason.startsWith('the program raises here') || wanted.has(u.reason)) continue;
        wanted.add(u.reason);
        unknowns.push({ what: 'program', reason: u.reason, span: u.span });
      }
      // Nothing built while the command line gave values oomlens cannot read (`--arch=$model` in a shell loop, which
      // may choose what is built): the file names them rather than report nothing.
      for (const u of it.unknowns) {
        if (!/is given a value oomlens cannot read from the command/.test(u.reason) || wanted.has(u.reason)) continue;
        wanted.add(u.reason);
        unknowns.push({ what: 'command line', reason: u.reason, span: u.span });
      }
    }

    const lineStarts = computeLineStarts(text);
    const lineOf = (off: number) => lineIndex(lineStarts, off) + 1;
    const ctx: RuleContext = {
      text, path: opts.path, target: spec, models,
      runtime: {
        envSets: envSets(it), configSets: configSets(it), backendStart: backendStart(it),
        firstJaxImport: firstJaxImport(tree, text), jaxModuleSite: jaxModuleSite(tree), otherGpuImport: otherGpuImport(tree), versions, threefryPartitionable: threefryPartitionable(it),
      },
      // A model kept on the host only is no device memory: no device rule speaks of its load.
      hfLoads: hfLoads(it).filter((l) => ![...onHost].some((r) => hfLoadOf(r.result) === l)),
      lineOf,
    };
    const findings: Finding[] = [];
    const disabled = new Set(opts.disabledRules ?? []);
    for (const rule of RULES) {
      if (disabled.has(rule.code) || disabled.has(rule.name)) continue;
      if (rule.status === 'preview' && !opts.preview) continue;
      const override = opts.severityOverrides?.[rule.code] ?? opts.severityOverrides?.[rule.name];
      if (override === 'off') continue;
      let found: ReturnType<typeof rule.check> = [];
      try {
        // Fault injection for the tests of internal-error reporting (test/lsp/internal_errors.test.ts).
        if (process.env.OOMLENS_TEST_FAULT === 'rule' && rule === RULES[0]) throw new Error('injected rule fault (OOMLENS_TEST_FAULT=rule)');
        found = rule.check(ctx);
      } catch (e) {
        unknowns.push({ what: rule.code, reason: `rule failed: ${(e as Error).message}` });
        opts.onInternalError?.(`rule ${rule.code}`, e);
      }
      for (const f of found) {
        if (f.span.file) continue; // a finding in an imported file is shown when that file is analysed
        if (suppressed(text, lineStarts, f.span.start, rule.code)) continue;
        // Related places in other files carry offsets into those files: they are not locations of this text.
        const related = f.related.filter((r) => !r.span.file);
        findings.push({ code: rule.code, name: rule.name, severity: (override as Severity | undefined) ?? rule.severity, ...f, related });
      }
    }
    findings.sort((a, b) => a.span.start - b.span.start);
    // Nothing to say so far: a model built in a function the run never called is named, with what it needs
    // (program/unreached.ts), rather than "no model found". After the rules: its tries change no finding.
    if (!models.length && !unbuilt.length && !unknowns.length && !host.length) {
      try {
        unknowns.push(...unreachedModels(it));
      } catch (e) {
        if (e instanceof Cancelled) throw e;
        opts.onInternalError?.('unreached functions', e);
      }
    }
    return done(models.map((m) => m.report), findings);
  } finally {
    for (const t of it.ownedTrees.splice(0)) t.delete();
  }
}

function toFacts(rec: ModelRecord, versions: Record<string, string>, it: Interpreter, spec: DeviceSpec): ModelFacts {
  const { params, buffers } = rec.params
    ? { params: rec.params, buffers: [] as TensorV[] }
    : rec.result ? moduleTensors(rec.result) : { params: [], buffers: [] };
  const fact = (t: TensorV): TensorFact => ({
    id: t.id, label: t.label, group: t.group, shape: t.shape.map((d) => (typeof d === 'number' ? d : NaN)), dtype: t.dtype, role: t.role === 'input' ? 'input' : t.role,
    placement: t.placement, span: t.span, note: t.note, citation: t.citation,
  });
  const unknowns: Unknown[] = [...rec.unknowns];
  if (!rec.params && rec.result) for (const slot of unknownModuleSlots(rec.result, it.changedByUnknownLoop)) unknowns.push({ what: rec.name, reason: `module ${slot}`, span: rec.span });
  let count: number | null = 0;
  for (const p of params) {
    let n = 1;
    for (const d of p.shape) {
      if (typeof d !== 'number') {
        // A parameter whose size is not known makes the count unknown, and says so: without an unknown the
        // phases would replay without it and read "0 B ✓ fits".
        unknowns.push({ what: p.label, reason: `a dimension of ${p.label} is not known: ${d.unknown}`, span: p.span });
        n = NaN;
        break;
      }
      if (d < 0 || !Number.isInteger(d)) {
        // torch.empty refuses negative sizes ("Trying to create tensor with negative dimension"): a placeholder
        // default (vocab_size = -1, set later by a tokenizer) reached the layer.
        unknowns.push({ what: p.label, reason: `dimension ${d} of ${p.label} is not a size: a default the program replaces before building (e.g. \`vocab_size = -1\`) reached it`, span: p.span });
        n = NaN;
        break;
      }
      n *= d;
    }
    if (!Number.isFinite(n) || !Number.isSafeInteger(n)) { count = null; continue; }
    if (count !== null) count += n;
  }
  if (unknowns.length) count = null;
  // A quantised load stores packed bytes: the parameter count is what those bytes hold (frameworks/transformers/quantization.ts).
  const qload = hfLoadOf(rec.result);
  if (count !== null && qload?.quant && qload.params !== null) count = qload.params;
  if (count !== null && !Number.isSafeInteger(count)) { count = null; unknowns.push({ what: 'parameter count', reason: 'larger than 2^53' }); }

  const phases: PhaseTrace[] = [];
  if (rec.framework === 'torch') {
    // Modules are built on the host; the accelerator holds them once moved (`.to("cuda")`).
    // Tensors a device map offloaded to the CPU stay there (frameworks/accelerate/semantics.ts).
    const placed = (t: TensorV) => ({ ...fact(t), placement: t.placement.kind === 'host' && !it.state.has(`offloaded:${t.id}`) ? { kind: 'device' as const, index: 0 } : t.placement });
    const sized = [...params, ...buffers].filter((t) => t.shape.every((d) => typeof d === 'number'));
    // `.half()` / `.to(torch.bfloat16)` after construction: the module exists in the dtype it was built in, and
    // Module._apply replaces one tensor at a time (the new one made before the old one is freed), so the phase
    // holds the built model plus the first converted tensor (torch/nn/modules/module.py `_apply`).
    const rid = rec.result?.t === 'inst' ? rec.result.id : undefined;
    const castFrom = rid !== undefined && castOnDevice(it, rid) ? it.state.get(`castFrom:${rid}`) as Map<number, TensorFact['dtype']> | undefined : undefined;
    const events: MemoryEvent[] = [];
    if (castFrom?.size) {
      const built = new Map<number, number>();
      let nid = 3_000_000_000;
      for (const t of sized) {
        const from = castFrom.get(t.id);
        if (!from) { events.push({ op: 'alloc', tensor: placed(t) }); continue; }
        const id = nid++;
        built.set(t.id, id);
        events.push({ op: 'alloc', tensor: { ...placed(t), id, dtype: from, group: `${t.group?.replace(/\(.*\)$/, '').trim() ?? t.label} (${from}, before the cast)`,
          note: `built in ${from}, then cast to ${t.dtype} in place`, citation: 'torch/nn/modules/module.py Module._apply (one tensor converted at a time)' } });
      }
      for (const t of sized) {
        const old = built.get(t.id);
        if (old === undefined) continue;
        events.push({ op: 'alloc', tensor: placed(t) });
        events.push({ op: 'free', id: old });
      }
    } else for (const t of sized) events.push({ op: 'alloc', tensor: placed(t) });
    const checkpointUnknowns: Unknown[] = [];
    events.push(...stateDictEvents(rec, it, checkpointUnknowns));
    // Plain tensor attributes (`self.cache_k = torch.zeros(...)`, a precomputed rotary table) are neither
    // parameters nor buffers, but they live as long as the module and the forward uses them beside its weights,
    // so on the same device (a cache named like one is the inference phase's KV cache).
    if (rec.framework === 'torch' && rec.result) {
      const seen = new Set(sized.map((t) => t.id));
      visitTensors(rec.result, (t) => {
        if (seen.has(t.id) || t.role === 'param' || t.role === 'buffer' || t.abstract || t.virtual || !t.shape.every((d) => typeof d === 'number')) return;
        seen.add(t.id);
        const kv = isKvName(t.label);
        events.push({ op: 'alloc', tensor: { ...placed(t), role: kv ? 'kv-cache' : 'buffer',
          group: kv ? `KV cache tensors (${t.dtype})` : `tensor attributes: not parameters or buffers (${t.dtype})`,
          note: kv ? 'preallocated cache tensor: its full size is held from construction' : 'a plain tensor attribute of the module, alive as long as it is',
          citation: kv ? KV_CITATION : 'torch/nn/modules/module.py __setattr__ (a plain tensor is neither a Parameter nor a registered buffer)' } });
      });
    }
    // The batch and targets a training step uses, made before the first forward: alive when the model is loaded.
    events.push(...stepInputEvents(rec, it, true));
    // Optimizer state an optimizer makes at construction (Adagrad).
    events.push(...constructedStateEvents(rec, it, params));
    const moved = it.state.has(`moved:${rec.result?.t === 'inst' ? rec.result.id : ''}`);
    phases.push({
      phase: 'load', events, span: rec.span, notes: moved ? [] : ['the module is built on the host; this phase assumes it is moved to the accelerator'],
      unknowns: checkpointUnknowns.length || rec.phaseUnknowns ? [...rec.unknowns, ...checkpointUnknowns, ...(rec.phaseUnknowns ?? [])] : rec.unknowns,
    });
  } else {
    phases.push({ phase: rec.phase, events: offDeviceCast(rec, it), span: rec.span, jitted: rec.jitted, notes: rec.notes, unknowns: rec.phaseUnknowns ? [...rec.unknowns, ...rec.phaseUnknowns] : rec.unknowns });
  }
  phases.push(...inferencePhases(rec, it, phases));
  phases.push(...trainingPhases(rec, it, phases, params));
  addTrainingLeftovers(rec, it, phases, params);
  const placed = rec.framework === 'torch' || rec.framework === 'transformers' ? handPlacement(rec, it) : undefined;
  addHeldAtLoad(rec, phases);
  if (placed) applyHandPlacement(phases, placed);
  else if (rec.framework === 'torch' || rec.framework === 'transformers') shardHostLoad(rec, it, phases, Number(it.state.get('deviceCount') ?? spec.count));
  void spec;
  return {
    name: rec.name, framework: rec.framework, span: rec.span, definitionSpan: rec.definitionSpan, ...(rec.entrySpan ? { entrySpan: rec.entrySpan } : {}), ...(rec.viaSpans ? { viaSpans: rec.viaSpans } : {}),
    params: params.map(fact), buffers: buffers.map(fact), paramCount: count, phases, unknowns,
    runtime: runtimeFacts(rec, versions, it),
  };
}

/**
 * A transformers model loaded on the host and cast on its way to the accelerator (`.to("cuda", dtype=torch.float16)`
 * in one call, or `.half()` before `.cuda()`): the device only ever holds the cast tensors (Module._apply makes each
 * new tensor on the target from the host one), so the load phase holds them in the dtype they arrive in. A cast
 * after the move (on the device) keeps the events as loaded.
 */
/**
 * Whether a cast of the module (`.half()`, `.to(dtype)`) happened where it runs: after a move to the accelerator, or
 * on a module never moved (the load phase stands for it where it was built). A cast on the host before the move, or
 * in the moving call itself, reaches the device already cast (torch/semantics.ts cast).
 */
function castOnDevice(it: Interpreter, id: number): boolean {
  return it.state.has(`castFrom:${id}:onDevice`) || !it.state.has(`moved:${id}`);
}

function offDeviceCast(rec: ModelRecord, it: Interpreter): MemoryEvent[] {
  const r = rec.result;
  if (rec.framework !== 'transformers' || r?.t !== 'inst') return rec.events;
  if (castOnDevice(it, r.id)) return rec.events;
  const now = new Map<number, TensorFact['dtype']>();
  visitTensors(r, (t) => { now.set(t.id, t.dtype); });
  return rec.events.map((e) => {
    if (e.op !== 'alloc' || (e.tensor.role !== 'param' && e.tensor.role !== 'buffer')) return e;
    const d = now.get(e.tensor.id);
    return d && d !== e.tensor.dtype ? { ...e, tensor: { ...e.tensor, dtype: d, group: e.tensor.group?.replace(`(${e.tensor.dtype})`, `(${d})`) } } : e;
  });
}

/**
 * `model.load_state_dict(torch.load(path, map_location=...))`: the checkpoint is a second copy of the module's
 * state dict (shapes and dtypes as the module had them at the call), alive next to the module while the
 * program keeps a reference to it (here: a module-level name at the end of the file). It occupies the
 * accelerator when map_location names one, when it is left out (torch restores each tensor to the device it
 * when the module itself is never moved off the host (then both share the memory the load phase stands for);
 * `map_location="cpu"` with a module moved to an accelerator keeps it on the host. Without map_location torch
 * restores each tensor to the device it was saved from, which the program does not say (a checkpoint converted on
 * the host comes back on the host, one saved by a GPU training run on the GPU): that copy is an unknown of the
 * phase, with its size, never a number on a guess.
 * Sources: torch/serialization.py `load` (map_location); torch/nn/modules/module.py `_load_from_state_dict`.
 */
function stateDictEvents(rec: ModelRecord, it: Interpreter, unknowns: Unknown[]): MemoryEvent[] {
  const uses = (it.state.get('torchStateDicts') as TorchStateDict[] | undefined)?.filter((u) => u.module === rec.result) ?? [];
  const out: MemoryEvent[] = [];
  let nid = 3_500_000_000;
  const rid = rec.result?.t === 'inst' ? rec.result.id : undefined;
  // Where the module went to run (the accelerator) — not where the program leaves it: a `model.cpu()` before
  // saving at the end does not put a host checkpoint on the device (`deviceOnce:`, torch/semantics.ts cast).
  const moved = rid !== undefined ? it.state.get(`deviceOnce:${rid}`) ?? it.state.get(`moved:${rid}`) : undefined;
  for (const u of uses) {
    const ml = u.checkpoint.t === 'extern' ? u.checkpoint.args?.[0] : undefined;
    const loc = ml?.t === 'str' ? ml.v : ml?.t === 'extern' && ml.name === '__device__' && ml.args?.[0]?.t === 'str' ? ml.args[0].v : ml?.t === 'none' || ml === undefined ? undefined : '?';
    if (loc === 'cpu' && moved !== undefined && moved !== 'cpu') continue;
    if (loc === undefined) {
      const bytes = u.tensors.reduce((a, t) => a + (t.shape.every((d) => typeof d === 'number') ? (t.shape as number[]).reduce((x, y) => x * y, 1) * dtypeBytes(t.dtype) : 0), 0);
      unknowns.push({ what: 'checkpoint', span: u.span, reason: `torch.load without map_location: the checkpoint's ${u.tensors.length} tensors (${formatBytes(bytes)}) come back on the device they were saved from, which the program does not say; on the accelerator they add ${formatBytes(bytes)} next to the model (map_location="cpu" keeps them on the host)` });
      continue;
    }
    const held = [...it.globals.vars.values()].some((v) => v === u.checkpoint);
    const ids: number[] = [];
    for (const t of u.tensors) {
      if (!t.shape.every((d) => typeof d === 'number')) continue;
      const id = nid++;
      ids.push(id);
      out.push({ op: 'alloc', tensor: {
        id, label: `state dict: ${t.label}`, group: `state dict: torch.load (${t.dtype})`, shape: t.shape as number[], dtype: t.dtype, role: 'input',
        placement: { kind: 'device', index: 0 }, span: u.span,
        note: `the loaded checkpoint, a copy of the module's state dict${loc ? ` (map_location=${loc})` : ''}${held ? ', still referenced by the program' : ', freed after load_state_dict'}`,
        citation: 'torch/serialization.py load (map_location); torch/nn/modules/module.py _load_from_state_dict (param.copy_)',
      } });
    }
    if (!held) for (const id of ids) out.push({ op: 'free', id });
  }
  return out;
}

/** Whether an instance other than `target` holds it in an attribute (or a list/dict attribute), reachable from `roots`. */
/**
 * The module instances reachable from `root` through attributes, container items (nn.ModuleList / Sequential /
 * ModuleDict) and the lists, tuples and dicts they hold, `root` itself excluded. Bounded in depth and size.
 */
function reachableInstances(root: Value): Set<unknown> {
  const out = new Set<unknown>();
  const seen = new Set<unknown>();
  const walk = (v: unknown, depth: number): void => {
    if (!v || typeof v !== 'object' || depth > 32 || seen.has(v) || seen.size > 200_000) return;
    seen.add(v);
    const x = v as { t?: string; attrs?: Map<string, unknown>; items?: unknown[]; vals?: unknown[] };
    if (x.t === 'inst') {
      if (v !== root) out.add(v);
      if (x.attrs) for (const a of x.attrs.values()) walk(a, depth + 1);
      if (x.items) for (const a of x.items) walk(a, depth + 1);
    } else if ((x.t === 'list' || x.t === 'tuple') && x.items) for (const a of x.items) walk(a, depth + 1);
    else if (x.t === 'dict' && x.vals) for (const a of x.vals) walk(a, depth + 1);
  };
  walk(root, 0);
  return out;
}

/** One file-level unknown for `count` models left unsized from `first` on (its line when it is in this file), and why. */
function notSized(text: string, count: number, first: ModelRecord, why: string): Unknown {
  const where = first.span.file ? '' : `, from line ${lineIndex(computeLineStarts(text), first.span.start) + 1} on,`;
  const what = count === 1 ? '1 more model' : `${count} more models`;
  return { what: 'analysis', reason: `${what}${where} ${count === 1 ? 'is' : 'are'} not sized: ${why}`, ...(first.span.file ? {} : { span: first.span }) };
}

function heldByAnother(target: object, roots: Iterable<unknown>): boolean {
  const seen = new Set<unknown>();
  const walk = (v: unknown, inInst: boolean, depth: number): boolean => {
    if (!v || typeof v !== 'object' || depth > 12) return false;
    if (v === target) return inInst;
    if (seen.has(v)) return false;
    seen.add(v);
    const x = v as { t?: string; attrs?: Map<string, unknown>; items?: unknown[]; vals?: unknown[] };
    if (x.t === 'inst' && x.attrs) { for (const a of x.attrs.values()) if (walk(a, true, depth + 1)) return true; return false; }
    if ((x.t === 'list' || x.t === 'tuple') && x.items) { for (const a of x.items) if (walk(a, inInst, depth + 1)) return true; return false; }
    if (x.t === 'dict' && x.vals) { for (const a of x.vals) if (walk(a, inInst, depth + 1)) return true; }
    return false;
  };
  for (const r of roots) if (walk(r, false, 0)) return true;
  return false;
}

function runtimeFacts(rec: ModelRecord, versions: Record<string, string>, it: Interpreter): ModelFacts['runtime'] {
  if (rec.framework === 'torch' || rec.framework === 'transformers') return { runtime: 'torch', versions };
  const jax: NonNullable<ModelFacts['runtime']['jax']> = { threefryPartitionable: threefryPartitionable(it).value };
  for (const e of envSets(it)) {
    if (e.afterBackend) continue; // set after the backend started: ignored by JAX
    const v = e.value.t === 'str' ? e.value.v : undefined;
    if (v === undefined) continue;
    // Only 'false', 'False' and '0' disable preallocation (jaxlib/xla_client.py generate_pjrt_gpu_plugin_options).
    if (e.name === 'XLA_PYTHON_CLIENT_PREALLOCATE') jax.preallocate = !['false', 'False', '0'].includes(v);
    if (e.name === 'XLA_PYTHON_CLIENT_MEM_FRACTION' || e.name === 'XLA_CLIENT_MEM_FRACTION') {
      const f = Number(v);
      if (Number.isFinite(f) && f > 0 && f <= 1) jax.memFraction = f;
    }
    if (e.name === 'XLA_PYTHON_CLIENT_ALLOCATOR') jax.allocator = v.toLowerCase();
  }
  return { runtime: 'jax', jax, versions };
}

function suppressed(text: string, starts: number[], offset: number, code: string): boolean {
  const i = lineIndex(starts, offset);
  const end = i + 1 < starts.length ? starts[i + 1] : text.length;
  const line = text.slice(starts[i], end);
  const m = /#\s*oomlens:\s*ignore(?:\[([^\]]*)\])?/.exec(line);
  if (!m) return false;
  if (!m[1]) return true;
  return m[1].split(',').map((s) => s.trim()).includes(code);
}

export function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function lineIndex(starts: number[], offset: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The first import of another library that allocates GPU memory in the same process (it competes with JAX's pool). */
function otherGpuImport(tree: Tree): { span: { start: number; end: number }; name: string } | undefined {
  for (const s of tree.rootNode.namedChildren) {
    if (!s || (s.type !== 'import_statement' && s.type !== 'import_from_statement')) continue;
    const m = /^(?:import|from)\s+(torch|tensorflow|cupy)\b/.exec(s.text);
    if (m) return { span: { start: s.startIndex, end: s.endIndex }, name: m[1] };
  }
  return undefined;
}

/**
 * Where a module-level statement that needs the `jax` module goes, from the syntax tree: right after the
 * first top-level import that binds the jax module (`import jax`, `import jax as jx`, `import jax.numpy`),
 * under the name it binds; else before the first import of jax or a jax library, importing jax there.
 */
function jaxModuleSite(tree: Tree): { at: number; name: string; importJax: boolean } | undefined {
  let first: { at: number } | undefined;
  for (const s of tree.rootNode.namedChildren) {
    if (!s || (s.type !== 'import_statement' && s.type !== 'import_from_statement')) continue;
    if (s.type === 'import_statement') {
      for (const c of s.namedChildren) {
        if (!c) continue;
        const dotted = c.type === 'aliased_import' ? c.childForFieldName('name') : c.type === 'dotted_name' ? c : null;
        const alias = c.type === 'aliased_import' ? c.childForFieldName('alias')?.text : undefined;
        if (!dotted) continue;
        const parts = dotted.text.split('.').map((x) => x.trim());
        if (parts[0] !== 'jax') continue;
        // `import jax.numpy as jnp` binds jnp, not jax; `import jax.numpy` binds jax.
        if (alias && parts.length > 1) continue;
        return { at: s.endIndex, name: alias ?? 'jax', importJax: false };
      }
    }
    const mod = s.type === 'import_from_statement' ? s.childForFieldName('module_name')?.text : s.namedChildren.map((c) => c?.text ?? '').join(',');
    if (!first && mod && /(^|,)\s*(jax|equinox|flax|haiku|optax)\b/.test(mod)) first = { at: s.startIndex };
  }
  return first ? { at: first.at, name: 'jax', importJax: true } : undefined;
}

function firstJaxImport(tree: Tree, text: string): { start: number; end: number } | undefined {
  void text;
  for (const s of tree.rootNode.namedChildren) {
    if (!s) continue;
    if ((s.type === 'import_statement' || s.type === 'import_from_statement') && /\b(jax|equinox|flax|haiku|optax)\b/.test(s.text)) {
      return { start: s.startIndex, end: s.endIndex };
    }
  }
  return undefined;
}

