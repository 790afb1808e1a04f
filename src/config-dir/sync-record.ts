/**
 * What a directory last saw of each target: the ETag of every product,
 * paywall and placement right after its last export or apply from this directory, kept in
 * `.paywalld-sync.json` beside the configuration (state, not configuration:
 * nothing reads it but apply). A plain apply compares it with the target: a
 * product or paywall whose tag moved since was edited elsewhere (in the
 * dashboard, through the API), and writing over it would silently revert
 * that edit, so apply refuses unless told to (--force).
 */
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { readInside } from './inside.ts';
import { formatJson } from './layout.ts';
import type { Plan } from './plan.ts';

export const SYNC_FILE = '.paywalld-sync.json';

const SyncFileSchema = v.object({
  format: v.literal('paywalld-sync/1'),
  /** By target (a URL, or a database file and project): the ETag of each `product:ID`, `paywall:ID` and `placement:ID`. */
  targets: v.record(v.string(), v.record(v.string(), v.string())),
});
type SyncFile = v.InferOutput<typeof SyncFileSchema>;

function readSyncFile(dir: string): SyncFile {
  // Read as every file of the directory is: a regular file inside it, of a bounded size.
  const read = readInside(dir, SYNC_FILE);
  let value: unknown;
  try {
    value = read.ok ? JSON.parse(read.bytes.toString('utf8')) : undefined;
  } catch {
    value = undefined;
  }
  const parsed = v.safeParse(SyncFileSchema, value);
  // A damaged record only loses the protection it gives: the next export or apply writes a good one.
  return parsed.success ? parsed.output : { format: 'paywalld-sync/1', targets: {} };
}

/** The tags recorded for `target` by the last export or apply from `dir`; undefined when there was none. */
export function recordedBase(dir: string, target: string): Record<string, string> | undefined {
  return readSyncFile(dir).targets[target];
}

/**
 * Records what `target` holds now, after an export or apply from `dir`. A
 * directory that cannot be written (a read-only checkout) only loses the
 * check: the note returned says so, and the apply or export stands.
 */
export function recordBase(dir: string, target: string, base: Record<string, string>): string | undefined {
  const sync = readSyncFile(dir);
  sync.targets[target] = base;
  // Written beside it and renamed over it: a symbolic link in its place is replaced, never written through.
  const temporary = path.join(dir, `${SYNC_FILE}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temporary, formatJson(sync), { flag: 'wx' });
    fs.renameSync(temporary, path.join(dir, SYNC_FILE));
    return undefined;
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    return `cannot record what ${target} holds in ${path.join(dir, SYNC_FILE)} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): the next apply cannot tell edits made there since`;
  }
}

/** What this plan would overwrite that was changed on the target since the recorded export or apply; empty when nothing. */
export function editedSince(recorded: Record<string, string>, plan: Plan): string[] {
  const edited: string[] = [];
  for (const step of plan.steps) {
    if (!('ifMatch' in step) || step.ifMatch === undefined) continue;
    const kind = step.kind === 'update-product' || step.kind === 'delete-product' ? 'product' : step.kind.endsWith('-placement') ? 'placement' : 'paywall';
    const then = recorded[`${kind}:${step.id}`];
    if (then === step.ifMatch) continue;
    const what = then === undefined ? `${kind} ${step.id} was created` : `${kind} ${step.id} was changed (ETag ${then} then, ${step.ifMatch} now)`;
    if (!edited.includes(what)) edited.push(what);
  }
  return edited;
}
