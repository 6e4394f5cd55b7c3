/**
 * The environment the language server is started with (by the extension, and
 * by the test harness, which starts it as the extension does).
 *
 * glibc's malloc keeps a large block it has freed for reuse instead of giving
 * it back: after a block allocated with mmap is freed, its dynamic mmap
 * threshold rises to that block's size (up to 32 MB), and later blocks of that
 * size come from the thread's arena, where a freed block is returned to the
 * system only from the top of the arena. Analyses of large documents move
 * megabyte-sized native buffers (message serialization, array buffers, the
 * garbage collector's work lists) and left them resident, fragmented:
 * `npm run fuzz` (seed 1) measured idle RSS +37 MB in 120 s (quiet points
 * up to +73) with these settings alone, +132 MB in 150 s without
 * (docs/performance.md, "Idle RSS under the fuzzer"). Fixing both
 * thresholds at glibc's initial 128 KiB turns off the dynamic adjustment
 * (mallopt(3), "M_MMAP_THRESHOLD": setting it disables the adjustment).
 * Tunables the user already set are kept and win. Other C libraries ignore
 * the variable.
 */
export const MALLOC_TUNABLES = 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072';

/**
 * `codeCacheDir`: where the server may keep the V8 code caches of its bundles (server/src/boot/codeCache.ts):
 * the extension's own storage, never a workspace. VS Code runs the server on its own Node, whose V8 rejects the
 * caches a build made beside the bundles; the server then makes its own there after its first analyses, and
 * later starts load them (docs/performance.md).
 */
export function serverEnv(base: NodeJS.ProcessEnv, codeCacheDir?: string): NodeJS.ProcessEnv {
  const own = base.GLIBC_TUNABLES;
  const env: NodeJS.ProcessEnv = { ...base, GLIBC_TUNABLES: own ? `${MALLOC_TUNABLES}:${own}` : MALLOC_TUNABLES };
  if (codeCacheDir) env.OOMLENS_CODE_CACHE_DIR = codeCacheDir;
  return env;
}
