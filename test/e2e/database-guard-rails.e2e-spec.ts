import { asApp, bearer, createApp, superAdminToken } from '../support/factories';
import { holdLock, untilWaiting } from '../support/locks';
import { createInvoice } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * A saturated database answers 503 SERVICE_UNAVAILABLE with Retry-After,
 * instead of requests queueing for ever: a statement waiting longer than
 * the statement timeout is cancelled, and a request that gets no pooled
 * connection within the acquire timeout gives up. Nothing is half-written.
 */
describe('database guard rails', () => {
  it('a statement over the statement timeout is cancelled: 503 with Retry-After, nothing changed', async () => {
    const t: TestApp = await createTestApp({ config: { dbStatementTimeoutMs: 300 } });
    try {
      const app = await createApp(t);
      const invoice = await createInvoice(t, app.TEST);
      const lock = await holdLock(t, 'SELECT 1 FROM invoices WHERE id = $1 FOR UPDATE', [
        invoice.id,
      ]);
      try {
        const res = await t.http().post(`/api/v1/invoices/${invoice.id}/void`).set(asApp(app.TEST));
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.body.meta).toMatchObject({ success: false, errorCode: 'SERVICE_UNAVAILABLE' });
      } finally {
        await lock.release();
      }
      const row = await t.db.query('SELECT status FROM invoices WHERE id = $1', [invoice.id]);
      expect(row.rows[0].status).toBe('ISSUED');
    } finally {
      await t.close();
    }
  });

  it('a database failure while checking an admin session is 503, never 401 INVALID_CREDENTIALS', async () => {
    const t: TestApp = await createTestApp({ config: { dbStatementTimeoutMs: 300 } });
    try {
      const token = await superAdminToken(t);
      expect((await t.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(200);
      // Every session read waits behind this lock past the statement timeout.
      const lock = await t.db.connect();
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE admin_sessions IN ACCESS EXCLUSIVE MODE');
      try {
        const res = await t.http().get('/api/v1/admin/apps').set(bearer(token));
        expect(res.status).toBe(503);
        expect(res.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        await lock.query('ROLLBACK');
        lock.release();
      }
      expect((await t.http().get('/api/v1/auth/me').set(bearer(token))).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('no pooled connection within the acquire timeout: 503 at once instead of queueing', async () => {
    const t: TestApp = await createTestApp({
      config: { dbPoolSize: 2, dbStatementTimeoutMs: 20_000, dbAcquireTimeoutMs: 300 },
    });
    try {
      const app = await createApp(t);
      const invoice = await createInvoice(t, app.TEST);
      expect((await t.http().get('/api/v1/invoices').set(asApp(app.TEST))).status).toBe(200);
      const lock = await holdLock(t, 'SELECT 1 FROM invoices WHERE id = $1 FOR UPDATE', [
        invoice.id,
      ]);
      let stuck: Promise<unknown>[] = [];
      try {
        // Two voids wait on the lock, each holding one of the pool's two connections.
        stuck = [1, 2].map(() =>
          t
            .http()
            .post(`/api/v1/invoices/${invoice.id}/void`)
            .set(asApp(app.TEST))
            .then((r) => r.status),
        );
        await untilWaiting(t, 2);
        const res = await t.http().get('/api/v1/invoices').set(asApp(app.TEST));
        expect(res.status).toBe(503);
        expect(res.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        await lock.release();
      }
      expect(await Promise.all(stuck)).toEqual([200, 200]);
    } finally {
      await t.close();
    }
  });
});
