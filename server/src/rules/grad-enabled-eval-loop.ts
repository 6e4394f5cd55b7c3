/**
 * ## What it does
 * Finds loops that run a model forward with autograd on (no
 * `torch.no_grad()` / `torch.inference_mode()` around them) and keep what
 * comes out across iterations: `outputs.append(model(x))`,
 * `total = total + loss`, `all_logits.extend(out.logits)`.
 *
 * ## Why is this bad?
 * With autograd on, every tensor that comes out of a forward pass refers
 * to the graph that produced it, and the graph keeps every activation saved
 * for a backward pass alive. Keeping the outputs keeps all of them: memory
 * grows by one forward's activations per iteration until CUDA runs out.
 * `model.eval()` does not help: it switches dropout and batch norm to
 * inference behaviour, it does not turn autograd off.
 *
 * ## Example
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
 * model.eval()
 * batches = [torch.randint(0, 50257, (8, 1024), device="cuda") for _ in range(100)]
 * outputs = []
 * for ids in batches:
 *     out = model(input_ids=ids)
 *     outputs.append(out.logits)
 * ```
 *
 * ## Use instead
 * ```python
 * import torch
 * from transformers import AutoModelForCausalLM
 * model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
 * model.eval()
 * batches = [torch.randint(0, 50257, (8, 1024), device="cuda") for _ in range(100)]
 * outputs = []
 * with torch.inference_mode():
 *     for ids in batches:
 *         out = model(input_ids=ids)
 *         outputs.append(out.logits)
 * ```
 *
 * ## Fix safety
 * Unsafe: tensors made under `torch.inference_mode()` cannot take part in
 * autograd later (nor be updated in place outside it); if the kept outputs
 * are meant for a backward pass, this is a training loop and the fix is
 * wrong. Loops that call `.backward(` or `.step(` are never reported.
 *
 * ## References
 * - PyTorch docs, torch.no_grad: "Disabling gradient calculation is useful for inference ... It will reduce memory consumption for computations that would otherwise have requires_grad=True"
 * - PyTorch docs, nn.Module.eval: "This has any effect only on certain modules ... e.g. Dropout, BatchNorm"
 * - PyTorch docs, torch.inference_mode: "tensors created in this mode cannot be used in computations recorded by autograd"
 * - PyTorch FAQ (notes/faq.rst): "Don't accumulate history across your training loop"
 * - Korthikanti et al. 2022, arXiv:2205.05198 §4 (activations kept for backward, the per-iteration size)
 */
import { gradLoops } from '../phases/inference';
import type { Rule } from './types';
import { fmt } from './util';

export const gradEnabledEvalLoop: Rule = {
  code: 'OOM302',
  name: 'grad-enabled-eval-loop',
  status: 'stable',
  severity: 'warning',
  fixable: 'always',
  summary: 'A loop keeps forward outputs with autograd on: every iteration\'s activations stay alive.',
  check(ctx) {
    const rec = ctx.models[0]?.record;
    if (!rec) return [];
    return gradLoops(rec).map((l) => {
      // torch spelled by the name the program binds it to; imported next to the loop when no name holds it.
      const torch = l.torchName ?? 'torch';
      const imp = l.torchName ? '' : `${l.indent}import torch\n`;
      const per = l.perIteration ? ` About ${fmt(l.perIteration.bytes)} per iteration at the input shape seen (${l.perIteration.formula}).` : '';
      const body = l.loopText.split('\n').map((line) => (line.trim() === '' ? line : `    ${line}`)).join('\n');
      return {
        span: l.call,
        message: `\`${l.callee}\` runs with autograd on in this loop and \`${clip(l.keepText)}\` keeps its output, so every iteration's activations stay alive (model.eval() does not turn autograd off).${per} Wrap the loop in \`with ${torch}.inference_mode():\`.`,
        related: [{ span: l.keep, message: 'the output is kept here' }],
        fixes: [{
          title: `Run the loop under ${torch}.inference_mode()`,
          applicability: 'unsafe' as const,
          edits: [{ start: l.loopLineStart, end: l.loop.end, newText: `${imp}${l.indent}with ${torch}.inference_mode():\n${body}` }],
        }],
      };
    });
  },
};

function clip(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}
