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

  it('an event recorded in a transaction that rolls back leaves no row', async () => {
    await expect(
      txHost.withTransaction(async () => {
        await events.record({ appId: app.id, mode: 'TEST' }, 'payment.succeeded', {
          payment_id: 1,
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
      events.record({ appId: app.id, mode: 'LIVE' }, 'payment.expired', {
        payment_id: 7,
        previous_status: 'pending',
      }),
    );
    await txHost.withTransaction(() =>
      events.record({ appId: app.id, mode: 'TEST' }, 'subscription.entitlements_updated', {
        subscription_id: 3,
      }),
    );
    expect(await rows()).toEqual([
      {
        type: 'payment.expired',
        mode: 'LIVE',
        app_id: app.id,
        data: { payment_id: 7, previous_status: 'pending', status: 'expired' },
      },
      {
        type: 'subscription.entitlements_updated',
        mode: 'TEST',
        app_id: app.id,
        data: { subscription_id: 3 },
      },
    ]);
  });

  it('refuses a type outside the closed catalogue', async () => {
    await expect(
      txHost.withTransaction(() =>
        events.record({ appId: app.id, mode: 'TEST' }, 'payment.refunded' as EventType, {}),
      ),
    ).rejects.toThrow(/catalogue/);
  });
});
