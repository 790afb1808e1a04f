/**
 * The background work that must run on one instance at a time (retention):
 * the instance holding the session advisory lock ADVISORY_LOCKS.eventsLeader
 * does it. The lock is taken with pg_try_advisory_lock on a connection of its
 * own, tried again every few seconds: when the leader dies, or its
 * connection does, its session ends and another instance takes the lock on
 * its next try.
 */
import { ADVISORY_LOCKS } from '../../../db/postgres/advisory-locks.ts';
import { closePool, openPool, type Sql } from '../../../db/postgres/connection.ts';

/** How often an instance tries to take the lock, and the leader checks it still holds it. */
const TRY_EVERY_MS = 2000;
/** A try and the work after it that have not ended by then count as lost, and the connection is replaced. */
const ATTEMPT_LIMIT_MS = 30_000;

const KEY = ADVISORY_LOCKS.eventsLeader;
/**
 * Whether this session holds the lock already (pg_locks shows a bigint key as its high and low 32 bits),
 * else an attempt to take it: taken again while held, a session lock would only stack.
 */
const CLAIM = `SELECT CASE WHEN EXISTS (
    SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND classid = $1::oid AND objid = $2::oid AND objsubid = 1
  ) THEN true ELSE pg_try_advisory_lock($3) END AS leading`;
const CLAIM_PARAMETERS = [String(KEY >> 32n), String(KEY & 0xffff_ffffn), String(KEY)];

export class Leadership {
  private sql: Sql;
  private timer: NodeJS.Timeout | undefined;
  private trying = false;
  leading = false;

  /** `onChange` hears each change of leadership; `work` runs on the leader after each successful try, on the lock's connection. */
  constructor(
    private readonly url: string,
    private readonly onChange: (leading: boolean) => void,
    private readonly work: (sql: Sql) => Promise<void>,
  ) {
    this.sql = this.connect();
  }

  private connect(): Sql {
    return openPool(this.url, { size: 1, applicationName: 'paywalld leader' });
  }

  start(): void {
    this.timer = setInterval(() => void this.attempt(), TRY_EVERY_MS).unref();
    void this.attempt();
  }

  /** Ends the lock's session: the lock goes to another instance at its next try. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await closePool(this.sql);
  }

  /**
   * One try, and the work when it leads. A query on a connection that broke
   * under it may never settle (porsager/postgres#1208): past ATTEMPT_LIMIT_MS
   * the attempt counts as lost, the connection (and its session, with the
   * lock if it still had it) is replaced, and the next try starts afresh.
   */
  private async attempt(): Promise<void> {
    if (this.trying) return;
    this.trying = true;
    const sql = this.sql;
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), ATTEMPT_LIMIT_MS)));
    try {
      if ((await Promise.race([this.claimAndWork(sql), stuck])) === 'stuck') {
        this.sql = this.connect();
        void sql.end({ timeout: 0 }).catch(() => undefined);
        this.change(false);
      }
    } finally {
      clearTimeout(timer);
      this.trying = false;
    }
  }

  private async claimAndWork(sql: Sql): Promise<void> {
    let leading = false;
    try {
      const [row] = await sql.unsafe<{ leading: boolean }[]>(CLAIM, CLAIM_PARAMETERS);
      leading = row?.leading === true;
    } catch {
      // The connection is lost: its session, and the lock with it, is gone; the next try reconnects.
    }
    this.change(leading);
    if (leading) await this.work(sql);
  }

  private change(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.onChange(leading);
  }
}
