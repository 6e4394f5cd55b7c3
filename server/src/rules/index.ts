/** The rule registry: every rule, in code order. */
import { activationsWithoutCheckpointing } from './activations-without-checkpointing';
import { exceedsDeviceMemory } from './exceeds-device-memory';
import { fullPrefillLogits } from './full-prefill-logits';
import { fullPrecisionFromPretrained } from './full-precision-from-pretrained';
import { fullPrecisionOptimizerState } from './full-precision-optimizer-state';
import { gradEnabledEvalLoop } from './grad-enabled-eval-loop';
import { initOutsideJit } from './init-outside-jit';
import { jaxEnvAfterBackendStart } from './jax-env-after-backend-start';
import { jaxPreallocation } from './jax-preallocation';
import { optimizerStateExceedsDevice } from './optimizer-state-exceeds-device';
import { oversizedKvCache } from './oversized-kv-cache';
import type { Rule } from './types';
import { unpartitionedRandomInit } from './unpartitioned-random-init';
import { vmappedFullPrecisionInit } from './vmapped-full-precision-init';

export const RULES: Rule[] = [
  exceedsDeviceMemory,
  vmappedFullPrecisionInit,
  unpartitionedRandomInit,
  initOutsideJit,
  fullPrecisionFromPretrained,
  oversizedKvCache,
  gradEnabledEvalLoop,
  fullPrefillLogits,
  fullPrecisionOptimizerState,
  activationsWithoutCheckpointing,
  optimizerStateExceedsDevice,
  jaxEnvAfterBackendStart,
  jaxPreallocation,
];
