import { RefundsService } from '../../src/refunds';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { withWriteRefused } from '../support/faults';
import { accountBalances, expectBalancedLedger } from '../support/ledger';
import { createInvoice, createPayment, eventsOf, expire, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The money edges of refunds (issue 43): the excess of a capture refunded by
 * itself; approval that splitting cannot dodge; a refund or payment request
 * stopped by a 5xx between its steps, which a retry with the same
 * Idempotency-Key resumes (never a second record) and the re-check finishes
 * when nobody retries. Faults are real: a trigger makes PostgreSQL refuse the
 * write of the step after the first commit.
 */
describe('refund edges', () => {
  let t: TestApp;
  let app: CreatedApp;
  let root: Record<string, string>;
  let seq = 0;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    root = bearer(await superAdminToken(t));
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
  const recheck = () => t.app.get(RefundsService).recheckPending();
  async function withThreshold(threshold: number): Promise<CreatedApp> {
    const a = await createApp(t);
    const res = await http()
      .patch(`/api/v1/admin/apps/${a.id}/settings`)
      .set(root)
      .send({ refundApprovalThresholdMinor: threshold });
    expect(res.status).toBe(200);
    return a;
  }

  describe('the excess of a capture is refunded by itself (decisions 13)', () => {
    it('a second capture of a paid invoice: SUCCEEDED, all of it excess, refunded with reason excess_capture and no approval', async () => {
      const a = await withThreshold(1000);
      const invoice = await createInvoice(t, a.TEST, { customerReference: 'twice' });
      const first = await createPayment(t, a.TEST, {
        invoiceId: invoice.id,
        customerReference: 'twice',
        amountMinor: 100000,
      });
      expect((await expire(t, a.TEST, first.id)).body.data.status).toBe('EXPIRED');
      const second = await createPayment(t, a.TEST, {
        invoiceId: invoice.id,
        customerReference: 'twice',
        amountMinor: 100000,
      });
      expect((await settle(t, a.TEST, second.id)).status).toBe(200);
      expect((await settle(t, a.TEST, first.id)).status).toBe(200); // the expired checkout was still payable

      // In the capture's transaction: the refund exists, PENDING, with its event.
      const [opened] = await refundRows(first.id);
      expect(opened).toMatchObject({
        status: 'PENDING',
        amount_minor: 100000,
        reason: 'excess_capture',
        automatic: true,
        approval_required: false,
        submitted_at: null,
      });
      expect(await refundRows(second.id)).toEqual([]);
      // The re-check (every minute) sends it at once, whatever the threshold.
      await recheck();
      const [sent] = await refundRows(first.id);
      expect(sent.status).toBe('SUCCEEDED');
      const paid = await http().get(`/api/v1/payments/${first.id}`).set(asApp(a.TEST));
      expect(paid.body.data).toMatchObject({
        status: 'SUCCEEDED',
        excessMinor: 100000,
        amountRefundedMinor: 100000,
      });
      const events = (await eventsOf(t, a.id, 'refund.')).map((e) => [e.type, e.data.reason]);
      expect(events).toEqual([
        ['refund.pending', 'excess_capture'],
        ['refund.succeeded', 'excess_capture'],
      ]);
      // The invoice counts its total once; the merchant is owed one capture.
      expect(await accountBalances(t.db, a.id)).toMatchObject({
        gateway_clearing: 100000,
        merchant_payable: -100000,
        refunds_pending: 0,
      });
      // Nothing is left to refund on the excess payment.
      expect((await refund(first.id, {}, {}, a.TEST)).status).toBe(422);
      // Sent once: another re-check changes nothing.
      await recheck();
      expect((await refundRows(first.id)).length).toBe(1);
    });

    it('a capture larger than what is due: only the part the invoice did not need is refunded', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'part' });
      const p = await createPayment(t, app.TEST, {
        invoiceId: invoice.id,
        customerReference: 'part',
        amountMinor: 60000,
      });
      const q = await createPayment(t, app.TEST, {
        invoiceId: invoice.id,
        customerReference: 'part',
        amountMinor: 40000,
      });
      expect((await expire(t, app.TEST, q.id)).status).toBe(200);
      const r = await createPayment(t, app.TEST, {
        invoiceId: invoice.id,
        customerReference: 'part',
        amountMinor: 40000,
      });
      expect((await settle(t, app.TEST, p.id)).status).toBe(200);
      expect((await settle(t, app.TEST, r.id)).status).toBe(200);
      expect((await settle(t, app.TEST, q.id)).status).toBe(200);
      await recheck();
      expect(await refundRows(q.id)).toMatchObject([
        { status: 'SUCCEEDED', amount_minor: 40000, reason: 'excess_capture' },
      ]);
      expect(await refundRows(p.id)).toEqual([]);
      expect(await refundRows(r.id)).toEqual([]);
    });
  });

  describe('approval is cumulative per payment (decisions 7)', () => {
    it('five refunds of 100,000 against a threshold of 100,000: the second and later wait for approval', async () => {
      const a = await withThreshold(100000);
      const p = await captured(500000, a);
      const answers = [];
      for (let i = 0; i < 5; i++)
        answers.push((await refund(p.id, { amountMinor: 100000 }, {}, a.TEST)).body.data);
      expect(answers.map((r) => [r.status, r.approvalRequired])).toEqual([
        ['SUCCEEDED', false],
        ['PENDING', true],
        ['PENDING', true],
        ['PENDING', true],
        ['PENDING', true],
      ]);
      // A rejected one no longer counts: the next small one goes through if the sum allows it.
      const b = await withThreshold(100000);
      const q = await captured(200000, b);
      const one = await refund(q.id, { amountMinor: 60000 }, {}, b.TEST);
      const two = await refund(q.id, { amountMinor: 60000 }, {}, b.TEST);
      expect([one.body.data.approvalRequired, two.body.data.approvalRequired]).toEqual([
        false,
        true,
      ]);
      expect(
        (await http().post(`/api/v1/admin/refunds/${two.body.data.id}/reject`).set(root)).status,
      ).toBe(200);
      const three = await refund(q.id, { amountMinor: 40000 }, {}, b.TEST);
      expect(three.body.data).toMatchObject({ status: 'SUCCEEDED', approvalRequired: false });
    });

    it('parts raced at once cannot dodge it either', async () => {
      const a = await withThreshold(100000);
      const p = await captured(500000, a);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => refund(p.id, { amountMinor: 100000 }, {}, a.TEST)),
      );
      expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      const sent = answers.filter((r) => !r.body.data.approvalRequired);
      expect(sent.length).toBe(1);
      expect(sent[0].body.data.status).toBe('SUCCEEDED');
    });

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

    it('opened and never sent (nobody retries): the re-check sends it; it never stays PENDING', async () => {
      const p = await captured(100000);
      const failed = await withFault('refunds', 'claimed_until', () =>
        refund(p.id, { amountMinor: 25000 }),
      );
      expect(failed.status).toBe(500);
      const [stuck] = await refundRows(p.id);
      expect(stuck).toMatchObject({ status: 'PENDING', submitted_at: null });
      // Not at once: the request that opened it may still be sending it.
      await recheck();
      expect((await refundRows(p.id))[0].status).toBe('PENDING');
      t.clock.advance(61_000);
      await recheck();
      expect((await refundRows(p.id))[0].status).toBe('SUCCEEDED');
      const events = (await eventsOf(t, app.id, 'refund.')).filter(
        (e) => e.data.refund_id === stuck.id,
      );
      expect(events.map((e) => e.type)).toEqual(['refund.pending', 'refund.succeeded']);
    });

    it('approved and never sent: the re-check sends it; approve again is 409, nothing is sent twice', async () => {
      const a = await withThreshold(10000);
      const p = await captured(50000, a);
      const opened = await refund(p.id, { amountMinor: 20000 }, {}, a.TEST);
      expect(opened.body.data).toMatchObject({ status: 'PENDING', approvalRequired: true });
      const id = opened.body.data.id as number;
      const approved = await withFault('refunds', 'claimed_until', () =>
        http().post(`/api/v1/admin/refunds/${id}/approve`).set(root),
      );
      expect(approved.status).toBe(500);
      expect((await http().post(`/api/v1/admin/refunds/${id}/approve`).set(root)).status).toBe(409);
      t.clock.advance(61_000);
      await recheck();
      expect(await refundRows(p.id)).toMatchObject([{ id, status: 'SUCCEEDED' }]);
      const paid = await http().get(`/api/v1/payments/${p.id}`).set(asApp(a.TEST));
      expect(paid.body.data.amountRefundedMinor).toBe(20000);
    });

    it('a refund awaiting approval is never sent by the re-check', async () => {
      const a = await withThreshold(10000);
      const p = await captured(50000, a);
      const opened = await refund(p.id, { amountMinor: 20000 }, {}, a.TEST);
      t.clock.advance(3_600_000);
      await recheck();
      expect(await refundRows(p.id)).toMatchObject([
        { id: opened.body.data.id, status: 'PENDING', submitted_at: null },
      ]);
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
