/** The rule registry: every rule, in code order. */
import { exceedsDeviceMemory } from './exceeds-device-memory';
import { fullPrecisionFromPretrained } from './full-precision-from-pretrained';
import { initOutsideJit } from './init-outside-jit';
import { jaxEnvAfterBackendStart } from './jax-env-after-backend-start';
import { jaxPreallocation } from './jax-preallocation';
import type { Rule } from './types';
import { unpartitionedRandomInit } from './unpartitioned-random-init';
import { vmappedFullPrecisionInit } from './vmapped-full-precision-init';

export const RULES: Rule[] = [
  exceedsDeviceMemory,
  vmappedFullPrecisionInit,
  unpartitionedRandomInit,
  initOutsideJit,
  fullPrecisionFromPretrained,
  jaxEnvAfterBackendStart,
  jaxPreallocation,
];
