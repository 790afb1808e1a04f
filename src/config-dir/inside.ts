/**
 * A configuration directory is read and written only inside itself: a
 * symbolic link that leads out of it (to a token file, to /dev/zero) is
 * neither read nor written through, and files are read only when regular
 * and of a bounded size.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The most bytes a file of a configuration directory may hold (a paywall document is further held to 1 MiB). */
const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

/** Whether `file` (an absolute path) is below `root`, lexically. */
export function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

type InsideRead = { ok: true; bytes: Buffer } | { ok: false; missing: boolean; message: string };

/** Reads `relative` of the directory `dir`, following links only while they stay inside it. */
export function readInside(dir: string, relative: string): InsideRead {
  let real: string;
  let stat: fs.Stats;
  try {
    real = fs.realpathSync(path.join(dir, relative));
    if (!isInside(fs.realpathSync(dir), real)) return { ok: false, missing: false, message: 'A symbolic link that leads outside the directory: not read' };
    stat = fs.statSync(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, missing: code === 'ENOENT', message: code === 'ENOENT' ? 'Missing' : `Cannot be read (${code ?? String(error)})` };
  }
  if (!stat.isFile()) return { ok: false, missing: false, message: 'Not a regular file (a directory, device, FIFO or socket): not read' };
  if (stat.size > MAX_CONFIG_FILE_BYTES) return { ok: false, missing: false, message: `Larger than 16 MiB (${MAX_CONFIG_FILE_BYTES} bytes): not read` };
  // O_NONBLOCK: should the path become a FIFO after the stat, opening it must not wait for a writer.
  const fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    // One byte more than the stat said: a file that grew meanwhile is noticed rather than read without bound.
    const buffer = Buffer.alloc(stat.size + 1);
    let length = 0;
    for (let read = 1; read > 0 && length < buffer.length; length += read) read = fs.readSync(fd, buffer, length, buffer.length - length, null);
    if (length > stat.size) return { ok: false, missing: false, message: 'Changed while being read: not read' };
    return { ok: true, bytes: buffer.subarray(0, length) };
  } finally {
    fs.closeSync(fd);
  }
}
