import type { IncomingMessage } from 'node:http';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';
import { MAX_JSON_DEPTH, MAX_JSON_MEMBERS, refuseParsedJson } from './body-parsers';

/** Bytes scanned between two turns of the event loop. */
const SCAN_SLICE = 1024 * 1024;

/**
 * Reads a JSON body of up to `limit` bytes that the body parsers left
 * unread (a route that takes more than 1 MiB reads it only after its guards
 * verified the session and the permission), without holding the event loop
 * for long: the bytes arrive as the socket gives them; a scan in 1 MiB
 * slices (yielding between them) counts members and depth before anything
 * is parsed, so a hostile shape (a 30 MiB array) is refused in linear time
 * with no object built; only a body within the member and depth limits
 * reaches JSON.parse, in a turn of its own, which for such a body is one
 * pass over a few long strings (about 65 ms for 24 MiB, decoding included,
 * on a 2-core VM). The parsed body then
 * passes the same checks as every other JSON body.
 */
export async function readLargeJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const bytes = await readAtMost(req, limit);
  if (bytes.length === 0) return undefined;
  const scan = new JsonShapeScan();
  for (let at = 0; at < bytes.length; at += SCAN_SLICE) {
    const refusal = scan.feed(bytes, at, Math.min(at + SCAN_SLICE, bytes.length));
    if (refusal) throw refusal;
    await yieldToLoop();
  }
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new AppError(ErrorCode.MALFORMED_JSON, 'The request body is not valid JSON');
  }
  const refusal = refuseParsedJson(body);
  if (refusal) throw refusal;
  return body;
}

function readAtMost(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: AppError) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) {
        // Stop reading what is left: the answer closes the connection.
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return done(tooLarge(limit));
      chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = () =>
      done(new AppError(ErrorCode.VALIDATION_FAILED, 'The request body could not be read'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function tooLarge(limit: number): AppError {
  return new AppError(
    ErrorCode.PAYLOAD_TOO_LARGE,
    `Request body too large (at most ${limit / (1024 * 1024)} MiB on this route)`,
    undefined,
    { Connection: 'close' },
  );
}

/**
 * Counts a JSON text's members (object members and array elements) and
 * depth byte by byte, strings skipped, fed in slices. Not a validator:
 * JSON.parse decides what is well-formed; this only refuses, early and
 * cheaply, a text whose parse would build more than the limits allow.
 */
class JsonShapeScan {
  private depth = 0;
  private members = 0;
  private inString = false;
  private escaped = false;
  /** The last container opened has no member yet. */
  private empty = false;

  feed(bytes: Buffer, from: number, to: number): AppError | null {
    for (let i = from; i < to; i++) {
      const c = bytes[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (this.empty && c !== 0x7d && c !== 0x5d) {
        this.empty = false;
        this.members++;
      }
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (++this.depth > MAX_JSON_DEPTH)
          return AppError.validation(
            'body',
            `JSON must not be nested more than ${MAX_JSON_DEPTH} levels deep`,
          );
        this.empty = true;
      } else if (c === 0x7d || c === 0x5d) {
        this.depth--;
        this.empty = false;
      } else if (c === 0x2c) this.members++;
      if (this.members > MAX_JSON_MEMBERS)
        return AppError.validation(
          'body',
          `JSON must not hold more than ${MAX_JSON_MEMBERS} members in all`,
        );
    }
    return null;
  }
}
