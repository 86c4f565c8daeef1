import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import type { EventType } from '../../src/events/event-catalogue';
import { EventsService } from '../../src/events/events.service';
import { createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

describe('outbox: EventsService.record', () => {
  let t: TestApp;
  let app: CreatedApp;
  let events: EventsService;
  let txHost: TransactionHost<TransactionalAdapterTypeOrm>;
  const rows = async () =>
    (
      await t.db.query(
        'SELECT type, mode, app_id, data FROM events WHERE app_id = $1 ORDER BY id',
        [app.id],
      )
    ).rows;

  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    events = t.app.get(EventsService);
    txHost = t.app.get(TransactionHost);
  });
  afterAll(() => t.close());

  it('refuses to run outside a transaction, and writes nothing', async () => {
    await expect(
      events.record({ appId: app.id, mode: 'TEST' }, 'payment.succeeded', { payment_id: 1 }),
    ).rejects.toThrow(/inside the transaction/);
    expect(await rows()).toEqual([]);
  });

  /** A payment event's data as the published schema has it (events/event-payloads.ts). */
  const paymentData = (id: number, previous: string) => ({
    payment_id: id,
    previous_status: previous,
    reference: `pay_${id}`,
    amount_minor: 150000,
    excess_minor: 0,
    currency: 'BDT',
    customer_reference: 'cust-1',
    invoice_id: null,
    gateway: 'sandbox',
    gateway_txn_id: null,
    payment_method: null,
    metadata: null,
  });
  const entitlementsData = {
    subscription_id: 3,
    customer_reference: 'cust-1',
    granted: [],
    revoked: [],
    entitlements: [],
  };

  it('an event recorded in a transaction that rolls back leaves no row', async () => {
    await expect(
      txHost.withTransaction(async () => {
        await events.record({ appId: app.id, mode: 'TEST' }, 'payment.succeeded', {
          ...paymentData(1, 'pending'),
          risk_level: 'NORMAL',
        });
        const [{ n }] = await txHost.tx.query(
          'SELECT count(*)::int AS n FROM events WHERE app_id = $1',
          [app.id],
        );
        expect(n).toBe(1); // visible inside the transaction...
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(await rows()).toEqual([]); // ...and gone with it
  });

  it('an event recorded in a committed transaction is stored with its mode, app and status', async () => {
    await txHost.withTransaction(() =>
      events.record({ appId: app.id, mode: 'LIVE' }, 'payment.expired', paymentData(7, 'pending')),
    );
    await txHost.withTransaction(() =>
      events.record(
        { appId: app.id, mode: 'TEST' },
        'subscription.entitlements_updated',
        entitlementsData,
      ),
    );
    expect(await rows()).toEqual([
      {
        type: 'payment.expired',
        mode: 'LIVE',
        app_id: app.id,
        data: { ...paymentData(7, 'pending'), status: 'expired' },
      },
      {
        type: 'subscription.entitlements_updated',
        mode: 'TEST',
        app_id: app.id,
        data: entitlementsData,
      },
    ]);
  });

  it('refuses data that strays from the published schema, and writes nothing', async () => {
    const { amount_minor: _dropped, ...missing } = paymentData(8, 'pending');
    await expect(
      txHost.withTransaction(() =>
        events.record({ appId: app.id, mode: 'TEST' }, 'payment.expired', missing),
      ),
    ).rejects.toThrow(/payment.expired strays from its schema: amount_minor is missing/);
    await expect(
      txHost.withTransaction(() =>
        events.record({ appId: app.id, mode: 'TEST' }, 'payment.expired', {
          ...paymentData(9, 'pending'),
          amount_minor: 1.5,
        }),
      ),
    ).rejects.toThrow(/amount_minor is number, not integer/);
    expect((await rows()).filter((r) => [8, 9].includes(r.data.payment_id))).toEqual([]);
  });

  it('refuses a type outside the closed catalogue', async () => {
    await expect(
      txHost.withTransaction(() =>
        events.record({ appId: app.id, mode: 'TEST' }, 'payment.refunded' as EventType, {}),
      ),
    ).rejects.toThrow(/catalogue/);
  });
});
