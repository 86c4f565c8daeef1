import { RefundsService } from '../../src/refunds';
import { BkashFake } from '../support/bkash-fake';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { bkashPays, setGateway } from '../support/gateways';
import { expectBalancedLedger } from '../support/ledger';
import { eventsOf } from '../support/payments';
import { SslcommerzFake } from '../support/sslcommerz-fake';
import { createTestApp, TestApp } from '../support/test-app';

const STORE = { storeId: 'joma_test', storePassword: 'joma_test@ssl' };
const HOUR = 3_600_000;

/**
 * A refund reaches a gateway at most once (decisions section 7), tried
 * against the contract fakes of SSLCommerz and bKash: the send's answer
 * lost, "initiated", garbage, refused; two replicas' re-checks racing; and
 * a gateway that never decides.
 */
describe('gateway refunds: at most once per refund at the gateway', () => {
  let ssl: SslcommerzFake;
  let bkash: BkashFake;
  let t: TestApp;
  let app: CreatedApp;
  let service: RefundsService;

  beforeAll(async () => {
    ssl = await new SslcommerzFake(STORE.storeId, STORE.storePassword).start();
    bkash = await new BkashFake().start();
    t = await createTestApp({
      config: {
        sslcommerzSandboxUrl: ssl.baseUrl,
        bkashSandboxUrl: bkash.baseUrl,
        gatewayTimeoutMs: 1000,
        jwtTtlMinutes: 60 * 24 * 30,
      },
    });
    app = await createApp(t);
    expect((await setGateway(t, app.id, 'sslcommerz', 'TEST', STORE)).status).toBe(200);
    expect((await setGateway(t, app.id, 'bkash', 'TEST', bkash.app)).status).toBe(200);
    service = t.app.get(RefundsService);
  });
  afterEach(async () => {
    ssl.unhang();
    bkash.unhang();
    ssl.refundsProcessing = false;
    bkash.refundsProcessing = false;
    ssl.refundEnd = 'refunded';
    await expectBalancedLedger(t.db);
  });
  afterAll(async () => {
    await t.close();
    await ssl.stop();
    await bkash.stop();
  });

  const http = () => t.http();
  async function paidThrough(gateway: 'sslcommerz' | 'bkash', amountMinor: number) {
    const res = await http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor, gateway, customerReference: `refund-${gateway}` });
    expect(res.status).toBe(201);
    const p = res.body.data as { id: number; reference: string; checkoutUrl: string };
    if (gateway === 'sslcommerz') {
      expect(await ssl.postIpn(p.reference, ssl.attempt(p.reference, 'VALID'))).toBe(200);
    } else {
      await bkashPays(t, bkash, p.checkoutUrl);
    }
    const paid = await http().get(`/api/v1/payments/${p.id}`).set(asApp(app.TEST));
    expect(paid.body.data.status).toBe('SUCCEEDED');
    return { ...p, paymentID: new URL(p.checkoutUrl).searchParams.get('paymentID') };
  }
  const refund = (paymentId: number, amountMinor: number) =>
    http()
      .post(`/api/v1/payments/${paymentId}/refunds`)
      .set(asApp(app.TEST))
      .send({ amountMinor, reason: 'customer asked' });
  const refundRow = async (id: number) =>
    (
      await t.db.query(
        `SELECT status, send_attempts, gateway_refund_id, failure_reason FROM refunds WHERE id = $1`,
        [id],
      )
    ).rows[0];
  const sslSends = () => ssl.requests.filter((r) => r.query.get('refund_amount')).length;
  const sslRefundsOf = (bankTranId: string) =>
    [...ssl.refunds.values()].filter((r) => r.bankTranId === bankTranId);
  const bkashCalls = (path: string) => bkash.calls.filter((c) => c === path).length;
  /** Lets the re-check's pause pass and runs it, like the scheduled job a minute later. */
  const recheck = async (ms = 61_000) => {
    t.clock.advance(ms);
    return service.recheckPending();
  };
  const paymentOf = async (id: number) =>
    (await http().get(`/api/v1/payments/${id}`).set(asApp(app.TEST))).body.data;

  describe('SSLCommerz', () => {
    it("the send's answer is lost: no published query finds a refund by the merchant's reference, so it stays PENDING and is never sent again (decisions 19)", async () => {
      const p = await paidThrough('sslcommerz', 50000);
      const sendsBefore = sslSends();
      ssl.loseNextRefundAnswer = true;
      const r = await refund(p.id, 20000);
      expect(r.status).toBe(201);
      expect(r.body.data).toMatchObject({ status: 'PENDING', gatewayRefundId: null });
      for (let i = 0; i < 3; i++) await recheck(HOUR);
      // An operator's "check now" goes through the same rule.
      const checked = await http()
        .post(`/api/v1/admin/refunds/${r.body.data.id}/check`)
        .set(bearer(await superAdminToken(t)));
      expect(checked.status).toBe(200);
      expect(checked.body.data.status).toBe('PENDING');
      expect(await refundRow(r.body.data.id)).toMatchObject({
        status: 'PENDING',
        send_attempts: 1,
        gateway_refund_id: null,
      });
      // SSLCommerz made the refund once; Joma never sent a second.
      expect(sslSends() - sendsBefore).toBe(1);
      const txn = (await paymentOf(p.id)).gatewayTxnId as string;
      expect(sslRefundsOf(txn).map((x) => x.amount)).toEqual(['200.00']);
      // The merchant's reference went as refe_id (as sslcommerz-lts sends it), never refund_trans_id.
      const sent = ssl.requests.filter((x) => x.query.get('refund_amount')).at(-1)!;
      expect(sent.query.get('refe_id')).toBe(`rfd_${r.body.data.id}`);
      expect(sent.query.has('refund_trans_id')).toBe(false);
      // Undecided 72 hours after its send: FAILED, saying to check at the gateway; still one send.
      await recheck(72 * HOUR);
      expect(await refundRow(r.body.data.id)).toMatchObject({
        status: 'FAILED',
        failure_reason: expect.stringMatching(/check it at the gateway/),
      });
      expect(sslSends() - sendsBefore).toBe(1);
    });

    it('"initiated" stays PENDING through every re-check until the query says refunded; cancelled at the gateway is FAILED with its reason', async () => {
      const p = await paidThrough('sslcommerz', 30000);
      ssl.refundsProcessing = true;
      const r = await refund(p.id, 10000);
      expect(r.body.data.status).toBe('PENDING');
      for (let i = 0; i < 3; i++) {
        await recheck();
        expect((await refundRow(r.body.data.id)).status).toBe('PENDING');
      }
      ssl.refundsProcessing = false;
      await recheck();
      expect((await refundRow(r.body.data.id)).status).toBe('SUCCEEDED');

      ssl.refundEnd = 'cancelled';
      const second = await refund(p.id, 5000);
      await recheck();
      expect(await refundRow(second.body.data.id)).toMatchObject({
        status: 'FAILED',
        failure_reason: expect.stringMatching(/sslcommerz/),
        send_attempts: 1,
      });
      const types = (await eventsOf(t, app.id, 'refund.'))
        .filter((e) => e.data.payment_id === p.id)
        .map((e) => e.type);
      expect(types).toEqual([
        'refund.pending',
        'refund.succeeded',
        'refund.pending',
        'refund.failed',
      ]);
      expect((await paymentOf(p.id)).amountRefundedMinor).toBe(10000);
    });

    it('garbage instead of the send\'s answer is "unknown": never sent again on it', async () => {
      const p = await paidThrough('sslcommerz', 40000);
      const sendsBefore = sslSends();
      ssl.mode = 'garbage';
      const r = await refund(p.id, 40000);
      expect(r.body.data.status).toBe('PENDING');
      ssl.mode = 'ok';
      await recheck();
      await recheck(HOUR);
      expect(await refundRow(r.body.data.id)).toMatchObject({
        status: 'PENDING',
        send_attempts: 1,
      });
      expect(sslSends() - sendsBefore).toBe(1);
    });

    it('a refund query by refund_ref_id that answers garbage, or no status, decides nothing and sends nothing', async () => {
      const p = await paidThrough('sslcommerz', 20000);
      const sendsBefore = sslSends();
      ssl.refundsProcessing = true;
      const r = await refund(p.id, 20000);
      expect(r.body.data).toMatchObject({
        status: 'PENDING',
        gatewayRefundId: expect.stringMatching(/^RF/),
      });
      ssl.refundsProcessing = false;
      ssl.mode = 'garbage';
      await recheck();
      await recheck(120_000);
      expect(await refundRow(r.body.data.id)).toMatchObject({
        status: 'PENDING',
        send_attempts: 1,
      });
      ssl.mode = 'ok';
      await recheck(3_600_000);
      expect((await refundRow(r.body.data.id)).status).toBe('SUCCEEDED');
      expect(sslSends() - sendsBefore).toBe(1);
    });

    it('never decided within 72 hours of its last send: FAILED with a reason, refund.failed, nothing sent again', async () => {
      const p = await paidThrough('sslcommerz', 15000);
      ssl.refundsProcessing = true;
      const sendsBefore = sslSends();
      const r = await refund(p.id, 15000);
      for (let hours = 0; hours < 71; hours += 1) await recheck(HOUR);
      expect((await refundRow(r.body.data.id)).status).toBe('PENDING');
      await recheck(2 * HOUR);
      const row = await refundRow(r.body.data.id);
      expect(row).toMatchObject({ status: 'FAILED', send_attempts: 1 });
      expect(row.failure_reason).toMatch(/72 hours/);
      expect(sslSends() - sendsBefore).toBe(1);
      const failed = (await eventsOf(t, app.id, 'refund.failed')).filter(
        (e) => e.data.refund_id === r.body.data.id,
      );
      expect(failed).toHaveLength(1);
      // Its reservation is released: the whole capture may be refunded again (by a person).
      const again = await refund(p.id, 15000);
      expect(again.status).toBe(201);
    });
  });

  describe('bKash', () => {
    it("the send's answer is lost: the refund status finds it by sku; 2,500 refunded, not 5,000", async () => {
      const p = await paidThrough('bkash', 10000);
      bkash.loseNextRefundAnswer = true;
      const r = await refund(p.id, 2500);
      expect(r.status).toBe(201);
      expect(r.body.data.status).toBe('PENDING');
      expect(bkash.payments.get(p.paymentID!)!.refunded).toBe(2500);
      await recheck();
      expect(await refundRow(r.body.data.id)).toMatchObject({
        status: 'SUCCEEDED',
        send_attempts: 1,
        gateway_refund_id: expect.stringMatching(/^RFX/),
      });
      await recheck();
      expect(bkash.payments.get(p.paymentID!)!.refunded).toBe(2500);
      expect((await paymentOf(p.id)).amountRefundedMinor).toBe(2500);
    });

    it('a send bKash never received (HTTP 500): the status lists no such refund, so it is sent again, once', async () => {
      const p = await paidThrough('bkash', 8000);
      bkash.mode = '500';
      const r = await refund(p.id, 3000);
      expect(r.body.data.status).toBe('PENDING');
      bkash.mode = 'ok';
      await recheck();
      expect(await refundRow(r.body.data.id)).toMatchObject({
        status: 'SUCCEEDED',
        send_attempts: 2,
      });
      expect(bkash.payments.get(p.paymentID!)!.refunds).toHaveLength(1);
      expect(bkash.payments.get(p.paymentID!)!.refunded).toBe(3000);
    });

    it("two replicas' re-checks race over a lost answer: one status query, one refund at bKash", async () => {
      const p = await paidThrough('bkash', 9000);
      bkash.loseNextRefundAnswer = true;
      const r = await refund(p.id, 9000);
      t.clock.advance(61_000);
      const queriesBefore = bkashCalls('payment/refund');
      bkash.mode = 'hang';
      const both = Promise.all([service.recheckPending(), service.recheckPending()]);
      for (let i = 0; i < 200 && bkash.waiting === 0; i++)
        await new Promise((ok) => setTimeout(ok, 5));
      await new Promise((ok) => setTimeout(ok, 200));
      bkash.unhang();
      const settled = await both;
      expect(settled.reduce((a, b) => a + b, 0)).toBe(1);
      expect(bkashCalls('payment/refund') - queriesBefore).toBe(1);
      expect((await refundRow(r.body.data.id)).status).toBe('SUCCEEDED');
      expect(bkash.payments.get(p.paymentID!)!.refunds).toHaveLength(1);
    });

    it('a refund whose sends keep failing is not retried for ever: at most 5 sends, then FAILED 72 hours after the last', async () => {
      const p = await paidThrough('bkash', 6000);
      bkash.refundSendsFail = true;
      try {
        const r = await refund(p.id, 6000);
        expect(r.body.data.status).toBe('PENDING');
        // Each re-check: the status lists no such refund, so it is sent again, until the fifth.
        for (let i = 0; i < 10; i++) await recheck(HOUR);
        expect(await refundRow(r.body.data.id)).toMatchObject({
          status: 'PENDING',
          send_attempts: 5,
        });
        for (let hours = 0; hours < 75; hours++) await recheck(HOUR);
        const row = await refundRow(r.body.data.id);
        expect(row).toMatchObject({ status: 'FAILED', send_attempts: 5 });
        expect(row.failure_reason).toMatch(/72 hours/);
      } finally {
        bkash.refundSendsFail = false;
      }
      expect(bkash.payments.get(p.paymentID!)!.refunds).toHaveLength(0);
    });

    it('a refund bKash refuses is FAILED with its code and message; the amount at its limit (all of it) goes through', async () => {
      const p = await paidThrough('bkash', 7000);
      // bKash holds less than Joma believes it may give back (refunded elsewhere, say).
      bkash.payments.get(p.paymentID!)!.refunded = 6000;
      const refused = await refund(p.id, 7000);
      expect(refused.body.data).toMatchObject({
        status: 'FAILED',
        failureReason: expect.stringContaining('bkash 2072: Refund amount not valid'),
      });
      bkash.payments.get(p.paymentID!)!.refunded = 0;
      const whole = await refund(p.id, 7000);
      expect(whole.body.data.status).toBe('SUCCEEDED');
      expect((await refund(p.id, 1)).status).toBe(422);
    });
  });
});
