/**
 * The rule contract. A rule is one object in one file, with its
 * documentation in the doc comment above it (What it does / Why is this
 * bad? / Example / Use instead / Fix safety / References, as in ruff).
 * Rules never walk the syntax tree: they read the facts the interpreter
 * recorded (models, their estimates and observations, runtime settings).
 */
import type { Span } from '../../../shared/src/facts';
import type { DeviceSpec } from '../../../shared/src/types';
import type { Finding, ModelReport, Severity } from '../analysis/api';
import type { ModelRecord } from '../interp/memory';
import type { ConfigSet, EnvSet } from '../frameworks/jax/runtime';
import type { HfLoad } from '../frameworks/transformers/semantics';

export interface RuleContext {
  text: string;
  path?: string;
  target: DeviceSpec;
  models: { report: ModelReport; record: ModelRecord }[];
  runtime: {
    envSets: EnvSet[];
    configSets: ConfigSet[];
    /** The first operation that started JAX's backend, if any. */
    backendStart?: { span: Span; what: string };
    /** The first `import jax` (or jax submodule / jax library) statement. */
    firstJaxImport?: Span;
    /** Where a statement using the jax module goes (analysis/analyze.ts jaxModuleSite): after the import that binds it (under `name`), or before the first jax-library import with `import jax` added. */
    jaxModuleSite?: { at: number; name: string; importJax: boolean };
    /** The first import of another GPU library (torch, tensorflow, cupy) in the same program. */
    otherGpuImport?: { span: Span; name: string };
    versions: Record<string, string>;
    threefryPartitionable: { value: boolean; why: string };
  };
  hfLoads: HfLoad[];
  /** Re-analyses edited text (used to state the peak after a fix in messages). */
  lineOf(offset: number): number;
}

export interface Rule {
  code: string;
  name: string;
  status: 'stable' | 'preview';
  severity: Severity;
  /** Whether the rule offers fixes: always, sometimes, or never. */
  fixable: 'always' | 'sometimes' | 'never';
  /** One-line summary for the docs index. */
  summary: string;
  check(ctx: RuleContext): Omit<Finding, 'code' | 'name' | 'severity'>[];
}
