/** Installs what the workspace layer models into an interpreter: entry points, command-line values, config files. */
import type { Interpreter } from '../interp/interp';
import { installConfigFiles } from './configfiles';
import { installEntryPoints } from './entrypoints';
import { installPathlib } from './pathlib';

export function installProgram(it: Interpreter): void {
  installEntryPoints(it);
  installConfigFiles(it);
  installPathlib(it);
}
