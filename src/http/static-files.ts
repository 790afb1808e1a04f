/**
 * Static files served from memory: each gzipped once when that is smaller,
 * tagged with a digest ETag, answered 304 on If-None-Match. The dashboard
 * serves its UI with it.
 */
import { gzipSync } from 'node:zlib';
import { digestTag } from '../shared/digest.ts';
import { notModified } from './preconditions.ts';
import type { Reply } from './reply.ts';

/** One file to serve: its path under the mount point, media type and content. */
interface StaticFile {
  name: string;
  contentType: string;
  text: string;
}

interface StaticFilesOptions {
  /** Headers every file's response carries (a CSP, for instance). */
  headers: Readonly<Record<string, string>>;
  /** Cache-Control of a file, by name. */
  cacheControl(name: string): string;
}

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

export class StaticFiles {
  private readonly files = new Map<string, ServedFile>();

  constructor(files: readonly StaticFile[], options: StaticFilesOptions) {
    for (const file of files) {
      const headers = {
        ...options.headers,
        'Content-Type': file.contentType,
        'Cache-Control': options.cacheControl(file.name),
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

  /** The reply for a file, or undefined when there is none by that name. */
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
