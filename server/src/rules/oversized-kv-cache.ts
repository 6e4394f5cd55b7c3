/**
 * ## What it does
 * Finds `model.generate(...)` calls whose key/value cache is larger than
 * the model's weights, or is what pushes the inference peak past the
 * device's memory while the weights alone fit.
 *
 * ## Why is this bad?
 * The cache holds a key and a value vector per layer, KV head, position
 * and sequence: 2 × layers × kv_heads × head_dim × (prompt + new tokens − 1)
 * × batch × num_beams × bytes. It grows with every generated token, so a run
 * that loads fine fails with CUDA out of memory hundreds of tokens into
 * generation. Llama-2-7B in float16 needs 512 KiB per token: 4,096 tokens
 * are 2 GiB per sequence, and 8 beams over a 4,096-token context are 16 GiB,
 * more than its 13.5 GB of weights.
 *
 * ## Example
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16, device_map="cuda:0")
 * ids = torch.randint(0, 32000, (4, 2048), device="cuda:0")
 * out = model.generate(ids, max_new_tokens=2048, num_beams=4)
 * ```
 *
 * ## Use instead
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16, device_map="cuda:0")
 * ids = torch.randint(0, 32000, (4, 2048), device="cuda:0")
 * out = model.generate(ids, max_new_tokens=2048, num_beams=4, cache_implementation="offloaded")
 * ```
 *
 * The same holds for a cache the model's own code preallocates
 * (`self.cache_k = torch.zeros((max_batch_size, max_seq_len, n_kv_heads,
 * head_dim))`, as in Meta's Llama reference model.py): it is allocated
 * for `max_batch_size` sequences when the model is built, however few
 * prompts are then run. When every forward of the program uses fewer rows
 * than the cache's leading (batch) dimension, the unused rows are reported
 * when they are larger than the weights or when without them the peak
 * would fit.
 *
 * ```python
 * class Attention(nn.Module):
 *     def __init__(self, dim, n_heads, max_batch_size, max_seq_len):
 *         super().__init__()
 *         self.wq = nn.Linear(dim, dim, bias=False, dtype=torch.float16)
 *         self.cache_k = torch.zeros((max_batch_size, max_seq_len, n_heads, dim // n_heads), dtype=torch.float16).cuda()
 *         self.cache_v = torch.zeros((max_batch_size, max_seq_len, n_heads, dim // n_heads), dtype=torch.float16).cuda()
 * ...
 * model = Transformer(max_batch_size=32, max_seq_len=2048).cuda()
 * tokens = torch.zeros((4, 64), dtype=torch.long, device="cuda")   # 4 prompts
 * ```
 * Use `max_batch_size=4` (the fix rewrites the integer literal the cache rows
 * were written as, a keyword, a positional argument, a constant or a default,
 * when it is in the file).
 *
 * ## Fix safety
 * Unsafe. `cache_implementation="offloaded"` keeps the output but moves
 * all but about three layers' cache to CPU memory (slower, needs host RAM).
 * Lowering `max_new_tokens` to what fits changes how much text is
 * generated. Lowering a preallocated cache's `max_batch_size` to the
 * number of prompts used makes a later call with more prompts fail (Meta's
 * generate asserts `bsz <= max_batch_size`). Other options, not offered as edits: fewer prompts or beams
 * per call, a quantized cache (`cache_implementation="quantized"`), or more
 * devices (`device_map="auto"` puts each layer's cache with its layer).
 *
 * ## References
 * - transformers generation/utils.py: `max_cache_length = generation_config.max_length - 1`; `_expand_inputs_for_generation(expand_size=max(num_beams, num_return_sequences))`
 * - transformers cache_utils.py: `DynamicLayer.update` (torch.cat per layer), `OffloadedCache` (prefetch layer k+1, evict k-1)
 * - transformers docs, kv_cache.md ("Best Practices for Generation with Cache")
 * - meta-llama/llama model.py `Attention.__init__` (cache_k / cache_v of `(args.max_batch_size, args.max_seq_len, n_local_kv_heads, head_dim)`), generation.py `assert bsz <= params.max_batch_size`
 */
