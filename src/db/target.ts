/**
 * Which database a command works on: a `postgres://` (or `postgresql://`)
 * URL is PostgreSQL (docs/operations/scale-out.md), anything else a SQLite file. A URL
 * may carry a password, in its user part or as a `password` parameter: it is
 * shown only through `redactUrl`, never as given (logs, errors, --help).
 */
import { ConfigError } from '../config-error.ts';

export type SqliteTarget = { kind: 'sqlite'; file: string };
export type PostgresTarget = { kind: 'postgres'; url: string };
export type DatabaseTarget = SqliteTarget | PostgresTarget;

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;
/** A scheme: what a URL starts with and a file path does not (`C:\` has no `//`). */
const ANY_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

export function isPostgresUrl(text: string): boolean {
  return POSTGRES_URL.test(text);
}

/** A URL of another database (`mysql://…`, a typo such as `postgress://`): neither PostgreSQL nor a file path. */
export function isOtherUrl(text: string): boolean {
  return ANY_URL.test(text) && !isPostgresUrl(text);
}

export function targetOf(text: string): DatabaseTarget {
  return isPostgresUrl(text) ? { kind: 'postgres', url: text } : { kind: 'sqlite', file: text };
}

/** The target `--db` (or its variables) names; a URL of another scheme is refused rather than taken for a file name. */
export function parseTarget(text: string): DatabaseTarget {
  if (isOtherUrl(text)) throw new ConfigError(`--db ${redactUrl(text)} is neither a SQLite file nor a postgres:// (or postgresql://) URL`);
  return targetOf(text);
}

/** The file of a SQLite target; a PostgreSQL one is refused, its password redacted, for a command that works on SQLite only. */
export function sqliteFileOf(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') return target.file;
  throw new ConfigError(
    `this command works on a SQLite database file only, and --db names PostgreSQL (${describeTarget(target)}); see docs/operations/scale-out.md`,
  );
}

/** serve's database, a file or a URL; scheduled file snapshots (`--backup-dir`) are SQLite's only. */
export function serveDatabaseOf(target: DatabaseTarget, backupDir: string | undefined): DatabaseTarget {
  if (target.kind === 'postgres' && backupDir !== undefined) {
    throw new ConfigError("--backup-dir snapshots a SQLite file; on PostgreSQL use pg_dump or the provider's backups (paywalld backup prints the command)");
  }
  return target;
}

/** Query parameters libpq and the driver read a secret from. */
const SECRET_PARAMETER = /^(?:password|sslpassword)=/i;

/** The query string's parameters with each secret one's value replaced, or the parameter dropped when `replacement` is empty. */
function redactQuery(query: string, replacement: string): string {
  const kept = query
    .split('&')
    .flatMap((pair) => (!SECRET_PARAMETER.test(pair) ? [pair] : replacement === '' ? [] : [`${pair.slice(0, pair.indexOf('=') + 1)}${replacement}`]));
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/**
 * The URL with its password replaced: `replacement` in the user part and in
 * `password`/`sslpassword` parameters, or both removed when it is empty. The
 * user part ends at the last `@`, so a password holding an unescaped `@`,
 * `:` or `/` is hidden whole.
 */
export function redactUrl(url: string, replacement = '***'): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  const queryStart = url.indexOf('?', scheme.length);
  const base = queryStart === -1 ? url.slice(scheme.length) : url.slice(scheme.length, queryStart);
  const query = queryStart === -1 ? '' : redactQuery(url.slice(queryStart + 1), replacement);
  // The last `@` rather than the first `/`: an unescaped `/` in a password would end the user part early.
  const at = base.lastIndexOf('@');
  const colon = base.slice(0, Math.max(at, 0)).indexOf(':');
  if (at === -1 || colon === -1) return scheme + base + query;
  const user = base.slice(0, colon);
  return `${scheme}${replacement === '' ? user : `${user}:${replacement}`}${base.slice(at)}${query}`;
}

/** `text` with every PostgreSQL URL in it redacted: for messages that may quote one (a driver's, a command's). */
export function redactUrls(text: string): string {
  // A URL ends at a space, a quote or a bracket; punctuation after it belongs to the sentence.
  return text.replace(/postgres(?:ql)?:\/\/[^\s'"()<>]+/gi, (match) => {
    const url = match.replace(/[.,;:]+$/, '');
    return redactUrl(url) + match.slice(url.length);
  });
}

/** How a target is named in logs and messages: the file, or the URL without its password. */
export function describeTarget(target: DatabaseTarget): string {
  return target.kind === 'sqlite' ? target.file : redactUrl(target.url);
}
