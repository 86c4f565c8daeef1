import { BkashBackingOff, BkashGateway } from '../../src/gateways/bkash/bkash.gateway';
import { fromTaka } from '../../src/gateways/http/taka';
import type { CheckoutRequest, GatewayContext } from '../../src/gateways/payment-gateway.types';
import { SslcommerzGateway } from '../../src/gateways/sslcommerz/sslcommerz.gateway';
import type { Payment } from '../../src/payments';
import { differencesOf } from '../../src/payments/payment-transitions';
import { FixtureReplayer, variants } from '../support/fixture-replayer';
import { createTestContext, insertApp, TestContext } from '../support/test-context';

type Body = Record<string, string>;
const bodyOf = (f: { response: { body: unknown } | null }) => f.response!.body as Body;
/** A checkout of ৳10 as Joma asks for one. */
const checkoutFor = (
  reference: string,
  customer: CheckoutRequest['customer'],
): CheckoutRequest => ({
  reference,
  amountMinor: 1000,
  currency: 'BDT',
  merchantName: 'M',
  customer,
  returnUrl: 'http://127.0.0.1/return',
  ipnUrl: 'http://127.0.0.1/ipn',
  expiresAt: new Date(),
});
const paymentLike = (reference: string, amountMinor: number) =>
  ({ reference, amountMinor, currency: 'BDT' }) as Payment;

/**
 * The adapters against the gateways' own published answers (decisions
 * section 19): every variant under test/fixtures/gateways, replayed as it
 * is, never a shape of ours. A variant an adapter misreads fails here.
 */
