/** Whether a database setting names PostgreSQL (a `postgres://` or `postgresql://` URL) rather than a SQLite file. */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}
