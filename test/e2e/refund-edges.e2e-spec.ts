import { asApp, createApp, CreatedApp } from '../support/factories';
import { withWriteRefused } from '../support/faults';
import { expectBalancedLedger } from '../support/ledger';
import { createInvoice, createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The HTTP contract of the money edges of refunds (issue 43): a request
 * stopped by a 5xx between its steps, which a retry with the same
 * Idempotency-Key resumes (never a second record), and the validation of a
 * refund's body. Faults are real: a trigger makes PostgreSQL refuse the
 * write of the step after the first commit. The rules themselves (the
 * excess of a capture refunded by itself, approval that splitting cannot
 * dodge, the re-check finishing a refund nobody retries) are proven on the
 * services in test/medium/refunds.medium-spec.ts.
 */
describe('refund edges', () => {
  let t: TestApp;
  let app: CreatedApp;
  let seq = 0;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
  });
  afterEach(() => expectBalancedLedger(t.db));
  afterAll(() => t.close());

  const http = () => t.http();
  const withFault = <T>(table: string, column: string, call: () => PromiseLike<T>) =>
    withWriteRefused(t.db, table, column, call);
  async function captured(amountMinor: number, a = app) {
    const p = await createPayment(t, a.TEST, { amountMinor, customerReference: `e-${++seq}` });
    expect((await settle(t, a.TEST, p.id)).status).toBe(200);
    return p;
  }
  const refund = (
    paymentId: number,
    body: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    creds = app.TEST,
  ) =>
    http()
      .post(`/api/v1/payments/${paymentId}/refunds`)
      .set({ ...asApp(creds), ...headers })
      .send(body);
  const refundRows = async (paymentId: number) =>
    (
      await t.db.query(
        'SELECT id, status, amount_minor, reason, automatic, approval_required, submitted_at FROM refunds WHERE payment_id = $1 ORDER BY id',
        [paymentId],
      )
    ).rows as {
      id: number;
      status: string;
      amount_minor: number;
      reason: string | null;
      automatic: boolean;
      approval_required: boolean;
      submitted_at: Date | null;
    }[];
  describe('the body of a refund', () => {
    it('amountMinor: null is 400 VALIDATION_FAILED (leave the field out to refund all)', async () => {
      const p = await captured(30000);
      const res = await refund(p.id, { amountMinor: null });
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details).toEqual([expect.objectContaining({ field: 'amountMinor' })]);
      expect(await refundRows(p.id)).toEqual([]);
    });
  });

  describe('a 5xx between the steps of a refund', () => {
    it('a retry with the same Idempotency-Key resumes the refund it opened: one refund, sent once', async () => {
      const p = await captured(100000);
      const key = { 'Idempotency-Key': `split-${p.id}` };
      const failed = await withFault('refunds', 'claimed_until', () =>
        refund(p.id, { amountMinor: 30000 }, key),
      );
      expect(failed.status).toBe(500);
      const retried = await refund(p.id, { amountMinor: 30000 }, key);
      expect(retried.status).toBe(201);
      expect(retried.body.data).toMatchObject({ status: 'SUCCEEDED', amountMinor: 30000 });
      const rows = await refundRows(p.id);
      expect(rows.map((r) => [r.id, r.status])).toEqual([[retried.body.data.id, 'SUCCEEDED']]);
      // ... and a third call replays that answer.
      const replay = await refund(p.id, { amountMinor: 30000 }, key);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.data.id).toBe(retried.body.data.id);
      expect((await refundRows(p.id)).length).toBe(1);
    });
  });

  describe('a 5xx between the steps of a payment', () => {
    it('a retry with the same Idempotency-Key resumes the PENDING payment instead of refusing against it', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'resume' });
      const key = { 'Idempotency-Key': `pay-${invoice.id}` };
      const body = { invoiceId: invoice.id, amountMinor: 100000 };
      const create = () =>
        http()
          .post('/api/v1/payments')
          .set({ ...asApp(app.TEST), ...key })
          .send(body);
      const failed = await withFault('payments', 'gateway_session_id', create);
      expect(failed.status).toBe(500);
      const retried = await create();
      expect(retried.status).toBe(201);
      expect(retried.body.data).toMatchObject({ status: 'PENDING', invoiceId: invoice.id });
      expect(retried.body.data.checkoutUrl).toEqual(expect.any(String));
      const rows = (await t.db.query('SELECT id FROM payments WHERE invoice_id = $1', [invoice.id]))
        .rows;
      expect(rows).toEqual([{ id: retried.body.data.id }]);
    });
  });
});
