import { asApp, createApp, type CreatedApp } from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import {
  keepsPreparedStatements,
  type PgBouncer,
  pgbouncerBinary,
  pgbouncerVersion,
  startPgBouncer,
} from '../support/pgbouncer';
import { createTestApp, createTestDatabase, type TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createEndpoint, eventually, workersOf } from '../support/webhooks';

/**
 * Joma through PgBouncer in transaction pooling (decisions section 21,
 * docs/operations.md "What needs a session"): the app's pool goes through a
 * PgBouncer of this file's own (2 server connections for the database,
 * fewer than the app's 10 and than the requests sent at once), its
 * listeners and migrations through DATABASE_DIRECT_URL. Behind a PgBouncer
 * older than 1.21 (Debian 12 has 1.18) the hot statements are sent unnamed
 * (DB_PREPARED_STATEMENTS=false); from 1.21 named, with
 * max_prepared_statements. Skipped, saying so, where pgbouncer is not
 * installed.
 */
const binary = pgbouncerBinary();
const SKIPPED =
  'SKIPPED: no pgbouncer program (/usr/sbin/pgbouncer or on PATH; apt-get install pgbouncer)';
if (!binary) console.warn(`test/e2e/pgbouncer.e2e-spec.ts: ${SKIPPED}`);
const suite = binary ? describe : describe.skip;

/** Server connections PgBouncer keeps for the database: fewer than the requests sent at once. */
const SERVER_CONNECTIONS = 2;

suite(`Joma through PgBouncer in transaction pooling${binary ? '' : ` (${SKIPPED})`}`, () => {
  let bouncer: PgBouncer;
  let t: TestApp;
  let app: CreatedApp;
  let receiver: WebhookReceiver;
  let directUrl: string;

  beforeAll(async () => {
    directUrl = await createTestDatabase('pgbouncer');
    const database = new URL(directUrl).pathname.slice(1);
    bouncer = await startPgBouncer(directUrl, { defaultPoolSize: SERVER_CONNECTIONS });
    receiver = await WebhookReceiver.start();
    t = await createTestApp({
      databaseUrl: bouncer.url(database),
      config: {
        databaseDirectUrl: directUrl,
        dbPreparedStatements: keepsPreparedStatements(pgbouncerVersion(binary!)),
        dbPoolSize: 10,
        // Only a NOTIFY wakes the webhook workers within the test's time: no poll for a minute.
        webhookPollIntervalMs: 60_000,
        webhookTimeoutMs: 4_000,
      },
    });
    await workersOf(t).start();
    app = await createApp(t);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await bouncer?.stop();
  });

  it("the app's pool goes through PgBouncer; its listeners hold direct sessions LISTENing", async () => {
    const database = new URL(directUrl).pathname.slice(1);
    expect(bouncer.log()).toContain(`login attempt: db=${database}`);
    // PostgreSQL's view: the two listeners are sessions of their own, straight from Joma.
    const listeners = await t.db.query<{ application_name: string; query: string }>(
      `SELECT application_name, query FROM pg_stat_activity
        WHERE datname = current_database() AND application_name IN ('joma-change-feed', 'joma-webhook-listener')
        ORDER BY application_name`,
    );
    expect(listeners.rows.map((r) => [r.application_name, r.query])).toEqual([
      ['joma-change-feed', expect.stringMatching(/^LISTEN /)],
      ['joma-webhook-listener', expect.stringMatching(/^LISTEN /)],
    ]);
  });

  it('creates an invoice, pays it, and the webhook is sent at once (woken by NOTIFY, not a poll)', async () => {
    await createEndpoint(t, app.TEST, { url: receiver.url() });
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'bouncer-1' });
    const payment = await createPayment(t, app.TEST, {
      invoiceId: invoice.id,
      amountMinor: invoice.totalMinor,
      customerReference: 'bouncer-1',
    });
    const paidAt = Date.now();
    expect((await settle(t, app.TEST, payment.id)).status).toBe(200);
    const after = await t.http().get(`/api/v1/invoices/${invoice.id}`).set(asApp(app.TEST));
    expect(after.body.data).toMatchObject({ status: 'PAID', amountDueMinor: 0 });
    // The poll runs once a minute: only the NOTIFY, heard on the direct session, brings it this soon.
    const paid = await eventually(
      async () =>
        receiver.received.find(
          (r) => r.headers['x-webhook-event'] === 'payment.succeeded' && r.receivedAt >= paidAt,
        ),
      10_000,
      'payment.succeeded at the endpoint',
    );
    expect(paid.receivedAt - paidAt).toBeLessThan(10_000);
    expect(JSON.parse(paid.raw.toString('utf8')).data).toMatchObject({ payment_id: payment.id });
  });

  it('answers an idempotent replay with the stored answer, and records the payment once', async () => {
    const send = () =>
      t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .set('Idempotency-Key', 'bouncer-replay-1')
        .send({ amountMinor: 43210, customerReference: 'bouncer-2' });
    const first = await send();
    expect(first.status).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const rows = await t.db.query(
      `SELECT count(*)::int AS n FROM payments WHERE app_id = $1 AND amount_minor = 43210`,
      [app.id],
    );
    expect(rows.rows[0].n).toBe(1);
  });

  it('refunds a capture, and refuses more than is left', async () => {
    const p = await createPayment(t, app.TEST, {
      amountMinor: 70000,
      customerReference: 'bouncer-3',
    });
    expect((await settle(t, app.TEST, p.id)).status).toBe(200);
    const refund = (amountMinor: number) =>
      t.http().post(`/api/v1/payments/${p.id}/refunds`).set(asApp(app.TEST)).send({ amountMinor });
    const first = await refund(50000);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ status: 'SUCCEEDED', amountMinor: 50000 });
    const over = await refund(20001);
    expect(over.status).toBe(422);
    expect(over.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
    const paymentNow = await t.http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST));
    expect(paymentNow.body.data.amountRefundedMinor).toBe(50000);
  });

  it(`serves 30 requests at once over ${SERVER_CONNECTIONS} server connections: every write kept once, every answer right`, async () => {
    const n = 30;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        i % 3 === 2
          ? t.http().get('/api/v1/invoices?size=5').set(asApp(app.TEST))
          : t
              .http()
              .post('/api/v1/invoices')
              .set(asApp(app.TEST))
              .set('Idempotency-Key', `bouncer-burst-${i}`)
              .send({
                customerReference: `burst-${i % 4}`,
                lineItems: [{ description: 'Burst', qty: 1, unitAmountMinor: 1000 + i }],
              }),
      ),
    );
    const writes = results.filter((_, i) => i % 3 !== 2);
    expect(writes.map((r) => r.status)).toEqual(writes.map(() => 201));
    expect(results.filter((_, i) => i % 3 === 2).map((r) => r.status)).toEqual(
      Array.from({ length: n / 3 }, () => 200),
    );
    const numbers = writes.map((r) => r.body.data.number as string);
    expect(new Set(numbers).size).toBe(writes.length);
    const stored = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM invoices WHERE app_id = $1 AND total_minor BETWEEN 1000 AND 1000 + $2`,
      [app.id, n],
    );
    expect(stored.rows[0].n).toBe(writes.length);
    // And each is what its request asked for.
    for (const [i, r] of results.entries())
      if (i % 3 !== 2) expect(r.body.data.totalMinor).toBe(1000 + i);
  });
});
