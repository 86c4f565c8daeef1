import { Logger } from '@nestjs/common';

import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { holdLock, untilWaiting } from '../support/locks';
import { createInvoice, createPayment, eventsOf } from '../support/payments';
import { TestApp } from '../support/test-app';

/**
 * Races on one invoice, made deterministic by holding a row lock from the
 * test's own connection until both contenders are in flight.
 */
describe('invoice and payment races', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture({ balancedLedger: true });
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const paymentsOf = async (invoiceId: number) =>
    (
      await t.db.query('SELECT id, status FROM payments WHERE invoice_id = $1 ORDER BY id', [
        invoiceId,
      ])
    ).rows as { id: number; status: string }[];

  it('a payment created while its invoice is being voided does not stay PENDING on the VOID invoice', async () => {
    const ref = 'race-void-create';
    const inv = await createInvoice(t, app.TEST, { customerReference: ref });
    // The create reads the invoice, then stops at the customer row held here.
    const customer = await holdLock(
      t,
      `SELECT 1 FROM customers WHERE app_id = $1 AND mode = 'TEST' AND external_id = $2 FOR UPDATE`,
      [app.id, ref],
    );
    let creating: Promise<{ status: number; body: any }>;
    let voiding: Promise<{ status: number; body: any }>;
    try {
      creating = t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 40000, customerReference: ref, invoiceId: inv.id })
        .then((r) => r);
      await untilWaiting(t, 1, creating);
      voiding = t
        .http()
        .post(`/api/v1/invoices/${inv.id}/void`)
        .set(asApp(app.TEST))
        .then((r) => r);
      await untilWaiting(t, 2, voiding);
    } finally {
      await customer.release();
    }
    const [created, voided] = await Promise.all([creating, voiding]);
    expect(voided.status).toBe(200);
    expect(voided.body.data.status).toBe('VOID');
    // Either the create lost (409) or its payment was cancelled with the invoice.
    expect([201, 409]).toContain(created.status);
    const rows = await paymentsOf(inv.id);
    expect(rows.filter((p) => p.status === 'PENDING')).toEqual([]);
    if (created.status === 201) {
      expect(rows).toEqual([{ id: created.body.data.id, status: 'CANCELLED' }]);
      const cancelled = (await eventsOf(t, app.id, 'payment.cancelled')).filter(
        (e) => e.data.payment_id === created.body.data.id,
      );
      expect(cancelled).toHaveLength(1);
    } else {
      expect(created.body.meta.errorCode).toBe('INVALID_STATE');
      expect(rows).toEqual([]);
    }
  });

  it('a void and a gateway confirmation of a paid checkout racing each other: both answer (no deadlock, no 500), the capture counted once, the void 409', async () => {
    const ref = 'race-void-settle';
    const inv = await createInvoice(t, app.TEST, { customerReference: ref });
    const p = await createPayment(t, app.TEST, {
      amountMinor: 100000,
      customerReference: ref,
      invoiceId: inv.id,
    });
    const session = new URL(p.checkoutUrl).pathname.split('/').pop();
    // The customer pays on the gateway; its confirmation is about to reach Joma.
    const paid = await t
      .http()
      .post(`/sandbox/checkout/${session}`)
      .type('form')
      .send({ outcome: 'pay' });
    expect(paid.status).toBe(303);
    const invoice = await holdLock(t, 'SELECT 1 FROM invoices WHERE id = $1 FOR UPDATE', [inv.id]);
    const logged = jest.spyOn(Logger.prototype, 'error');
    let voiding: Promise<{ status: number; body: any }>;
    let confirming: Promise<{ status: number; headers: any }>;
    try {
      voiding = t
        .http()
        .post(`/api/v1/invoices/${inv.id}/void`)
        .set(asApp(app.TEST))
        .then((r) => r);
      await untilWaiting(t, 1, voiding);
      confirming = t
        .http()
        .get(`/api/v1/gateways/sandbox/return?session_id=${session}`)
        .then((r) => r);
      await untilWaiting(t, 2, confirming);
    } finally {
      await invoice.release();
    }
    let lines: string[] = [];
    const [voided, confirmed] = await Promise.all([voiding, confirming]).finally(() => {
      lines = logged.mock.calls.map((args) => args.map(String).join(' '));
      logged.mockRestore();
    });
    expect(voided.status).not.toBe(500);
    expect(confirmed.status).toBe(303);
    const row = (
      await t.db.query('SELECT status, amount_paid_minor FROM invoices WHERE id = $1', [inv.id])
    ).rows[0];
    const [payment] = await paymentsOf(inv.id);
    // The void asks the gateway before it locks anything (decisions 13, as
    // amended 2026-12-02): the customer paid, so the capture is recorded and
    // counted first, and the void then answers 409 on the paid invoice. The
    // confirmation racing it changes nothing more (recorded once).
    expect(voided.status).toBe(409);
    expect(voided.body.meta.errorCode).toBe('INVALID_STATE');
    expect(row).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
    expect(payment.status).toBe('SUCCEEDED');
    const money = (
      await t.db.query('SELECT amount_minor, excess_minor FROM payments WHERE id = $1', [p.id])
    ).rows[0] as { amount_minor: number; excess_minor: number };
    expect(money.excess_minor).toBe(0);
    const events = (await eventsOf(t, app.id)).filter(
      (e) => e.data.invoice_id === inv.id || e.data.payment_id === p.id,
    );
    expect(events.map((e) => e.type)).toEqual([
      'invoice.issued',
      'payment.succeeded',
      'invoice.paid',
    ]);
    expect(lines).toEqual([]);
  });

  it('a capture being confirmed when the void arrives is recorded first; the void then answers 409', async () => {
    const ref = 'race-settle-void';
    const inv = await createInvoice(t, app.TEST, { customerReference: ref });
    const p = await createPayment(t, app.TEST, {
      amountMinor: 100000,
      customerReference: ref,
      invoiceId: inv.id,
    });
    const session = new URL(p.checkoutUrl).pathname.split('/').pop();
    await t.http().post(`/sandbox/checkout/${session}`).type('form').send({ outcome: 'pay' });
    const invoice = await holdLock(t, 'SELECT 1 FROM invoices WHERE id = $1 FOR UPDATE', [inv.id]);
    let confirming: Promise<{ status: number }>;
    let voiding: Promise<{ status: number; body: any }>;
    try {
      confirming = t
        .http()
        .get(`/api/v1/gateways/sandbox/return?session_id=${session}`)
        .then((r) => r);
      await untilWaiting(t, 1, confirming);
      voiding = t
        .http()
        .post(`/api/v1/invoices/${inv.id}/void`)
        .set(asApp(app.TEST))
        .then((r) => r);
      await untilWaiting(t, 2, voiding);
    } finally {
      await invoice.release();
    }
    const [confirmed, voided] = await Promise.all([confirming, voiding]);
    expect(confirmed.status).toBe(303);
    expect(voided.status).toBe(409);
    expect(voided.body.meta.errorCode).toBe('INVALID_STATE');
    const row = (
      await t.db.query('SELECT status, amount_paid_minor FROM invoices WHERE id = $1', [inv.id])
    ).rows[0];
    expect(row).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
    expect((await paymentsOf(inv.id)).map((x) => x.status)).toEqual(['SUCCEEDED']);
  });

  it('two payments of one invoice settling at the same time add up exactly once each', async () => {
    const ref = 'race-two-settle';
    const inv = await createInvoice(t, app.TEST, { customerReference: ref });
    const a = await createPayment(t, app.TEST, {
      amountMinor: 40000,
      customerReference: ref,
      invoiceId: inv.id,
    });
    const b = await createPayment(t, app.TEST, {
      amountMinor: 60000,
      customerReference: ref,
      invoiceId: inv.id,
    });
    const sessions = [a, b].map((p) => new URL(p.checkoutUrl).pathname.split('/').pop());
    for (const s of sessions)
      await t.http().post(`/sandbox/checkout/${s}`).type('form').send({ outcome: 'pay' });
    const invoice = await holdLock(t, 'SELECT 1 FROM invoices WHERE id = $1 FOR UPDATE', [inv.id]);
    let confirming: Promise<{ status: number }>[];
    try {
      confirming = sessions.map((s) =>
        t
          .http()
          .get(`/api/v1/gateways/sandbox/return?session_id=${s}`)
          .then((r) => r),
      );
      await untilWaiting(t, 2);
    } finally {
      await invoice.release();
    }
    expect((await Promise.all(confirming)).map((r) => r.status)).toEqual([303, 303]);
    const row = (
      await t.db.query('SELECT status, amount_paid_minor FROM invoices WHERE id = $1', [inv.id])
    ).rows[0];
    expect(row).toEqual({ status: 'PAID', amount_paid_minor: 100000 });
    const types = (await eventsOf(t, app.id, 'invoice.'))
      .filter((e) => e.data.invoice_id === inv.id)
      .map((e) => e.type);
    expect(types.sort()).toEqual(['invoice.issued', 'invoice.paid', 'invoice.partially_paid']);
  });
});