describe('gateway adapters against every published answer (medium tier)', () => {
  let c: TestContext;
  let bkashApi: FixtureReplayer;
  let sslApi: FixtureReplayer;
  let bkash: BkashGateway;
  let ssl: SslcommerzGateway;
  let appId: number;
  const BKASH = { appKey: 'k', appSecret: 's', username: 'u', password: 'p' };
  const bkashCtx = (id = appId): GatewayContext => ({
    appId: id,
    mode: 'TEST',
    credentials: BKASH,
  });
  const sslCtx = (): GatewayContext => ({
    appId,
    mode: 'TEST',
    credentials: { storeId: 'teststore0000000', storePassword: 'teststore0000000@ssl' },
  });

  beforeAll(async () => {
    bkashApi = await new FixtureReplayer('bkash').start();
    sslApi = await new FixtureReplayer('sslcommerz').start();
    c = await createTestContext({
      bkashSandboxUrl: bkashApi.baseUrl,
      sslcommerzSandboxUrl: sslApi.baseUrl,
      gatewayTimeoutMs: 2000,
    });
    appId = await insertApp(c.db, 'Conformance');
    // Back-off steps are measured on this clock: frozen, a busy machine cannot end one early.
    c.clock.freeze();
    bkash = c.app.get(BkashGateway);
    ssl = c.app.get(SslcommerzGateway);
  });
  beforeEach(() => {
    bkashApi.reset();
    sslApi.reset();
    bkashApi.on('token/grant', 'grant.success');
  });
  afterAll(async () => {
    await c.close();
    await bkashApi.stop();
    await sslApi.stop();
  });

  describe('bKash', () => {
    it.each(variants('bkash', 'query-payment.completed'))(
      '%s: a capture learned from the status query is a capture, with no difference from the payment',
      async (name, f) => {
        bkashApi.on('execute', 'execute.error-2062-already-completed').on('payment/status', name);
        const b = bodyOf(f);
        const status = (await bkash.queryStatus(
          { sessionId: b.paymentID, reference: 'x' },
          bkashCtx(),
        ))!;
        const invoice = b.merchantInvoice ?? b.merchantInvoiceNumber;
        expect(status).toMatchObject({
          outcome: 'captured',
          reference: invoice,
          amountMinor: fromTaka(b.amount),
          currency: b.currency,
          txnId: b.trxID,
        });
        expect(differencesOf(paymentLike(invoice, fromTaka(b.amount)!), status)).toEqual([]);
      },
    );

    it.each(variants('bkash', 'execute.completed'))(
      '%s: the capture is believed; an invoice the answer leaves out is no difference',
      async (name, f) => {
        bkashApi.on('execute', name);
        const b = bodyOf(f);
        const status = (await bkash.queryStatus(
          { sessionId: b.paymentID, reference: 'x' },
          bkashCtx(),
        ))!;
        expect(status).toMatchObject({ outcome: 'captured', amountMinor: fromTaka(b.amount) });
        expect(
          differencesOf(
            paymentLike(b.merchantInvoiceNumber ?? 'INV-mine', fromTaka(b.amount)!),
            status,
          ),
        ).toEqual([]);
        expect(status.method?.account).toBe(b.customerMsisdn);
      },
    );

    it.each(['execute.error-2056-not-yet-authorised', 'execute.error-2023-insufficient-balance'])(
      '%s: a refused execute decides nothing by itself; the status query does (Initiated: open)',
      async (name) => {
        bkashApi.on('execute', name).on('payment/status', 'query-payment.initiated');
        const status = await bkash.queryStatus(
          { sessionId: 'TR0011x', reference: 'x' },
          bkashCtx(),
        );
        expect(status?.outcome).toBe('open');
        expect(bkashApi.calls('payment/status')).toHaveLength(1);
      },
    );

    it.each(variants('bkash', 'create.success'))('%s: opens the checkout', async (name, f) => {
      bkashApi.on('create', name);
      const session = await bkash.createCheckout(
        checkoutFor('pay_1', { reference: 'c1', phone: '+8801770618575' }),
        bkashCtx(),
      );
      expect(session).toEqual({ sessionId: bodyOf(f).paymentID, checkoutUrl: bodyOf(f).bkashURL });
      // bKash pre-fills the wallet from 01XXXXXXXXX, not +880...
      expect(JSON.parse(bkashApi.calls('create')[0].body).payerReference).toBe('01770618575');
    });

    it.each(['create.error-statusCode-form', 'create.error-errorCode-form'])(
      '%s: an error in either form is bKash refusing, with its code',
      async (name) => {
        bkashApi.on('create', name);
        await expect(
          bkash.createCheckout(checkoutFor('pay_2', { reference: 'c1' }), bkashCtx()),
        ).rejects.toThrow(/^bkash \d{4}: /);
      },
    );

    it.each(variants('bkash', 'refund.success'))('%s: a refund made', async (name, f) => {
      bkashApi.on('payment/refund', name);
      const answer = await bkash.refund(
        { sessionId: 'TR0011x', txnId: 'T1', amountMinor: 500, reference: 'rfd_1' },
        bkashCtx(),
      );
      expect(answer).toEqual({ refundId: bodyOf(f).refundTrxID, status: 'succeeded' });
    });

    it('refund.error-errorCode-form: a refusal in the errorCode form is FAILED with its code', async () => {
      bkashApi.on('payment/refund', 'refund.error-errorCode-form');
      const answer = await bkash.refund(
        { sessionId: 'TR0011x', txnId: 'T1', amountMinor: 500, reference: 'rfd_2' },
        bkashCtx(),
      );
      expect(answer).toMatchObject({
        status: 'failed',
        failureReason: expect.stringMatching(/^bkash \d{4}/),
      });
    });

    it('refund-status: one refund, found by its id or as the only unclaimed one of its amount', async () => {
      bkashApi.on('payment/refund', 'refund-status.with-refund');
      const [[, f]] = variants('bkash', 'refund-status.with-refund');
      const b = bodyOf(f);
      const query = {
        sessionId: 'TR0011x',
        txnId: b.originalTrxID,
        amountMinor: fromTaka(b.amount)!,
        reference: 'rfd_3',
        otherRefundIds: [] as string[],
      };
      expect(
        await bkash.queryRefund({ ...query, gatewayRefundId: b.refundTrxID }, bkashCtx()),
      ).toEqual({
        refundId: b.refundTrxID,
        status: 'succeeded',
      });
      expect(
        await bkash.queryRefund({ ...query, gatewayRefundId: null }, bkashCtx()),
      ).toMatchObject({
        status: 'succeeded',
      });
      // Another refund's answer says nothing of ours: unknown, never "no such refund".
      await expect(
        bkash.queryRefund(
          { ...query, gatewayRefundId: null, otherRefundIds: [b.refundTrxID] },
          bkashCtx(),
        ),
      ).rejects.toThrow(/cannot tell/);
    });

    it('refund-status.no-refund: the documented "no refund" error is a positive "no such refund"', async () => {
      bkashApi.on('payment/refund', 'refund-status.no-refund');
      const query = {
        sessionId: 'TR0011x',
        txnId: 'T1',
        amountMinor: 500,
        reference: 'rfd_4',
        otherRefundIds: [],
      };
      expect(await bkash.queryRefund({ ...query, gatewayRefundId: null }, bkashCtx())).toBeNull();
    });

    it.each(['grant.error-403-forbidden', 'grant.error-errorCode-2001'])(
      '%s: one grant call, then a back-off in which no token call is made',
      async (name) => {
        const fresh = await insertApp(c.db, `Back-off ${name}`);
        bkashApi.on('token/grant', name).on('create', 'create.success');
        const open = () =>
          bkash.createCheckout(checkoutFor('pay_3', { reference: 'c1' }), bkashCtx(fresh));
        await expect(open()).rejects.toThrow(/bkash/);
        await expect(open()).rejects.toBeInstanceOf(BkashBackingOff);
        await expect(open()).rejects.toBeInstanceOf(BkashBackingOff);
        expect(bkashApi.calls('token/grant')).toHaveLength(1);
        expect(bkashApi.calls('create')).toHaveLength(0);
      },
    );
  });

  it('bKash: a refresh bKash refuses is not followed by a grant in the same step; the next step grants', async () => {
    const fresh = await insertApp(c.db, 'Refresh refused');
    const open = () =>
      bkash.createCheckout(checkoutFor('pay_r', { reference: 'c1' }), bkashCtx(fresh));
    bkashApi.on('create', 'create.success').on('token/refresh', 'grant.error-errorCode-2001');
    await open();
    expect(bkashApi.calls('token/grant')).toHaveLength(1);
    c.clock.advance(2 * 3600_000); // the token has expired: a refresh is due
    try {
      await expect(open()).rejects.toThrow(/bkash 2001/);
      expect(bkashApi.calls('token/refresh')).toHaveLength(1);
      expect(bkashApi.calls('token/grant')).toHaveLength(1);
      await expect(open()).rejects.toBeInstanceOf(BkashBackingOff);
      c.clock.advance(1_001);
      await open();
      expect(bkashApi.calls('token/refresh')).toHaveLength(1);
      expect(bkashApi.calls('token/grant')).toHaveLength(2);
    } finally {
      c.clock.advance(-(2 * 3600_000 + 1_001));
    }
  });

  describe('SSLCommerz', () => {
    const checkout = checkoutFor('pay_9', {
      reference: 'c9',
      email: 'a@example.com',
      phone: '+8801711111111',
    });

    it.each(variants('sslcommerz', 'session-init.success'))(
      '%s: opens the checkout',
      async (name, f) => {
        sslApi.on('/gwprocess/v4/api.php', name);
        expect(await ssl.createCheckout(checkout, sslCtx())).toEqual({
          sessionId: bodyOf(f).sessionkey,
          checkoutUrl: bodyOf(f).GatewayPageURL,
        });
        const form = new URLSearchParams(sslApi.calls('/gwprocess/v4/api.php')[0].body);
        expect(form.get('shipping_method')).toBe('NO');
        expect(form.has('cus_add1')).toBe(false);
      },
    );

    it('session-init.failed: refused with its reason', async () => {
      sslApi.on('/gwprocess/v4/api.php', 'session-init.failed');
      await expect(ssl.createCheckout(checkout, sslCtx())).rejects.toThrow(/sslcommerz refused/);
    });

    it('query-by-tran-id.found + validation.valid: captured as the validation API states it', async () => {
      sslApi
        .on('merchantTransIDvalidationAPI.php', 'query-by-tran-id.found')
        .on('validationserverAPI.php', 'validation.valid');
      const status = await ssl.queryStatus({ sessionId: '', reference: '5E121A0D01F92' }, sslCtx());
      expect(status).toMatchObject({ outcome: 'captured', amountMinor: 1000, currency: 'BDT' });
    });

    it.each(['query-by-tran-id.not-found', 'query-by-tran-id.several'])(
      '%s: no capture the validation API states is open, never captured',
      async (name) => {
        sslApi
          .on('merchantTransIDvalidationAPI.php', name)
          .on('validationserverAPI.php', 'validation.invalid-transaction');
        const status = await ssl.queryStatus({ sessionId: '', reference: 'TRANS_123' }, sslCtx());
        expect(status?.outcome).not.toBe('captured');
      },
    );

    it('query-by-tran-id.failed-credentials: no answer (throws), never "not paid"', async () => {
      sslApi.on('merchantTransIDvalidationAPI.php', 'query-by-tran-id.failed-credentials');
      await expect(ssl.queryStatus({ sessionId: '', reference: 'x' }, sslCtx())).rejects.toThrow();
    });

    const refundReq = { sessionId: 's', txnId: 'B1', amountMinor: 1000, reference: 'rfd_9' };
    it.each([
      ['refund-initiate.success', 'pending'],
      ['refund-initiate.processing', 'pending'],
      ['refund-initiate.failed', 'failed'],
    ])('%s: %s', async (name, expected) => {
      sslApi.on('merchantTransIDvalidationAPI.php', name);
      expect((await ssl.refund(refundReq, sslCtx())).status).toBe(expected);
      const sent = sslApi.calls('merchantTransIDvalidationAPI.php')[0].query;
      expect(sent.get('refe_id')).toBe('rfd_9');
      expect(sent.has('refund_trans_id')).toBe(false);
    });

    it('refund-initiate.invalid-request: unknown (throws), so never taken as refused', async () => {
      sslApi.on('merchantTransIDvalidationAPI.php', 'refund-initiate.invalid-request');
      await expect(ssl.refund(refundReq, sslCtx())).rejects.toThrow();
    });

    const query = { ...refundReq, otherRefundIds: [] as string[] };
    it.each([
      ['refund-query.refunded', 'succeeded'],
      ['refund-query.processing', 'pending'],
      ['refund-query.cancelled', 'failed'],
    ])('%s: %s', async (name, expected) => {
      sslApi.on('merchantTransIDvalidationAPI.php', name);
      const answer = await ssl.queryRefund({ ...query, gatewayRefundId: 'R1' }, sslCtx());
      expect(answer?.status).toBe(expected);
      expect(sslApi.calls('merchantTransIDvalidationAPI.php')[0].query.get('refund_ref_id')).toBe(
        'R1',
      );
    });

    it('refund-query.inactive, or a refund without refund_ref_id: unknown, never "no such refund"', async () => {
      sslApi.on('merchantTransIDvalidationAPI.php', 'refund-query.inactive');
      await expect(
        ssl.queryRefund({ ...query, gatewayRefundId: 'R1' }, sslCtx()),
      ).rejects.toThrow();
      sslApi.reset();
      await expect(ssl.queryRefund({ ...query, gatewayRefundId: null }, sslCtx())).rejects.toThrow(
        /no refund_ref_id/,
      );
      expect(sslApi.received).toHaveLength(0);
    });
  });
});
