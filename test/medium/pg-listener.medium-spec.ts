import { PgListener } from '../../src/database/pg-listener';
import { startSilentProxy } from '../support/silent-proxy';
import { createTestContext, type TestContext } from '../support/test-context';

/**
 * The LISTEN connection (src/database/pg-listener.ts) on a real server:
 * notifications arrive, and `stop()` leaves no connection behind, even one
 * that was still being opened (a stop during a reconnect: shutdown, or a
 * test dropping its database right after).
 */
describe('PgListener (medium tier)', () => {
  let c: TestContext;
  beforeAll(async () => {
    c = await createTestContext();
  });
  afterAll(async () => {
    await c.close();
  });

  const until = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((ok) => setTimeout(ok, 10));
  };

  it('hears a NOTIFY on its channel; after stop() its session is gone', async () => {
    const heard: string[] = [];
    const listener = new PgListener(
      c.url,
      ['joma_listener_test'],
      (_channel, payload) => heard.push(payload ?? ''),
      'joma-listener-test',
    );
    await listener.start();
    await c.db.query(`SELECT pg_notify('joma_listener_test', 'hello')`);
    await until(() => heard.length > 0);
    expect(heard).toEqual(['hello']);
    await listener.stop();
    const { rows } = await c.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'joma-listener-test'`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('stop() during a connect that gets no answer ends that connection before it returns', async () => {
    const url = new URL(c.url);
    const proxy = await startSilentProxy(Number(url.port || 5432));
    proxy.silence();
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    try {
      const listener = new PgListener(url.toString(), ['joma_listener_test'], () => undefined);
      // start() waits for the connect, which the silent server never answers.
      void listener.start();
      await until(() => proxy.openClients() === 1);
      expect(proxy.openClients()).toBe(1);
      await listener.stop();
      await until(() => proxy.openClients() === 0);
      expect(proxy.openClients()).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
