import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { DomainEventBus } from '../../src/common/domain-events';
import type { TenantScope } from '../../src/database/tenant';
import { type EventType, statusOfType, TEST_EVENT } from '../../src/events/event-catalogue';
import { EventsRepository } from '../../src/events/events.repository';
import { EventsService } from '../../src/events/events.service';
import { InvoicePaid } from '../../src/invoices';
import { CaptureSettled, PaymentSucceeded } from '../../src/payments';
import { DeliveryError } from '../../src/webhooks/delivery/delivery-status';
import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout';
import { WebhookEndpointsService } from '../../src/webhooks/endpoints/webhook-endpoints.service';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

/**
 * The outbox as services on a real database, no HTTP in between (formerly
 * test/e2e/outbox, webhooks-fanout and the first test of domain-events):
 * an event is recorded only inside the transaction of its state change and
 * commits or rolls back with it, only in the closed catalogue and the
 * published schema; the outbox hears a fact last, after every feature; and
 * the relay fans each committed event out exactly once, to the enabled
 * endpoints of its app and mode subscribed to its type, marking it in the
 * transaction that writes its deliveries. Delivery over real HTTP, signed
 * bytes and the webhook routes stay in the e2e tier (webhooks-*.e2e-spec.ts).
 */
describe('outbox (medium tier: services on a real database)', () => {
  const f = serviceFixture({ appName: 'Outbox' });
  let events: EventsService;
  let txHost: TransactionHost<TransactionalAdapterTypeOrm>;
  beforeAll(() => {
    events = f.get(EventsService);
    txHost = f.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
  });

  describe('EventsService.record', () => {
    const rows = async () =>
      (
        await f.c.db.query(
          'SELECT type, mode, app_id, data FROM events WHERE app_id = $1 ORDER BY id',
          [f.scope.appId],
        )
      ).rows;

    it('refuses to run outside a transaction, and writes nothing', async () => {
      await expect(
        events.record({ appId: f.scope.appId, mode: 'TEST' }, 'payment.succeeded', {
          payment_id: 1,
        }),
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
          await events.record({ appId: f.scope.appId, mode: 'TEST' }, 'payment.succeeded', {
            ...paymentData(1, 'pending'),
            risk_level: 'NORMAL',
          });
          const [{ n }] = await txHost.tx.query(
            'SELECT count(*)::int AS n FROM events WHERE app_id = $1',
            [f.scope.appId],
          );
          expect(n).toBe(1); // visible inside the transaction...
          throw new Error('the state change failed');
        }),
      ).rejects.toThrow('the state change failed');
      expect(await rows()).toEqual([]); // ...and gone with it
    });

    it('an event recorded in a committed transaction is stored with its mode, app and status', async () => {
      await txHost.withTransaction(() =>
        events.record(
          { appId: f.scope.appId, mode: 'LIVE' },
          'payment.expired',
          paymentData(7, 'pending'),
        ),
      );
      await txHost.withTransaction(() =>
        events.record(
          { appId: f.scope.appId, mode: 'TEST' },
          'subscription.entitlements_updated',
          entitlementsData,
        ),
      );
      expect(await rows()).toEqual([
        {
          type: 'payment.expired',
          mode: 'LIVE',
          app_id: f.scope.appId,
          data: { ...paymentData(7, 'pending'), status: 'expired' },
        },
        {
          type: 'subscription.entitlements_updated',
          mode: 'TEST',
          app_id: f.scope.appId,
          data: entitlementsData,
        },
      ]);
    });

    it('refuses data that strays from the published schema, and writes nothing', async () => {
      const { amount_minor: _dropped, ...missing } = paymentData(8, 'pending');
      await expect(
        txHost.withTransaction(() =>
          events.record({ appId: f.scope.appId, mode: 'TEST' }, 'payment.expired', missing),
        ),
      ).rejects.toThrow(/payment.expired strays from its schema: amount_minor is missing/);
      await expect(
        txHost.withTransaction(() =>
          events.record({ appId: f.scope.appId, mode: 'TEST' }, 'payment.expired', {
            ...paymentData(9, 'pending'),
            amount_minor: 1.5,
          }),
        ),
      ).rejects.toThrow(/amount_minor is number, not integer/);
      expect((await rows()).filter((r) => [8, 9].includes(r.data.payment_id))).toEqual([]);
    });

    it('refuses a type outside the closed catalogue', async () => {
      const before = (await rows()).length;
      await expect(
        txHost.withTransaction(() =>
          events.record(
            { appId: f.scope.appId, mode: 'TEST' },
            'payment.refunded' as EventType,
            {},
          ),
        ),
      ).rejects.toThrow(/catalogue/);
      expect((await rows()).length).toBe(before);
    });
  });

  describe('the domain-event bus', () => {
    it('runs subscribers in order: features that settle first, the outbox last', () => {
      const bus = f.get(DomainEventBus);
      const order = bus.subscribersOf(PaymentSucceeded);
      expect([...order].sort()).toEqual([
        // Audits the facts an admin causes through the app routes (decisions section 15).
        'ActingAdminAuditSubscriber.record',
        // Counts the capture and publishes what it counted (CaptureSettled).
        'InvoiceSettlementSubscriber.onPaymentSucceeded',
        'LedgerPostingsSubscriber.onCapture',
        'OutboxSubscriber.record',
      ]);
      expect(order.at(-1)).toBe('OutboxSubscriber.record');
      // What depends on what the invoice counted hears the fact the invoice publishes, not a reply.
      const onSettled = bus.subscribersOf(CaptureSettled);
      expect([...onSettled].sort()).toEqual([
        'ActingAdminAuditSubscriber.record',
        // Refunds the excess (decisions 13).
        'ExcessRefundSubscriber.onCaptureSettled',
        // Decides the payer's receipt for what was counted (decisions 16).
        'NotificationDecisions.onCaptureSettled',
        // Records payment.succeeded with its excess_minor.
        'OutboxSubscriber.record',
        // The payment keeps its excess.
        'PaymentTransitions.recordExcess',
      ]);
      // Subscribers of the same order run in discovery order; the outbox always runs last.
      expect(onSettled.at(-1)).toBe('OutboxSubscriber.record');
      const onPaid = bus.subscribersOf(InvoicePaid);
      expect([...onPaid].sort()).toEqual([
        'ActingAdminAuditSubscriber.record',
        'OneTimeGrantsSubscriber.onInvoicePaid',
        'OutboxSubscriber.record',
        'SubscriptionBillingSubscriber.onInvoicePaid',
      ]);
      expect(onPaid.at(-1)).toBe('OutboxSubscriber.record');
    });
  });

  describe('the outbox relay (WebhookFanout)', () => {
    let scope: TenantScope;
    const relay = () => f.get(WebhookFanout);
    const endpoints = () => f.get(WebhookEndpointsService);
    /** An endpoint of `in`; the workers are off, so only fan-out runs and nothing is sent. */
    const endpoint = async (
      input: { events?: string[]; enabled?: boolean } = {},
      inScope: TenantScope = scope,
    ) =>
      (
        await endpoints().create(inScope, {
          url: 'https://hooks.example.test/joma',
          events: ['*'],
          ...input,
        })
      ).endpoint.id;
    /** An event with synthetic data (the relay does not read it), in its own transaction. */
    const recordEvent = (
      inScope: TenantScope,
      type: EventType,
      data: Record<string, unknown> = {},
    ) => {
      const status = statusOfType(type);
      return txHost.withTransaction(() =>
        f.get(EventsRepository).insert({
          appId: inScope.appId,
          mode: inScope.mode,
          type,
          data: status === undefined ? data : { ...data, status },
          createdAt: f.c.clock.now(),
        }),
      );
    };
    const drain = async () => {
      while ((await relay().fanOutBatch()).events > 0);
    };
    const stateOf = async (eventIds: number[]) =>
      (
        await f.c.db.query<{ id: number; fanned: boolean; deliveries: number }>(
          `SELECT e.id, e.fanned_out_at IS NOT NULL AS fanned,
                  (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
             FROM events e WHERE e.id = ANY($1::bigint[]) ORDER BY e.id`,
          [eventIds],
        )
      ).rows;
    beforeEach(async () => {
      scope = { appId: await insertApp(f.c.db, 'Relay'), mode: 'TEST' };
      await endpoint();
    });

    it('a fan-out that fails leaves its events unmarked and writes no delivery; the next one fans them out', async () => {
      const ids = [
        await recordEvent(scope, 'refund.succeeded'),
        await recordEvent(scope, 'refund.succeeded'),
      ];
      // Make the deliveries' insert fail, after the events were claimed and marked.
      await f.c.db.query(`
        CREATE FUNCTION joma_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused by test'; END $$;
        CREATE TRIGGER joma_test_refuse BEFORE INSERT ON webhook_deliveries
          FOR EACH STATEMENT EXECUTE FUNCTION joma_test_refuse();`);
      try {
        await expect(relay().fanOutBatch()).rejects.toThrow(/refused by test/);
      } finally {
        await f.c.db.query(
          `DROP TRIGGER joma_test_refuse ON webhook_deliveries; DROP FUNCTION joma_test_refuse();`,
        );
      }
      expect(await stateOf(ids)).toEqual(ids.map((id) => ({ id, fanned: false, deliveries: 0 })));

      await drain();
      expect(await stateOf(ids)).toEqual(ids.map((id) => ({ id, fanned: true, deliveries: 1 })));
    });

    it('relays racing over one backlog fan each event out exactly once', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 60; i++) ids.push(await recordEvent(scope, 'refund.succeeded', { i }));
      // Four relays at once, small batches, until the backlog is gone.
      await Promise.all(
        [0, 1, 2, 3].map(async () => {
          while ((await relay().fanOutBatch(7)).events > 0);
        }),
      );
      const state = await stateOf(ids);
      expect(state).toHaveLength(60);
      expect(state.every((s) => s.fanned && s.deliveries === 1)).toBe(true);
    });

    it('fans an event out to each enabled endpoint of its app and mode subscribed to its type; with none, one UNDELIVERABLE row without a body', async () => {
      const all = (
        await f.c.db.query('SELECT id FROM webhook_endpoints WHERE app_id = $1', [scope.appId])
      ).rows[0].id as number;
      const refunds = await endpoint({ events: ['refund.succeeded', 'refund.failed'] });
      const payments = await endpoint({ events: ['payment.succeeded'] });
      await endpoint({ enabled: false });
      const live = await endpoint({}, { appId: scope.appId, mode: 'LIVE' });
      const otherApp: TenantScope = { appId: await insertApp(f.c.db, 'Relay other'), mode: 'TEST' };
      await endpoint({}, otherApp);
      const bare: TenantScope = { appId: await insertApp(f.c.db, 'Relay bare'), mode: 'TEST' };

      const refund = await recordEvent(scope, 'refund.succeeded', { n: 1 });
      const invoice = await recordEvent(scope, 'invoice.issued', { n: 2 });
      const ofLive = await recordEvent({ appId: scope.appId, mode: 'LIVE' }, 'refund.succeeded');
      const test = await recordEvent(scope, TEST_EVENT, { endpoint_id: payments });
      const nobody = await recordEvent(bare, 'refund.succeeded');
      await drain();

      const deliveries = async (eventId: number) =>
        (
          await f.c.db.query(
            `SELECT endpoint_id, status, body <> '' AS has_body, last_error
               FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id`,
            [eventId],
          )
        ).rows;
      const pending = (endpointId: number) => ({
        endpoint_id: endpointId,
        status: 'PENDING',
        has_body: true,
        last_error: null,
      });
      expect(await deliveries(refund)).toEqual([pending(all), pending(refunds)]);
      expect(await deliveries(invoice)).toEqual([pending(all)]);
      expect(await deliveries(ofLive)).toEqual([pending(live)]);
      // The test event goes to the endpoint it names alone, whatever the others subscribe to.
      expect(await deliveries(test)).toEqual([pending(payments)]);
      expect(await deliveries(nobody)).toEqual([
        {
          endpoint_id: null,
          status: 'UNDELIVERABLE',
          has_body: false,
          last_error: DeliveryError.NO_ENDPOINT_CONFIGURED,
        },
      ]);
      const [body] = (
        await f.c.db.query(
          `SELECT body FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2`,
          [refund, refunds],
        )
      ).rows;
      expect(JSON.parse(body.body)).toMatchObject({
        type: 'refund.succeeded',
        data: { n: 1, status: 'succeeded' },
      });
    });
  });
});
