import { sha256Hex } from '../../src/common/crypto/crypto';
import { SandboxSessionsRepository } from '../../src/gateways/sandbox/sandbox-sessions.repository';
import { canonicalJson } from '../../src/idempotency/canonical-json';
import { IDEMPOTENCY_LEASE_MS } from '../../src/idempotency/idempotency.service';
import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { eventsOf } from '../support/payments';
import { slowSandbox } from '../support/slow-gateway';
import { TestApp } from '../support/test-app';

/**
 * Idempotency keys with recovery points: the key is committed as STARTED
 * before the work and FINISHED after it. A request that dies in between
 * (here: hangs forever in the gateway, which from the database's point of
 * view is the same as a crash after its payment committed) leaves a key that
 * answers 409 until its lease runs out; a retry then resumes the same
 * payment instead of creating a second one.
 */
describe('idempotency: recovery after a crash between start and finish', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });
  afterEach(() => {
    t.clock.reset();
    jest.restoreAllMocks();
  });

  const body = { amountMinor: 42000, customerReference: 'crash-1', description: 'resumable' };
  const post = (key: string) =>
    t.http().post('/api/v1/payments').set(asApp(app.TEST)).set('Idempotency-Key', key).send(body);

  it('reports 409 while the lease runs, then resumes the committed payment: one payment, one checkout', async () => {
    const slow = slowSandbox(t);
    const first = post('crash-key').then((r) => r);
    await slow.untilCalled();
    const key = (
      await t.db.query(
        `SELECT state, recovery_point, recovery FROM idempotency_keys WHERE key = 'crash-key'`,
      )
    ).rows[0];
    expect(key.state).toBe('STARTED');
    expect(key.recovery_point).toBe('payment_created');
    const paymentId = Number(key.recovery.paymentId);

    const during = await post('crash-key');
    expect(during.status).toBe(409);
    expect(during.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_IN_USE');

    // The first request never comes back: its lease runs out and a retry takes over.
    t.clock.advance(IDEMPOTENCY_LEASE_MS + 1000);
    slow.stopDelaying();
    const retry = await post('crash-key');
    expect(retry.status).toBe(201);
    expect(retry.body.data.id).toBe(paymentId);
    expect(retry.body.data.checkoutUrl).toMatch(/\/sandbox\/checkout\/sbx_/);

    const replay = await post('crash-key');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data).toEqual(retry.body.data);

    // The original wakes up late: it loses the attach, closes its own checkout, answers alike.
    slow.release();
    const late = await first;
    expect(late.status).toBe(201);
    expect(late.body.data.id).toBe(paymentId);
    expect(late.body.data.checkoutUrl).toBe(retry.body.data.checkoutUrl);

    const payments = (
      await t.db.query(
        `SELECT p.id, p.gateway_session_id FROM payments p JOIN customers c ON c.id = p.customer_id
          WHERE c.external_id = 'crash-1'`,
      )
    ).rows;
    expect(payments).toHaveLength(1);
    const sessions = (
      await t.db.query(
        `SELECT session_id, status FROM sandbox_sessions WHERE payment_reference = $1 ORDER BY id`,
        [retry.body.data.reference],
      )
    ).rows;
    expect(sessions).toHaveLength(2);
    const attached = sessions.find((s) => s.session_id === payments[0].gateway_session_id);
    expect(attached.status).toBe('OPEN');
    expect(sessions.filter((s) => s !== attached).map((s) => s.status)).toEqual(['CLOSED']);
  });

  it('a different body on a key whose request died is 422, not a takeover', async () => {
    const slow = slowSandbox(t);
    const first = post('crash-key-2').then((r) => r);
    await slow.untilCalled();
    t.clock.advance(IDEMPOTENCY_LEASE_MS + 1000);
    const other = await t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .set('Idempotency-Key', 'crash-key-2')
      .send({ ...body, amountMinor: 43000 });
    expect(other.status).toBe(422);
    expect(other.body.meta.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    slow.release();
    expect((await first).status).toBe(201);
  });

  it('all-or-nothing handlers: a key left STARTED by a crash runs the request once after its lease', async () => {
    // A crash inside an invoice create rolls its transaction back: only the STARTED key remains.
    const invoice = {
      customerReference: 'crash-2',
      lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 5000 }],
    };
    const hash = sha256Hex(`POST /api/v1/invoices\n${canonicalJson(invoice)}`);
    await t.db.query(
      `INSERT INTO idempotency_keys (app_id, mode, key, state, method, path, request_hash, owner, locked_until, created_at, expires_at)
       VALUES ($1, 'TEST', 'dead-invoice', 'STARTED', 'POST', '/api/v1/invoices', $2, 'dead', $3, now(), now() + interval '1 day')`,
      [app.id, hash, new Date(Date.now() + IDEMPOTENCY_LEASE_MS)],
    );
    const send = () =>
      t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', 'dead-invoice')
        .send(invoice);
    expect((await send()).status).toBe(409);
    t.clock.advance(IDEMPOTENCY_LEASE_MS + 1000);
    const resumed = await send();
    expect(resumed.status).toBe(201);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.id).toBe(resumed.body.data.id);
    const n = (
      await t.db.query(
        `SELECT count(*)::int AS n FROM invoices i JOIN customers c ON c.id = i.customer_id
          WHERE c.external_id = 'crash-2'`,
      )
    ).rows[0].n;
    expect(n).toBe(1);
  });

  /** pg-pool's error when no connection frees up within the acquire timeout. */
  const poolTimeout = () => new Error('timeout exceeded when trying to connect');

  describe("a pool timeout inside the sandbox gateway is Joma's unavailability, not the gateway's failure", () => {
    it('503 with Retry-After, the payment left PENDING (not FAILED), and the retry at once resumes it', async () => {
      t.clock.freeze();
      jest
        .spyOn(t.app.get(SandboxSessionsRepository), 'insert')
        .mockRejectedValueOnce(poolTimeout());
      const failed = await post('sandbox-pool-timeout');
      expect(failed.status).toBe(503);
      expect(failed.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
      expect(failed.headers['retry-after']).toBe('1');
      const key = (
        await t.db.query(
          `SELECT state, recovery FROM idempotency_keys WHERE key = 'sandbox-pool-timeout'`,
        )
      ).rows[0];
      expect(key.state).toBe('STARTED');
      const paymentId = Number(key.recovery.paymentId);
      const [payment] = (
        await t.db.query(`SELECT status, failure_reason FROM payments WHERE id = $1`, [paymentId])
      ).rows;
      expect(payment).toEqual({ status: 'PENDING', failure_reason: null });

      const retry = await post('sandbox-pool-timeout');
      expect(retry.status).toBe(201);
      expect(retry.body.data.id).toBe(paymentId);
      expect(retry.body.data.status).toBe('PENDING');
      expect(retry.body.data.checkoutUrl).toMatch(/\/sandbox\/checkout\/sbx_/);
      expect(await eventsOf(t, app.id, 'payment.failed')).toEqual([]);
    });
  });
});
