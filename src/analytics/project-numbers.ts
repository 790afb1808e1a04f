/**
 * The number of each project in the index tables (event_projects): a small
 * integer keys event_dedup and event_time_index instead of the id's text.
 * Numbers are handed out on first use and written by the next checkpoint.
 */
import type { Database } from '../db/database.ts';

export class ProjectNumbers {
  private readonly numbers = new Map<string, number>();
  /** Numbered since the last write, not yet in event_projects. */
  private fresh: [projectNo: number, projectId: string][] = [];
  private readonly statements;

  constructor(db: Database) {
    this.statements = {
      all: db.prepare<[], [string, number]>('SELECT project_id, project_no FROM event_projects').raw(),
      add: db.prepare<[number, string]>('INSERT INTO event_projects (project_no, project_id) VALUES (?, ?)'),
    };
  }

  /** The numbers stored by the last checkpoint. */
  load(): void {
    for (const [projectId, no] of this.statements.all.iterate()) this.numbers.set(projectId, no);
  }

  /** The project's number, handed out on first use. */
  of(projectId: string): number {
    let no = this.numbers.get(projectId);
    if (no === undefined) {
      no = this.numbers.size + 1;
      this.numbers.set(projectId, no);
      this.fresh.push([no, projectId]);
    }
    return no;
  }

  /**
   * Inside a transaction: the projects numbered since the last write go into
   * event_projects, so the index fill can join them. Returns them, for
   * `giveBack` should the transaction roll back.
   */
  write(): [projectNo: number, projectId: string][] {
    const written = this.fresh;
    for (const [no, projectId] of written) this.statements.add.run(no, projectId);
    this.fresh = [];
    return written;
  }

  /** The projects of a write whose transaction rolled back: the next write writes them again. */
  giveBack(written: [projectNo: number, projectId: string][]): void {
    this.fresh = [...written, ...this.fresh];
  }
}
