/** Editing `[tool.oomlens]` in a pyproject.toml from the device picker (no vscode import, so tests run it in Node). */

/** Rewrites (or adds) `device = "..."` in the `[tool.oomlens]` table of a pyproject.toml, as an editor edit. */
export function withPyprojectDevice(text: string, device: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\s*\[tool\.oomlens\]\s*(#.*)?$/.test(l));
  if (start < 0) return `${text.replace(/\n*$/, '\n')}\n[tool.oomlens]\ndevice = "${device}"\n`;
  for (let i = start + 1; i < lines.length && !/^\s*\[/.test(lines[i]); i++) {
    if (/^\s*device\s*=/.test(lines[i])) {
      lines[i] = lines[i].replace(/^(\s*device\s*=\s*)("[^"]*"|'[^']*'|[^#\s]+)/, `$1"${device}"`);
      return lines.join('\n');
    }
  }
  lines.splice(start + 1, 0, `device = "${device}"`);
  return lines.join('\n');
}
