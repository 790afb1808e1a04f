/**
 * Structured JSON logs, one object per line on stdout. Request lines are
 * buffered and written in batches (one write per flush instead of one per
 * request); everything else is written at once so that operators and tests
 * see start-up and error lines immediately.
 *
 * Under load, request lines are capped at `requestLinesPerSecond`: past the
 * cap a second's remaining lines are dropped and counted, and one
 * "request log sampled" line says how many. Requests answered with a 5xx are
 * error lines and are never dropped.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

interface RequestLog {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
  ip: string;
}

const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 100;

interface LoggerOptions {
  /** Request lines written per second at most (0: none but 5xx). */
  requestLinesPerSecond?: number;
  /** Receives whole lines; tests pass their own to read what was logged. */
  sink?: (text: string) => void;
  /** The clock of the per-second cap, in milliseconds; tests pass their own. */
  now?: () => number;
}

export class Logger {
  private buffered = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly sink: (text: string) => void;
  private readonly requestLinesPerSecond: number;
  private readonly now: () => number;
  private second = 0;
  private linesThisSecond = 0;
  private dropped = 0;

  constructor(
    private readonly level: Level = 'info',
    options: LoggerOptions = {},
  ) {
    this.sink = options.sink ?? writeStdout;
    this.requestLinesPerSecond = options.requestLinesPerSecond ?? Infinity;
    this.now = options.now ?? (() => performance.now());
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.write('error', msg, fields);
  }

  /** Whether a request line with this status would be written now; counts it against the per-second cap. */
  wantsRequest(status: number): boolean {
    return status >= 500 || (RANK[this.level] <= RANK.info && this.withinBudget());
  }

  /** Writes a request line; call it only when wantsRequest said so, which spares building the entry otherwise. */
  request(entry: RequestLog): void {
    const level = entry.status >= 500 ? 'error' : 'info';
    this.buffered += `{"time":"${new Date().toISOString()}","level":"${level}","msg":"request",${JSON.stringify(entry).slice(1)}\n`;
    if (this.buffered.length >= FLUSH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  }

  private withinBudget(): boolean {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.linesThisSecond = 0;
      if (this.dropped > 0) {
        this.info('request log sampled', { dropped: this.dropped, limit_per_second: this.requestLinesPerSecond });
        this.dropped = 0;
      }
    }
    if (this.linesThisSecond < this.requestLinesPerSecond) {
      this.linesThisSecond++;
      return true;
    }
    this.dropped++;
    return false;
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffered === '') return;
    const out = this.buffered;
    this.buffered = '';
    this.sink(out);
  }

  private write(level: Level, msg: string, fields?: Record<string, unknown>): void {
    if (RANK[level] < RANK[this.level]) return;
    this.flush();
    this.sink(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  }
}

function writeStdout(text: string): void {
  try {
    process.stdout.write(text);
  } catch {
    // A closed stdout must never take the server down with it.
  }
}

export function isLevel(value: string): value is Level {
  return value in RANK;
}
