/**
 * Pinned library versions near a file: `name==X.Y.Z` lines in
 * requirements*.txt in the file's directory and its parents (up to a .git
 * directory). Ranges are not pins. (Bootstrap version.)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function readPinnedVersions(filePath: string): { versions: Record<string, string>; sources: { name: string; file: string }[] } {
  const versions: Record<string, string> = {};
  const sources: { name: string; file: string }[] = [];
  let dir = dirname(filePath);
  for (let i = 0; i < 20; i++) {
    let files: string[] = [];
    try { files = readdirSync(dir); } catch { break; }
    for (const f of files.filter((x) => /^requirements.*\.txt$/.test(x)).sort()) {
      const text = readFileSync(join(dir, f), 'utf8');
      for (const line of text.split('\n')) {
        const m = /^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*==\s*([0-9][^\s;#]*)/.exec(line);
        if (m && !(m[1].toLowerCase() in versions)) { versions[m[1].toLowerCase()] = m[3]; sources.push({ name: m[1].toLowerCase(), file: join(dir, f) }); }
      }
    }
    if (existsSync(join(dir, '.git'))) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return { versions, sources };
}
