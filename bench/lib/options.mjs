/** The command line of `npm run bench` and what each mode measures. */
import { parseArgs } from 'node:util';

export const SCENARIOS = ['resolve', 'events', 'stats', 'memory', 'mixed', 'results', 'identify', 'placement'];
/** The scenarios of --postgres: paywalld instances on one PostgreSQL (bench/scenarios/postgres-*.mjs). */
export const POSTGRES_SCENARIOS = ['resolve', 'events', 'reads', 'propagation'];

export const HELP = `Usage: npm run bench -- [--quick | --full] [--postgres] [--only NAME,…] [--profile]

Runs the benchmark scenarios against the built dist/paywalld.js (rebuilt when
stale) and writes bench/results/latest.md. Needs wrk (apt-get install wrk).

  --quick     a smoke run under a minute: short rounds, small N; fails on any
              error, asserts nothing about speed (CI runs this)
  --full      the full sizes: stats and results at 10 M events from 1 M users,
              memory after ingesting 10 M events from 1 M users
  --postgres  the PostgreSQL scenarios instead, on a cluster of Debian's
              postgresql package started for the run: resolve per instance,
              events through two instances against a bare batched INSERT,
              stats and results latency beside SQLite's for the same events,
              and how soon a paywall or key written through one instance is
              served by the other
  --only L    only these scenarios (comma-separated): ${SCENARIOS.join(', ')};
              with --postgres: ${POSTGRES_SCENARIOS.join(', ')}
  --profile   run the paywalld servers under node --cpu-prof and print the
              top functions by self time (figures of a profiled run are lower)`;

const MODES = {
  default: {
    rounds: 3,
    warmupSeconds: 2,
    roundSeconds: 4,
    resolve: { connections: 50 },
    events: { connections: [16, 64] },
    stats: { sizes: [1_000_000, 3_000_000], requests: 100 },
    results: { sizes: [1_000_000], requests: 50 },
    memory: { users: 1_000_000, events: 1_000_000, eventUsers: 100_000 },
    mixed: { resolveConnections: 50, eventConnections: 16 },
    identify: { resolveConnections: 50, identifyConnections: 16 },
    placement: { connections: 50 },
    propagation: { samples: 20 },
  },
};
MODES.quick = {
  ...MODES.default,
  warmupSeconds: 0,
  roundSeconds: 1,
  stats: { sizes: [10_000, 30_000], requests: 10 },
  results: { sizes: [30_000], requests: 10 },
  memory: { users: 20_000, events: 20_000, eventUsers: 2_000 },
  propagation: { samples: 5 },
};
MODES.full = {
  ...MODES.default,
  stats: { ...MODES.default.stats, sizes: [1_000_000, 10_000_000] },
  results: { ...MODES.default.results, sizes: [10_000_000] },
  memory: { ...MODES.default.memory, events: 10_000_000, eventUsers: 1_000_000 },
};

export function readOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      full: { type: 'boolean' },
      only: { type: 'string' },
      profile: { type: 'boolean' },
      postgres: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.quick && values.full) throw new Error('--quick and --full exclude each other');
  const postgres = values.postgres ?? false;
  const names = postgres ? POSTGRES_SCENARIOS : SCENARIOS;
  const only = values.only ? values.only.split(',').map((name) => name.trim()) : names;
  const unknown = only.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; there are ${names.join(', ')}`);
  const mode = values.quick ? 'quick' : values.full ? 'full' : 'default';
  return { help: values.help ?? false, mode, postgres, only, profile: values.profile ?? false, ...MODES[mode] };
}
