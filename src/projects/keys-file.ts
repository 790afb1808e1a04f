import fs from 'node:fs';
import path from 'node:path';
import type { CreatedProject } from './store.ts';

/**
 * `serve --keys-file FILE`: the keys of the project created at start, as
 * `projects create --json` prints them, for a test harness or a service
 * manager to read instead of a log. Written with mode 0600 under a temporary
 * name and renamed, so a reader never sees half a file, and before the port
 * opens, so it is there once /readyz answers. Only a start that creates the
 * project writes it: the keys of an existing one are stored as hashes, so a
 * later start (a service restarting with the same flags) leaves FILE as it is.
 */
export function writeKeysFile(file: string, created: CreatedProject): void {
  const dir = path.dirname(path.resolve(file));
  fs.mkdirSync(dir, { recursive: true });
  const temporary = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(temporary, `${JSON.stringify(created)}\n`, { mode: 0o600, flag: 'w' });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}