import type { PhaseEstimate } from '../../../shared/src/types';
import { handCaches, inferenceUses } from '../phases/inference';
import type { Rule } from './types';
import { deviceLabel, fmt } from './util';

export const oversizedKvCache: Rule = {
  code: 'OOM301',
  name: 'oversized-kv-cache',
  status: 'stable',
  severity: 'warning',
  fixable: 'sometimes',
  summary: 'generate() builds a KV cache larger than the weights, or one that does not fit next to them.',
  check(ctx) {
    const out = [];
    for (const { report, record } of ctx.models) {
      const phase = report.estimate.phases.find((p) => p.phase === 'inference');
      if (!phase || phase.peakBytes === null) continue;
      const weights = report.estimate.paramBytes;
      const kvOnPeak = sumRole(phase, 'kv-cache');
      for (const u of inferenceUses(record)) {
        if (u.kind !== 'generate' || !u.sized) continue;
        const s = u.sized;
        const bigger = weights !== null && s.bytes > weights && u.cache !== 'offloaded';
        // The cache is to blame when the peak is where it is at full length (the last decode step, or any step of a
        // static cache), not a prefill whose own working set (OOM303) is the larger term.
        const atFullCache = u.cache === 'static' || phase.breakdown.some((c) => c.label.startsWith('decode step'));
        const tips = phase.fits === false && kvOnPeak > 0 && atFullCache && phase.peakBytes - kvOnPeak <= phase.budgetBytes;
        if (!bigger && !tips) continue;
        const kind = u.cache === 'static' ? 'static' : u.cache === 'offloaded' ? 'offloaded' : 'dynamic';
        let message = `generate() builds a ${kind} KV cache of ${s.lowerBound ? 'at least ' : ''}${fmt(s.bytes)} (${s.tokens.toLocaleString('en-US')} positions × ${s.batch} sequence${s.batch > 1 ? 's' : ''}: ${s.formula})`;
        if (bigger) message += `, larger than the ${fmt(weights!)} of weights`;
        if (tips) message += `; with it the inference peak is ${fmt(phase.peakBytes)} of ${fmt(phase.budgetBytes)} usable on ${deviceLabel(ctx.target)}, without it ${fmt(phase.peakBytes - kvOnPeak)} would fit`;
        const fixes = [];
        const hints: string[] = [];
        if (u.cache === 'dynamic') {
          fixes.push({
            title: 'Offload the KV cache to CPU memory (cache_implementation="offloaded")',
            applicability: 'unsafe' as const,
            edits: [{ start: u.insertAt, end: u.insertAt, newText: `${u.hasArgs ? ', ' : ''}cache_implementation="offloaded"` }],
          });
        }
        // Largest max_new_tokens that fits: the budget less what is not cache, over the bytes each position adds
        // (all layers' K and V, plus the torch.cat copy of one layer's keys in a dynamic cache).
        if (tips && ctx.target.count === 1 && u.maxNewTokensArg && u.promptTokens !== null && u.cache !== 'offloaded') {
          const other = phase.peakBytes - kvOnPeak - transientAt(phase);
          const perToken = s.perToken + (u.cache === 'dynamic' ? s.layerPerToken : 0);
          const positions = Math.floor((phase.budgetBytes - other) / perToken) - 1;
          const fit = positions - u.promptTokens + 1;
          if (fit >= 1 && u.maxNewTokens !== undefined && fit < u.maxNewTokens) {
            hints.push(`max_new_tokens=${fit} fits`);
            fixes.push({
              title: `Generate at most ${fit} new tokens (max_new_tokens=${fit})`,
              applicability: 'unsafe' as const,
              edits: [{ start: u.maxNewTokensArg.start, end: u.maxNewTokensArg.end, newText: String(fit) }],
            });
          }
        }
        if (s.batch > 1) hints.push(`fewer sequences per call (${s.batch} now; the cache scales with them)`);
        hints.push('a quantized cache (cache_implementation="quantized")');
        if (u.cache === 'dynamic') hints.push(`an offloaded cache (about 3 of ${s.layers} layers on the device)`);
        hints.push('or more devices (device_map="auto" keeps each layer\'s cache with its layer)');
        message += `. Options: ${hints.join(', ')}.`;
        out.push({ span: u.span, message, related: [], fixes });
      }
    }
    out.push(...unusedCacheRows(ctx));
    return out;
  },
};

