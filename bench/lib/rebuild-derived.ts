// Builds the derived state of a database whose events were written straight
// into the events table (bench/lib/load-events.mjs), with the server's own
// code: DerivedStore.start() is what the event writer runs at start when no
// checkpoint exists, so the server started on the file afterwards finds a
// checkpoint covering every event, as after a real ingestion and a restart.
// Prints {"ms":…,"replayed":…} (the time of a rebuild from the raw events).
// Usage: node --import tsx bench/lib/rebuild-derived.ts DB

import { DerivedStore } from '../../src/analytics/checkpoint.ts';
import { openDatabase } from '../../src/db/database.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: rebuild-derived.ts DB');
const db = openDatabase(file, { mustExist: true });
const started = performance.now();
const { replayed } = new DerivedStore(db).start();
const ms = Math.round(performance.now() - started);
db.pragma('wal_checkpoint(TRUNCATE)');
db.close();
console.log(JSON.stringify({ ms, replayed }));
