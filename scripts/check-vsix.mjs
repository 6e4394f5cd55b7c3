// Checks the packaged extension: the .vsix (a zip) must hold the bundles and
// both tree-sitter wasm files, and nothing from the source tree or node_modules.
// Reads the zip's central directory directly, so no unzip tool is needed.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'oomlens.vsix';
const buf = readFileSync(file);
const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
if (eocd < 0) throw new Error(`${file} is not a zip file`);
const count = buf.readUInt16LE(eocd + 10);
let off = buf.readUInt32LE(eocd + 16);
const names = [];
for (let i = 0; i < count; i++) {
  const nameLen = buf.readUInt16LE(off + 28);
  const extra = buf.readUInt16LE(off + 30);
  const comment = buf.readUInt16LE(off + 32);
  names.push(buf.toString('utf8', off + 46, off + 46 + nameLen));
  off += 46 + nameLen + extra + comment;
}
const required = ['extension/package.json', 'extension/dist/client.js', 'extension/dist/server.js', 'extension/dist/serverMain.js', 'extension/dist/worker.js', 'extension/dist/workerMain.js', 'extension/dist/cli.js', 'extension/dist/timelineView.js', 'extension/dist/tree-sitter.wasm', 'extension/dist/tree-sitter-python.wasm'];
const missing = required.filter((n) => !names.includes(n));
const stray = names.filter((n) => /^extension\/(node_modules|server|shared|client\/src|test)\//.test(n) || n.endsWith('.ts') || n.endsWith('.map'));
if (missing.length || stray.length) {
  console.error(`check-vsix: missing ${JSON.stringify(missing)}; should not be packaged ${JSON.stringify(stray)}`);
  process.exit(1);
}
console.log(`check-vsix: ${file} holds ${names.length} entries, the bundles and both wasm files`);
