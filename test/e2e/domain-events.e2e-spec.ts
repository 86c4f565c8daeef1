import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Pool } from 'pg';

import { OnDomainEvent } from '../../src/common/domain-events';
import { AppConfig } from '../../src/config/app-config';
import { PaymentRevived, PaymentSucceeded } from '../../src/payments';
import { createApp, CreatedApp } from '../support/factories';
import { createInvoice, createPayment, eventsOf, expire, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The pattern subscriptions, entitlements and the ledger follow: a provider
 * method marked @OnDomainEvent runs inside the transaction that changed the
 * payment; what it writes commits with the change, and what it throws rolls
 * the change back. A test-only subscriber is mounted beside the real app
 * (the service tier's fixture mounts no extra modules) and the changes come
 * through the test-helper and sandbox IPN routes. The order the real
 * subscribers run in (the outbox last) is proven on the services in
 * test/medium/outbox.medium-spec.ts.
 */
@Injectable()
class LedgerLikeSubscriber {
  readonly seen: { type: string; inTx: boolean; inside: string; outside: string }[] = [];
  failNext = false;
  private readonly pool: Pool;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    config: AppConfig,
  ) {
    this.pool = new Pool({ connectionString: config.databaseUrl, max: 1 });
  }

  @OnDomainEvent(PaymentSucceeded)
  async onCapture(fact: PaymentSucceeded): Promise<void> {
    const sql = `SELECT status FROM payments WHERE id = $1`;
    const [inside] = (await this.txHost.tx.query(sql, [fact.payment.id])) as { status: string }[];
    const { rows } = await this.pool.query(sql, [fact.payment.id]);
    this.seen.push({
      type: fact.constructor.name,
      inTx: this.txHost.isTransactionActive(),
      inside: inside.status,
      outside: rows[0].status as string,
    });
    if (this.failNext) {
      this.failNext = false;
      throw new Error('subscriber refused');
    }
  }

  close() {
    return this.pool.end();
  }
}

@Module({ providers: [LedgerLikeSubscriber] })
class LedgerLikeModule {}

describe('domain events: subscribers run inside the transaction of the change', () => {
  let t: TestApp;
  let app: CreatedApp;
  let subscriber: LedgerLikeSubscriber;
  beforeAll(async () => {
    t = await createTestApp({ imports: [LedgerLikeModule] });
    app = await createApp(t);
    subscriber = t.app.get(LedgerLikeSubscriber);
  });
  afterAll(async () => {
    await subscriber.close();
    await t.close();
  });

  it('a subscriber sees the change uncommitted (inside its transaction), and facts reach the outbox in causal order', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'bus-1' });
    const p = await createPayment(t, app.TEST, {
      amountMinor: 100000,
      invoiceId: invoice.id,
      customerReference: 'bus-1',
    });
    expect((await settle(t, app.TEST, p.id)).status).toBe(200);
    expect(subscriber.seen.at(-1)).toEqual({
      type: 'PaymentSucceeded',
      inTx: true,
      inside: 'SUCCEEDED',
      outside: 'PENDING',
    });
    const types = (await eventsOf(t, app.id)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['payment.succeeded', 'invoice.paid']);
  });

  it('what a subscriber throws rolls the whole change back: payment, invoice and outbox', async () => {
    const invoice = await createInvoice(t, app.TEST, { customerReference: 'bus-2' });
    const p = await createPayment(t, app.TEST, {
      amountMinor: 100000,
      invoiceId: invoice.id,
      customerReference: 'bus-2',
    });
    const before = (await eventsOf(t, app.id)).length;
    subscriber.failNext = true;
    const res = await settle(t, app.TEST, p.id);
    expect(res.status).toBe(500);
    const pay = (await t.db.query(`SELECT status FROM payments WHERE id = $1`, [p.id])).rows[0];
    const inv = (
      await t.db.query(`SELECT status, amount_paid_minor FROM invoices WHERE id = $1`, [invoice.id])
    ).rows[0];
    expect(pay.status).toBe('PENDING');
    expect(inv).toEqual({ status: 'ISSUED', amount_paid_minor: 0 });
    expect((await eventsOf(t, app.id)).length).toBe(before);
    // The gateway still says captured: the next confirmation applies it.
    await t
      .http()
      .post('/api/v1/gateways/sandbox/ipn')
      .send({
        session_id: (
          await t.db.query(`SELECT gateway_session_id AS s FROM payments WHERE id = $1`, [p.id])
        ).rows[0].s,
      });
    const after = (await t.db.query(`SELECT status FROM payments WHERE id = $1`, [p.id])).rows[0];
    expect(after.status).toBe('SUCCEEDED');
  });

  it('a late capture of an expired payment is a PaymentRevived (a PaymentSucceeded too)', async () => {
    const p = await createPayment(t, app.TEST, { customerReference: 'bus-3' });
    expect((await expire(t, app.TEST, p.id)).status).toBe(200);
    const session = (
      await t.db.query(`SELECT gateway_session_id AS s FROM payments WHERE id = $1`, [p.id])
    ).rows[0].s;
    await t.db.query(
      `UPDATE sandbox_sessions SET status = 'CAPTURED', txn_id = 'LATE1' WHERE session_id = $1`,
      [session],
    );
    const ipn = await t.http().post('/api/v1/gateways/sandbox/ipn').send({ session_id: session });
    expect(ipn.status).toBe(200);
    expect(subscriber.seen.at(-1)?.type).toBe(PaymentRevived.name);
    const [ev] = (await eventsOf(t, app.id, 'payment.succeeded')).filter(
      (e) => e.data.payment_id === p.id,
    );
    expect(ev.data.previous_status).toBe('expired');
  });
});
