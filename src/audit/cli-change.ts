import os from 'node:os';
import type { Change } from '../shared/change.ts';

/** The operating-system account running this process: os.userInfo() throws for a uid with no passwd entry (containers). */
function account(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? `uid ${process.getuid?.() ?? '?'}`;
  }
}

/**
 * A change made by a command on the database (`paywalld keys create --db …`,
 * `apply --db`, `serve --seed`, a server's first start): its audit entry
 * names the account and machine that ran it, and the command.
 */
export function cliChange(command: string): Change {
  return { actor: { type: 'cli', id: `${account()}@${os.hostname()}`, label: `paywalld ${command}` }, ip: null };
}
