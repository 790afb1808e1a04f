// Run by addons.unit.test.ts in a process of its own: prepares many statements and
// lets the garbage collector finalise them, between event-loop turns too (where
// V8 runs finalisers from tasks of its own), then exits 0 if still alive.
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../src/db/database.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const db = openDatabase(':memory:');
for (let round = 0; round < 20; round++) {
  for (let i = 0; i < 20_000; i++) db.prepare(`SELECT ${i}`).get();
  gc();
}
for (let round = 0; round < 5; round++) {
  await sleep(50);
  for (let i = 0; i < 20_000; i++) db.prepare('SELECT 1');
}
db.close();
process.stdout.write('alive\n');
