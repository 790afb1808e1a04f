export interface Migration {
  /** Strictly increasing, starting at 1; the database records the ones applied. */
  version: number;
  name: string;
  sql: string;
}
