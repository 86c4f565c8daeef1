import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

import { createTestApp, TestApp } from '../support/test-app';

/**
 * HTTP_KEEP_ALIVE_TIMEOUT_S: how long an idle kept-alive connection stays
 * open. A load balancer in front must find the server's timeout longer than
 * its own; the server says it in every answer (`Keep-Alive: timeout=N`) and
 * closes the connection itself once it has sat idle that long. Seen on a
 * raw socket, as a balancer sees it (the e2e suite runs this on Express and
 * on Fastify).
 */
describe('kept-alive connections (HTTP_KEEP_ALIVE_TIMEOUT_S)', () => {
  /** One GET /healthz on a fresh connection: the answer's head, and the socket, still open. */
  async function oneRequest(t: TestApp): Promise<{ head: string; socket: Socket }> {
    const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    let received = '';
    const head = await new Promise<string>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = /\r\ncontent-length: *(\d+)/i.exec(received);
        if (length && received.length >= end + 4 + Number(length[1])) {
          resolve(received.slice(0, end));
        }
      });
      socket.write('GET /healthz HTTP/1.1\r\nHost: joma.test\r\n\r\n');
    });
    return { head, socket };
  }

  it('is 5 s by default, said in every answer', async () => {
    const t = await createTestApp();
    try {
      const { head, socket } = await oneRequest(t);
      socket.destroy();
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      expect(head).toMatch(/\r\nconnection: keep-alive(\r\n|$)/i);
      expect(head).toMatch(/\r\nkeep-alive: timeout=5(\r\n|$)/i);
    } finally {
      await t.close();
    }
  });

  it('takes the configured timeout: says it, and closes a connection idle that long', async () => {
    const t = await createTestApp({ config: { httpKeepAliveTimeoutMs: 1_000 } });
    try {
      const { head, socket } = await oneRequest(t);
      expect(head).toMatch(/\r\nkeep-alive: timeout=1(\r\n|$)/i);
      const idleFrom = performance.now();
      // The server closes it; the client sends nothing more.
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      expect(performance.now() - idleFrom).toBeGreaterThanOrEqual(950);
    } finally {
      await t.close();
    }
  });
});
