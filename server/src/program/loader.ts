/**
 * The interpreter's view of the workspace (interp's `ModuleLoader`), for one
 * analysis: which folders `import` searches and which file a name resolves to.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { ModuleLoader } from '../interp/interp';
import { isInside } from './workspace';
import type { Workspace } from './workspace';

/**
 * `commandDir`: the folder the launch command runs in (the folder of the file that holds it: the CLI's working
 * directory for `--run`, a README's or a shell script's folder), where the command's own relative paths point
 * (`--deepspeed configs/z3.json` run from `training/`).
 */
export function moduleLoader(ws: Workspace, mainFile: string | undefined, commandDir?: () => string | undefined): ModuleLoader {
  return {
    searchDirs: (extra) => ws.searchPath(mainFile, extra),
    find: (dotted, dirs) => ws.findModule(dotted, dirs),
    relativeBase: (from, level) => ws.relativeBase(from, level),
    load: (path) => ws.load(path),
    rel: (path) => ws.rel(path),
    // A relative path is relative to the working directory, which is the script's folder or the
    // project root in the runs people make; the first that exists wins.
    locate: (written) => {
      const cmd = commandDir?.();
      const bases = isAbsolute(written) ? [''] : [mainFile ? dirname(mainFile) : ws.root, ...(cmd ? [cmd] : []), ws.root];
      for (const b of bases) {
        const p = resolve(b, written);
        if (isInside(p, ws.root) && existsSync(p)) return p;
      }
      return undefined;
    },
    readText: (path) => ws.readText(path),
    list: (dir) => {
      if (!isInside(dir, ws.root)) return undefined;
      try { return readdirSync(dir).sort(); } catch { return undefined; }
    },
    missing: (written) => {
      if (isAbsolute(written)) return undefined;
      const p = resolve(mainFile ? dirname(mainFile) : ws.root, written);
      if (!isInside(p, ws.root)) return undefined;
      const name = basename(p);
      // A script in the file's folder (or the one above) that names it and writes files.
      const writes = /open\([^)]*['"][wax]b?\+?['"]|\.(dump|save|tofile|to_csv|to_parquet|write_text|write_bytes)\(/;
      for (const d of [dirname(p), dirname(dirname(p))]) {
        if (!isInside(d, ws.root) || !existsSync(d)) continue;
        for (const f of readdirSync(d).filter((x) => x.endsWith('.py')).slice(0, 50)) {
          const t = ws.readText(join(d, f)) ?? '';
          if (t.includes(name) && writes.test(t)) return { madeByScript: ws.rel(join(d, f)) };
        }
      }
      return {};
    },
  };
}
