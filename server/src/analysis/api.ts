/**
 * What one analysis of one file produces: models with their estimates, and
 * rule findings with their fixes. The LSP handlers and the CLI consume only
 * this; offsets are UTF-16 offsets into the analysed text.
 */
import type { LaunchCommand } from '../program/launch';
import type { ModelFacts, Span, Unknown } from '../../../shared/src/facts';
import type { Estimate } from '../../../shared/src/types';

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** How safe a fix is to apply without review (ruff's applicability). */
export type Applicability = 'safe' | 'unsafe' | 'display';

export interface TextEdit { start: number; end: number; newText: string }

export interface Fix {
  /** Imperative title, e.g. "Build each layer in float16". */
  title: string;
  applicability: Applicability;
  edits: TextEdit[];
  /** The fix the rule recommends first. */
  preferred?: boolean;
}

export interface RelatedSite { span: Span; message: string }

export interface Finding {
  code: string;          // 'OOM101'
  name: string;          // 'vmapped-full-precision-init'
  severity: Severity;
  span: Span;
  message: string;
  related: RelatedSite[];
  fixes: Fix[];
}

export interface ModelReport {
  facts: ModelFacts;
  estimate: Estimate;
  /**
   * How the model was reached when the file's own code does not build it:
   * "as built in train.py:142", "built from GPTConfig() defaults",
   * "declared in pyproject.toml (llama-2-7b)". Absent for the file's own constructions.
   */
  origin?: string;
  /**
   * The launch command whose arguments the program was analysed with:
   * "args from scripts/train.sh:12 (torchrun, 8 processes)". Absent for a run with no arguments.
   */
  run?: string;
}

/** A model class of the file that got no number, and why (what is missing). */
export interface UnbuiltModel { name: string; span: Span; reason: string }

/**
 * A model the program keeps on the host only (a transformers copy loaded without a device_map and only read for
 * its state dict): its memory is host RAM, not the accelerator's, so it gets no device phases and no verdict.
 */
export interface HostModel { name: string; framework: string; span: Span; paramCount: number | null; bytes: number | null; reason: string }

export interface AnalysisResult {
  /** The text that was analysed (offsets refer to it). */
  text: string;
  models: ModelReport[];
  findings: Finding[];
  /** Workspace files the analysis read (imported modules), absolute paths. */
  dependencies?: string[];
  /** Model classes defined here that no program, default or declaration built. */
  unbuilt: UnbuiltModel[];
  /** Models that live on the host only (never on the accelerator): listed, not estimated. */
  host?: HostModel[];
  /** File-level problems: parse errors, budget exhaustion, unreadable config. */
  unknowns: Unknown[];
  /** Milliseconds the analysis took. */
  elapsedMs: number;
}

export interface AnalyzeOptions {
  /** Path of the file on disk, used to find requirements.txt / pyproject.toml beside it. */
  path?: string;
  /** Target device spec, e.g. 'a100-40gb' or '8xh100-80gb'. */
  device: string;
  /** Rule codes to skip. */
  disabledRules?: string[];
  /** Per-rule severity overrides. */
  severityOverrides?: Record<string, Severity | 'off'>;
  /** Include preview rules. */
  preview?: boolean;
  /** Pinned versions supplied by the caller (otherwise read from files near `path`). */
  versions?: Record<string, string>;
  /** The workspace root (imports resolve inside it); default: the nearest folder up with pyproject.toml, setup.py or .git. */
  workspaceRoot?: string;
  /** Hard limit on interpretation steps, so no input can hang the analysis. */
  stepBudget?: number;
  /** Wall-clock budget of the interpretation in ms (default 20 s); past it the rest is an unknown. */
  timeBudgetMs?: number;
  /** How long sizing the models may run past `timeBudgetMs` (default 1 s); the models left are one unknown. */
  sizingGraceMs?: number;
  /** How long parsing the file may take in ms (default PARSE_DEADLINE_MS, 3 s); past it the file is not analysed, with the reason. */
  parseDeadlineMs?: number;
  /** Heap budget in MiB (default 2048); past it the rest is an unknown. */
  heapBudgetMb?: number;
  /** Polled while interpreting: true ends the run by throwing `Cancelled` (the caller drops it). */
  cancelled?: () => boolean;
  /**
   * The command line the file is run with (program/launch.ts). Undefined: the first command in the
   * workspace that runs the file, if any; null: a run with no arguments.
   */
  launch?: LaunchCommand | null;
  /**
   * Classes of another file (`file`, the class statements at offsets `starts`) whose instances this program
   * builds only as parts of a model of its own (`DDPM(eps_model=UNet(3, 3))`): reported as models too, so that
   * file can show its class as the program builds it (program/project.ts).
   */
  partsOf?: { file: string; starts: number[] };
  /** Told of every internal error the analysis survived (a bug in oomlens), with the error and its stack. */
  onInternalError?: (where: string, error: unknown) => void;
}

/** Where a model is shown in the analysed file: its construction, or its class when it is built in another file. */
export function anchorSpan(m: ModelReport): Span {
  if (!m.facts.span.file) return m.facts.span;
  if (m.facts.definitionSpan && !m.facts.definitionSpan.file) return m.facts.definitionSpan;
  return m.facts.entrySpan && !m.facts.entrySpan.file ? m.facts.entrySpan : m.facts.span;
}
