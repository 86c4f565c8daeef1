import { AppsService } from '../../src/apps';
import { InvoicePaymentsService } from '../../src/billing';
import { AppConfig } from '../../src/config/app-config';
import type { TenantScope } from '../../src/database/tenant';
import { SandboxGateway } from '../../src/gateways';
import {
  type CreatePaymentDto,
  PaymentConfirmationsService,
  PaymentsService,
  toPaymentDto,
} from '../../src/payments';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';
import { insertApp } from '../support/test-context';

/**
 * The rules of payments as services on a real database, with no HTTP in
 * between (test/e2e/payments.e2e-spec.ts keeps the contract: statuses,
 * envelopes, validation 400s, the partition's 404s, digits-only ids, LIVE
 * keys on test helpers, Idempotency-Key replays, settles raced through the
 * API, the IPN route and the OpenAPI document): a new payment's checkout and
 * deadline, the app's amount range and return-URL allowlist, the sandbox
 * kept to TEST, the state machine's results (cancel, fail, late capture of an
 * expired payment, one capture however often it is confirmed), gateway
 * notifications believed only when the gateway confirms them, and the
 * payment.* facts written to the events outbox.
 */
describe('payments (medium tier: services on a real database)', () => {
  const f = serviceFixture({ balancedLedger: true, appName: 'Payments' });
  let seq = 0;
  let billing: InvoicePaymentsService;
  let payments: PaymentsService;
  let helpers: TestHelpersService;
  beforeAll(() => {
    billing = f.get(InvoicePaymentsService);
    payments = f.get(PaymentsService);
    helpers = f.get(TestHelpersService);
  });
  // Tests that freeze the wall clock put it back.
  afterEach(() => f.c.clock.reset());

  const create = (input: Partial<CreatePaymentDto> = {}, scope: TenantScope = f.scope) =>
    billing.createPayment(scope, {
      amountMinor: 50000,
      customerReference: 'cust-1',
      ...input,
    });
  /** A new app of its own, with these settings. */
  async function newApp(settings: Parameters<AppsService['updateSettings']>[1] = {}) {
    const appId = await insertApp(f.c.db, `Payments ${++seq}`);
    await f.get(AppsService).updateSettings(appId, settings);
    return { appId, mode: 'TEST' } as TenantScope;
  }
  /** The payment.* events of one payment, oldest first. */
  const eventsOf = async (paymentId: number) =>
    (
      await f.c.db.query(
        `SELECT type, data FROM events WHERE app_id = $1 AND type LIKE 'payment.%' AND (data->>'payment_id')::bigint = $2 ORDER BY id`,
        [f.scope.appId, paymentId],
      )
    ).rows as { type: string; data: Record<string, any> }[];
  const sessionOf = async (paymentId: number) =>
    (
      await f.c.db.query(
        `SELECT s.status, s.amount_minor::int AS amount_minor FROM sandbox_sessions s JOIN payments p ON p.gateway_session_id = s.session_id WHERE p.id = $1`,
        [paymentId],
      )
    ).rows[0] as { status: string; amount_minor: number };
  const settle = (id: number, outcome: 'succeeded' | 'failed' = 'succeeded') =>
    helpers.settlePayment(f.scope, id, outcome);
  /** What a call was refused with. */
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (err: { code?: string; details?: unknown }) => ({ code: err.code, details: err.details }),
    );

  describe('creating', () => {
    it('a new payment is PENDING on the sandbox (TEST’s gateway) with an open checkout, a pay_ reference, and expiresAt from the app’s paymentExpiryMinutes', async () => {
      f.c.clock.freeze(new Date('2026-11-22T10:00:00.000Z'));
      const p = toPaymentDto(
        await create({
          amountMinor: 150000,
          customerReference: 'alice',
          description: 'Order 7',
          metadata: { order: 7 },
        }),
      );
      expect(p).toMatchObject({
        status: 'PENDING',
        amountMinor: 150000,
        currency: 'BDT',
        gateway: 'sandbox',
        mode: 'TEST',
        applicationId: f.scope.appId,
        invoiceId: null,
        metadata: { order: 7 },
        expiresAt: '2026-11-22T10:30:00.000Z',
      });
      expect(p.reference).toMatch(/^pay_/);
      const row = (
        await f.c.db.query('SELECT gateway_session_id FROM payments WHERE id = $1', [p.id])
      ).rows[0];
      expect(row.gateway_session_id).toMatch(/^sbx_/);
      expect(p.checkoutUrl).toBe(
        `${f.get(AppConfig).publicBaseUrl}/sandbox/checkout/${row.gateway_session_id}`,
      );
      expect(await sessionOf(p.id)).toEqual({ status: 'OPEN', amount_minor: 150000 });
      const slower = await newApp({ paymentExpiryMinutes: 45 });
      expect((await create({}, slower)).expiresAt.toISOString()).toBe('2026-11-22T10:45:00.000Z');
    });

    it('amounts must lie within the app’s minAmountMinor and maxAmountMinor, both inclusive (AMOUNT_OUT_OF_RANGE)', async () => {
      const scope = await newApp({ minAmountMinor: 2000, maxAmountMinor: 90000 });
      for (const amountMinor of [1999, 90001])
        expect(await refusal(create({ amountMinor }, scope))).toMatchObject({
          code: 'AMOUNT_OUT_OF_RANGE',
        });
      for (const amountMinor of [2000, 90000])
        expect((await create({ amountMinor }, scope)).status).toBe('PENDING');
      const { rows } = await f.c.db.query(
        'SELECT amount_minor::int AS a FROM payments WHERE app_id = $1 ORDER BY id',
        [scope.appId],
      );
      expect(rows).toEqual([{ a: 2000 }, { a: 90000 }]);
    });

    it('return URLs are checked against the app’s allowlist (an empty list: https only)', async () => {
      expect(await refusal(create({ successUrl: 'http://shop.example.com/ok' }))).toEqual({
        code: 'REDIRECT_URL_NOT_ALLOWED',
        details: [expect.objectContaining({ field: 'successUrl' })],
      });
      expect(
        toPaymentDto(await create({ successUrl: 'https://shop.example.com/ok' })).redirectUrl,
      ).toBe('https://shop.example.com/ok');
      const listed = await newApp({
        returnUrlAllowlist: 'https://shop.example.com, https://pay.example.org:8443',
      });
      expect(await refusal(create({ cancelUrl: 'https://evil.example.net/x' }, listed))).toEqual({
        code: 'REDIRECT_URL_NOT_ALLOWED',
        details: [expect.objectContaining({ field: 'cancelUrl' })],
      });
      expect(
        await refusal(create({ successUrl: 'https://pay.example.org/done' }, listed)),
      ).toMatchObject({ code: 'REDIRECT_URL_NOT_ALLOWED' });
      const good = await create({ successUrl: 'https://pay.example.org:8443/done' }, listed);
      expect(toPaymentDto(good).redirectUrl).toBe('https://pay.example.org:8443/done');
    });

    it('the sandbox never takes a LIVE payment, named or by default; nothing is written', async () => {
      const live: TenantScope = { appId: f.scope.appId, mode: 'LIVE' };
      for (const input of [{}, { gateway: 'sandbox' }])
        expect(await refusal(create(input, live))).toEqual({
          code: 'VALIDATION_FAILED',
          details: [{ field: 'gateway', message: expect.stringContaining('TEST mode only') }],
        });
      const { rows } = await f.c.db.query(
        `SELECT count(*)::int AS n FROM payments WHERE app_id = $1 AND mode = 'LIVE'`,
        [f.scope.appId],
      );
      expect(rows[0].n).toBe(0);
    });
  });

  describe('the state machine', () => {
    it('a PENDING payment cancels once (a second cancel is a no-op); its checkout is closed, settling it afterwards is refused and only payment.cancelled is written', async () => {
      const p = await create();
      expect((await payments.cancel(f.scope, p.id)).status).toBe('CANCELLED');
      expect((await payments.cancel(f.scope, p.id)).status).toBe('CANCELLED');
      expect(await refusal(settle(p.id))).toMatchObject({ code: 'INVALID_STATE' });
      expect((await payments.get(f.scope, p.id)).status).toBe('CANCELLED');
      const events = await eventsOf(p.id);
      expect(events.map((e) => e.type)).toEqual(['payment.cancelled']);
      expect(events[0].data).toMatchObject({ status: 'cancelled', previous_status: 'pending' });
      // An explicit cancel closes the checkout: the customer can no longer pay there.
      expect((await sessionOf(p.id)).status).toBe('CLOSED');
    });

    it('settled three times at once: SUCCEEDED each time and exactly one payment.succeeded; settling again changes nothing', async () => {
      const p = await create();
      const results = await Promise.all([settle(p.id), settle(p.id), settle(p.id)]);
      expect(results.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
      const events = await eventsOf(p.id);
      expect(events.map((e) => e.type)).toEqual(['payment.succeeded']);
      expect(events[0].data).toMatchObject({
        payment_id: p.id,
        status: 'succeeded',
        previous_status: 'pending',
        amount_minor: 50000,
        currency: 'BDT',
        customer_reference: 'cust-1',
      });
      expect((await settle(p.id)).status).toBe('SUCCEEDED');
      expect(await eventsOf(p.id)).toHaveLength(1);
    });

    it('an expired payment settled late revives: payment.expired then payment.succeeded (previous_status expired); a stale expiry afterwards changes nothing', async () => {
      const p = await create();
      expect((await helpers.expirePayment(f.scope, p.id)).status).toBe('EXPIRED');
      expect((await settle(p.id)).status).toBe('SUCCEEDED');
      const pairs = async () => (await eventsOf(p.id)).map((e) => [e.type, e.data.previous_status]);
      expect(await pairs()).toEqual([
        ['payment.expired', 'pending'],
        ['payment.succeeded', 'expired'],
      ]);
      expect((await helpers.expirePayment(f.scope, p.id)).status).toBe('SUCCEEDED');
      expect(await pairs()).toHaveLength(2);
    });

    it('a failed payment is FAILED with payment.failed, and cannot be cancelled', async () => {
      const p = await create();
      expect((await settle(p.id, 'failed')).status).toBe('FAILED');
      expect(await refusal(payments.cancel(f.scope, p.id))).toMatchObject({
        code: 'INVALID_STATE',
      });
      expect((await payments.get(f.scope, p.id)).status).toBe('FAILED');
      expect((await eventsOf(p.id)).map((e) => e.type)).toEqual(['payment.failed']);
    });
  });

  describe('gateway notifications', () => {
    it('a notification the gateway does not confirm changes nothing; an unknown checkout matches nothing; a genuine one records the capture with its method', async () => {
      const confirmations = f.get(PaymentConfirmationsService);
      const p = await create();
      const session = (
        await f.c.db.query('SELECT gateway_session_id FROM payments WHERE id = $1', [p.id])
      ).rows[0].gateway_session_id as string;
      await confirmations.confirmFromGateway('sandbox', { session_id: session, status: 'VALID' });
      expect((await payments.get(f.scope, p.id)).status).toBe('PENDING');
      expect(
        await confirmations.confirmFromGateway('sandbox', { session_id: 'sbx_doesnotexist000000' }),
      ).toBeNull();
      // The customer pays on the checkout but never comes back; the notification arrives.
      expect((await f.get(SandboxGateway).complete(session, 'pay'))?.refused).toBe(false);
      expect((await payments.get(f.scope, p.id)).status).toBe('PENDING');
      const confirmed = await confirmations.confirmFromGateway('sandbox', { session_id: session });
      expect(confirmed?.payment.status).toBe('SUCCEEDED');
      const after = await payments.get(f.scope, p.id);
      expect(after).toMatchObject({ status: 'SUCCEEDED', paymentMethodBrand: 'SANDBOX' });
      expect(after.gatewayTxnId).toMatch(/^SBXTXN/);
      expect((await eventsOf(p.id)).map((e) => e.type)).toEqual(['payment.succeeded']);
    });
  });
});
