/**
 * The better-sqlite3 addon this Node.js loads, under load of the garbage
 * collector. Node 24.19 changed node::ObjectWrap in its headers so that
 * better-sqlite3 12 compiled against them aborts the process when statements
 * are finalised (runtimes.mjs compiles it against older headers); this fails
 * if an addon built that way ever reaches dist/ or runtimes/ again.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'gc-statements.ts');

test('statements finalised by the garbage collector do not crash the process', () => {
  // When V8 finalises them depends on its own tasks: a broken addon died in 5 of 6 runs of the fixture, so three runs.
  for (let run = 0; run < 3; run++) {
    const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', FIXTURE], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.signal, null, result.stderr);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, 'alive\n');
  }
});
