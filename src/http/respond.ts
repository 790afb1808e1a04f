/**
 * Writes a Reply to a uWS response: status line and headers in one block,
 * a whole body, or chunks streamed with backpressure. Keeps the uWS rules:
 * cork outside the callback, never touch an aborted response.
 */
import { STATUS_CODES } from 'node:http';
import { clientAddress, type Exchange } from './exchange.ts';
import { joinedHeaderBlock } from './header-block.ts';
import type { ProblemCode } from './problem.ts';
import type { Body, Reply } from './reply.ts';

/** Status lines as bytes, which uWS reads in place (a string it converts on every call). */
const statusLines = new Map<number, Buffer>();
function statusLine(status: number): Buffer {
  let line = statusLines.get(status);
  if (!line) statusLines.set(status, (line = Buffer.from(`${status} ${STATUS_CODES[status] ?? 'Unknown'}`)));
  return line;
}
const REQUEST_ID_HEADER = Buffer.from('X-Request-Id');

function byteLength(body: Body): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

interface ResponderHooks {
  /** Called just before a whole response is written, while uWS still answers for the exchange (the request log's decision). */
  answering(ex: Exchange, status: number): void;
  /** Called once per exchange, when it is answered, cut short or aborted (metrics, the request log, draining). */
  finish(ex: Exchange, status: number, problem?: ProblemCode): void;
  /** A stream failed after its headers were sent: log it (the response is cut short). */
  streamFailed(ex: Exchange, error: unknown): void;
  /** The server is shutting down: responses close their connection. */
  closing(): boolean;
}

export class Responder {
  constructor(private readonly hooks: ResponderHooks) {}

  /**
   * Registers onAborted: needed before anything asynchronous touches the
   * exchange. Such an exchange may finish after uWS let go of its response
   * (aborted, or at the end of a stream), when its client's address can no
   * longer be read: it is read now.
   */
  watchAbort(ex: Exchange): void {
    clientAddress(ex);
    ex.res.onAborted(() => {
      ex.aborted = true;
      ex.wake?.();
      this.hooks.finish(ex, 499);
    });
  }

  respond(ex: Exchange, reply: Reply): void {
    if (ex.aborted) return;
    const body = reply.body;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      if (ex.method === 'HEAD') {
        // Headers only: the stream is never started (a generator that never ran holds nothing).
        this.respond(ex, { status: reply.status, headers: reply.headers });
        return;
      }
      if (ex.sync) {
        // A stream outlives the uWS callback even when the handler answered synchronously.
        this.watchAbort(ex);
        this.writeHead(ex, reply);
      } else {
        ex.res.cork(() => this.writeHead(ex, reply));
      }
      void this.stream(ex, body);
      return;
    }
    const close = this.hooks.closing() || ex.bodyUnread;
    this.hooks.answering(ex, reply.status);
    const write = () => {
      this.writeHead(ex, reply);
      if (ex.method === 'HEAD' || reply.status === 204 || reply.status === 304) {
        // In uWS v20.30 any argument to endWithoutBody (even undefined) is taken as a length still
        // to come, so it is called bare and a HEAD response's length is written by hand.
        if (ex.method === 'HEAD' && body !== undefined) ex.res.writeHeader('Content-Length', String(byteLength(body)));
        ex.res.endWithoutBody();
      } else {
        ex.res.end(body, close);
      }
    };
    if (ex.sync) write();
    else ex.res.cork(write);
    this.hooks.finish(ex, reply.status, reply.problem);
  }

  /** Status line and headers; the caller corks when outside the uWS callback. */
  private writeHead(ex: Exchange, reply: Reply): void {
    // uWS writes `200 OK` itself when no status was written, and every writeStatus is a call into C++.
    if (reply.status !== 200) ex.res.writeStatus(statusLine(reply.status));
    ex.res.writeHeader(REQUEST_ID_HEADER, ex.id);
    const block = joinedHeaderBlock(ex.extraHeaders, reply.headers);
    if (block) ex.res.writeHeader(block.name, block.value);
  }

  /** Streams chunks, waiting for the socket to drain whenever uWS reports backpressure. */
  private async stream(ex: Exchange, chunks: AsyncIterable<Body> | Iterable<Body>): Promise<void> {
    let status = 200;
    try {
      for await (const chunk of chunks) {
        if (ex.aborted) return;
        let drained = true;
        ex.res.cork(() => {
          drained = ex.res.write(chunk);
        });
        if (!drained) await this.writable(ex);
        if (ex.aborted) return;
      }
    } catch (error) {
      // Headers are out already: all that is left is to log and cut the response short.
      this.hooks.streamFailed(ex, error);
      status = 500;
      if (!ex.aborted) ex.res.close();
      return;
    }
    if (!ex.aborted) ex.res.cork(() => ex.res.end());
    this.hooks.finish(ex, status);
  }

  private writable(ex: Exchange): Promise<void> {
    return new Promise((resolve) => {
      ex.wake = resolve;
      ex.res.onWritable(() => {
        // Resumed from inside this callback, the stream would write and register its next onWritable
        // before uWS is done with this one, and that registration is lost: the stream then waits forever.
        setImmediate(resolve);
        return true;
      });
    });
  }
}
