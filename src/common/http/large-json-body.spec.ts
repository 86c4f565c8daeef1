import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';

import { readLargeJson } from './large-json-body';

/** A request whose body arrives in 64 KiB chunks, as a socket gives it. */
function requestOf(body: string): IncomingMessage {
  const stream = new PassThrough() as unknown as IncomingMessage & PassThrough;
  stream.headers = { 'content-length': String(Buffer.byteLength(body)) };
  const bytes = Buffer.from(body);
  for (let at = 0; at < bytes.length; at += 65536) stream.write(bytes.subarray(at, at + 65536));
  stream.end();
  return stream;
}

describe('readLargeJson', () => {
  it('parses a large body in slices, letting the event loop turn between them', async () => {
    const csv = 'x'.repeat(6 * 1024 * 1024);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const body = await readLargeJson(requestOf(JSON.stringify({ gateway: 'g', csv })), 32 << 20);
    counting = false;
    expect(body).toEqual({ gateway: 'g', csv });
    // Six 1 MiB slices scanned: the loop turned between them.
    expect(turns).toBeGreaterThanOrEqual(5);
  });

  it('counts members and depth before parsing: 2,000 pass, 2,001 do not; 32 levels pass, 33 do not', async () => {
    const members = (n: number) =>
      `{"a":[${Array.from({ length: n - 1 }, () => '"1,[{"').join(',')}]}`;
    await expect(readLargeJson(requestOf(members(2000)), 1 << 20)).resolves.toBeDefined();
    await expect(readLargeJson(requestOf(members(2001)), 1 << 20)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Validation failed',
    });
    const nested = (d: number) => '{"a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1);
    await expect(readLargeJson(requestOf(nested(32)), 1 << 20)).resolves.toBeDefined();
    await expect(readLargeJson(requestOf(nested(33)), 1 << 20)).rejects.toMatchObject({
      details: [{ field: 'body', message: 'JSON must not be nested more than 32 levels deep' }],
    });
  });

  it('refuses more bytes than the limit, declared or sent', async () => {
    await expect(
      readLargeJson(requestOf('{"a":"' + 'x'.repeat(2000) + '"}'), 1000),
    ).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
    const liar = requestOf('{"a":"' + 'x'.repeat(2000) + '"}');
    liar.headers['content-length'] = '10';
    await expect(readLargeJson(liar, 1000)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});
