/** The Markdown of a run: what ran where, the results table, the targets, the details. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { ROOT } from './paywalld.mjs';
import { pinning } from './processes.mjs';

export function machine() {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    nproc: os.availableParallelism(),
    cpu: model.trim(),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
  };
}

function git() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'build.mjs'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return `${commit}${dirty ? ' + uncommitted changes in src/' : ''}`;
  } catch {
    return 'unknown';
  }
}

const cells = (values) => `| ${values.join(' | ')} |`;

export function resultsTable(rows) {
  return [
    cells(['scenario', 'paywalld', 'baseline', 'ratio', 'p50', 'p99']),
    cells(['---', '---:', '---:', '---:', '---:', '---:']),
    ...rows.map((r) => cells([r.scenario, r.paywalld, r.baseline, r.ratio, r.p50, r.p99])),
  ];
}

export function targetsTable(targets, { judged = true } = {}) {
  const verdict = (met) => (!judged ? 'not judged (--quick)' : met === undefined ? 'not measured' : met ? 'met' : '**missed**');
  return [cells(['target', 'measured', '']), cells(['---', '---:', '---']), ...targets.map((t) => cells([t.text, t.measured, verdict(t.met)]))];
}

export function report({ command, options, started, seconds, load, dist, rows, targets, details, failures, profiles }) {
  const m = machine();
  return [
    `# paywalld benchmark results`,
    '',
    `- command: \`${command}\` (mode: ${options.mode}; ${options.rounds} alternating rounds of ${options.roundSeconds} s ${options.warmupSeconds > 0 ? `after a ${options.warmupSeconds} s warm-up` : 'without warm-up'}${options.profile ? '; **profiled with --cpu-prof: figures are lower than unprofiled**' : ''})`,
    `- started ${started.toISOString()}, took ${seconds.toFixed(0)} s`,
    `- machine: ${m.nproc} cores (nproc), ${m.cpu}, ${m.memory}, ${m.os}; Node ${m.node}; wrk ${wrkVersion()}`,
    `- load average before / after: ${load.before} / ${load.after} (anything else running skews every figure)`,
    `- pinning: ${pinning.note}`,
    `- paywalld: dist/ of ${git()}${dist.rebuilt ? ' (rebuilt by this run)' : ''}; serve --rate-limit-sdk 0 --rate-limit-api 0 ${dist.logRateFlag ? '--request-log-rate 0' : 'with PAYWALLD_REQUEST_LOG_RATE=0 (this build rejects the --request-log-rate flag)'}`,
    '',
    ...resultsTable(rows),
    '',
    "Ratios are medians of the per-round ratios; p50/p99 are the medians over the rounds of wrk's percentiles for paywalld.",
    '',
    ...targetsTable(targets, { judged: options.mode !== 'quick' }),
    '',
    '## Details',
    '',
    '```',
    ...details,
    '```',
    ...(failures.length === 0 ? [] : ['', '## Failures', '', ...failures.flatMap((f) => [`### ${f.scenario}`, '', '```', f.message, '```', ''])]),
    ...(profiles.length === 0 ? [] : ['', '## Profiles (self time)', '', ...profiles.flatMap((p) => [`### ${p.title}`, '', ...p.lines, ''])]),
    '',
  ].join('\n');
}

function wrkVersion() {
  try {
    return /wrk\s+(\S+)/.exec(execFileSync('wrk', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }))?.[1] ?? '?';
  } catch (error) {
    // wrk -v exits 1 after printing its version.
    return /wrk\s+(\S+)/.exec(String(error.stdout))?.[1] ?? '?';
  }
}