/**
 * Hand-written caches sized for more sequences than any forward of the program runs: the rows beyond the
 * largest batch used hold memory from construction on. Reported when those rows are larger than the
 * weights or when, without them, the inference peak would fit.
 */
function unusedCacheRows(ctx: Parameters<Rule['check']>[0]): ReturnType<Rule['check']> {
  const out: ReturnType<Rule['check']> = [];
  for (const { report, record } of ctx.models) {
    const caches = handCaches(record);
    if (!caches.length) continue;
    const phase = report.estimate.phases.find((p) => p.phase === 'inference');
    if (!phase || phase.peakBytes === null) continue;
    const uses = inferenceUses(record);
    const batches = uses.map((u) => u.batch);
    if (!batches.length || batches.some((b) => b === null)) continue;
    const used = Math.max(...(batches as number[]), 1);
    const rows = caches[0].shape[0];
    const sized = caches.filter((c) => c.shape[0] === rows);
    if (!(rows > used) || sized.length !== caches.length) continue;
    const total = sized.reduce((a, c) => a + c.bytes, 0);
    const unused = Math.floor((total * (rows - used)) / rows);
    const weights = report.estimate.paramBytes;
    const bigger = weights !== null && unused > weights;
    const tips = phase.fits === false && phase.peakBytes - unused <= phase.budgetBytes;
    if (!bigger && !tips) continue;
    let message = `${sized.length} preallocated KV cache tensors (${sized[0].label.replace(/\.(cuda|to|half|bfloat16|float)$/, '')}, …) hold ${fmt(total)} for ${rows} sequences, but the program runs at most ${used} at a time: the other ${rows - used} rows are ${fmt(unused)}`;
    if (bigger) message += `, more than the ${fmt(weights!)} of weights`;
    if (tips) message += `; without them the inference peak would be ${fmt(phase.peakBytes - unused)} instead of ${fmt(phase.peakBytes)} (${fmt(phase.budgetBytes)} usable on ${deviceLabel(ctx.target)})`;
    message += `. Size the cache for the prompts actually run (max_batch_size=${used}).`;
    // The integer literal every cache's batch dimension was written as (a keyword, a positional argument, a
    // constant, a default), when it reached the cache unchanged and is in this file: the fix rewrites it there.
    const lit = sized[0].batchLit;
    const same = lit && !lit.file && sized.every((c) => c.batchLit && c.batchLit.start === lit.start && c.batchLit.end === lit.end);
    const fixes = same ? [{
      title: `Preallocate the cache for ${used} sequences (${ctx.text.slice(lit.start, lit.end)} → ${used})`,
      applicability: 'unsafe' as const,
      edits: [{ start: lit.start, end: lit.end, newText: String(used) }],
    }] : [];
    const span = same ? lit : sized[0].span ?? uses[0].span;
    out.push({ span, message, related: [], fixes });
  }
  return out;
}

function sumRole(p: PhaseEstimate, role: string): number {
  return p.breakdown.filter((c) => c.role === role).reduce((a, c) => a + c.bytes, 0);
}

/** The transient (a step's working memory) counted in the peak, if any. */
function transientAt(p: PhaseEstimate): number {
  return p.breakdown.filter((c) => c.formula !== undefined).reduce((a, c) => a + c.bytes, 0);
}
