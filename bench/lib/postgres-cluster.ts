// One PostgreSQL cluster for `npm run bench -- --postgres`, started as the
// tests start theirs (test/helpers/postgres.ts: Debian's package, a
// temporary directory, a free loopback port, fsync off). Prints
// `cluster <url of the postgres database>` and runs until its stdin closes
// (the bench ended, however): the helper's watchdog then stops the cluster
// and removes its directory.
import { postgresCluster } from '../../test/helpers/postgres.ts';

const cluster = await postgresCluster();
console.log(`cluster ${cluster.url('postgres')}`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
