import { gzipSync } from 'node:zlib';
import { digestTag, notModified } from '../http/preconditions.ts';
import type { Reply } from '../http/reply.ts';
import type { DashboardFile } from './build-ui.mjs';

/**
 * What every dashboard response carries. Scripts and styles come only from
 * this origin and never inline, so an injected string can never run; images
 * may come from https and data: URLs because paywall documents point at
 * images there (the preview shows them). Nothing may frame the dashboard.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
});

/** Hashed names change with their content, so a browser may keep them for a year; index.html is checked every time. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/** One encoding of a file, with its own ETag (a gzipped body is another representation). */
interface Representation {
  body: Buffer;
  etag: string;
  headers: Readonly<Record<string, string>>;
}

/** A file ready to serve: as is, and gzipped when that is smaller. */
interface ServedFile {
  identity: Representation;
  gzip: Representation | undefined;
}

export class DashboardFiles {
  private readonly files = new Map<string, ServedFile>();

  constructor(files: readonly DashboardFile[]) {
    for (const file of files) {
      const headers = {
        ...SECURITY_HEADERS,
        'Content-Type': file.contentType,
        'Cache-Control': file.name === 'index.html' ? REVALIDATE : IMMUTABLE,
        Vary: 'Accept-Encoding',
      };
      const represent = (body: Buffer, extra: Record<string, string>): Representation => {
        const etag = digestTag(body);
        return { body, etag, headers: { ...headers, ...extra, ETag: etag } };
      };
      const body = Buffer.from(file.text);
      const gzip = gzipSync(body, { level: 9 });
      this.files.set(file.name, {
        identity: represent(body, {}),
        gzip: gzip.length < body.length ? represent(gzip, { 'Content-Encoding': 'gzip' }) : undefined,
      });
    }
  }

  /** The reply for a file under /dashboard/, or undefined when there is none by that name. */
  reply(name: string, ifNoneMatch: string, acceptEncoding: string): Reply | undefined {
    const file = this.files.get(name);
    if (!file) return undefined;
    const chosen = file.gzip && acceptsGzip(acceptEncoding) ? file.gzip : file.identity;
    if (notModified(ifNoneMatch, chosen.etag)) return { status: 304, headers: chosen.headers };
    return { status: 200, headers: chosen.headers, body: chosen.body };
  }
}

/** gzip listed without q=0. */
function acceptsGzip(header: string): boolean {
  for (const part of header.toLowerCase().split(',')) {
    const [coding, ...params] = part.trim().split(';');
    if (coding?.trim() !== 'gzip' && coding?.trim() !== '*') continue;
    return !params.some((param) => /^\s*q\s*=\s*0(?:\.0*)?\s*$/.test(param));
  }
  return false;
}
