import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { AppConfig } from '../../src/config/app-config';
import { NagadGateway } from '../../src/gateways/nagad/nagad.gateway';
import { nagadDateTime } from '../../src/gateways/nagad/nagad-answers';
import type {
  CheckoutRequest,
  GatewayContext,
  GatewayOutcome,
  PaymentGateway,
} from '../../src/gateways/payment-gateway.types';
import type { Payment } from '../../src/payments';
import { differencesOf } from '../../src/payments/payment-transitions';
import { fixture, fixturesOf } from '../../src/simulators/gateway-shapes';
import { FixtureReplayer } from '../support/fixture-replayer';
import { NagadTestKeys, plaintextFor } from '../support/nagad-test-keys';
import { createTestContext, TestContext } from '../support/test-context';

type Body = Record<string, unknown>;
const bodyOf = (name: string) => fixture('nagad', name).response!.body as Body;
const requestOf = (name: string) => (fixture('nagad', name).request as { body: Body }).body;
const names = (prefix: string) =>
  [...fixturesOf('nagad').keys()].filter((n) => n.startsWith(prefix));

/** What each published verify answer means (decisions 22); a new variant must be added here. */
const VERIFY: Record<string, GatewayOutcome | 'throws'> = {
  'verify-payment.aborted': 'cancelled',
  'verify-payment.cancelled': 'cancelled',
  'verify-payment.error-16_0006_055-invalid-payment-reference': 'throws',
  'verify-payment.failed': 'failed',
  'verify-payment.fraud': 'failed',
  'verify-payment.in-progress': 'open',
  'verify-payment.invalid-request': 'failed',
  'verify-payment.order-initiated': 'open',
  'verify-payment.partial-cancelled-after-refund': 'captured',
  'verify-payment.success-guide-table-issuerPaymentReferenceNo': 'captured',
  'verify-payment.success-guide-v3.3': 'captured',
  'verify-payment.success-sandbox-2021': 'captured',
  'verify-payment.success-serviceType': 'captured',
  'verify-payment.unknown-failed': 'failed',
};

/**
 * The Nagad adapter against every published Nagad answer (decisions 19 and
 * 22), replayed as it is; the encrypted initialize answers sealed from
 * their published plaintext with keys this test made (NagadTestKeys).
 */
describe('Nagad adapter against every published answer (medium tier)', () => {
  let c: TestContext;
  let api: FixtureReplayer;
  let nagad: NagadGateway;
  const keys = new NagadTestKeys();
  /** A test's own answer instead of the fixture's (an answer no source shows: to prove it is refused). */
  let override: ((name: string) => unknown) | null = null;
  const MERCHANT = '683002007104225';
  const ctx = (merchantId = MERCHANT): GatewayContext => ({
    appId: 1,
    mode: 'TEST',
    credentials: keys.credentials(merchantId, '01737335544'),
  });
  const checkout: CheckoutRequest = {
    reference: 'pay_Ab-Cd_EfGhIjKlMnOpQrStUv',
    amountMinor: 1000,
    currency: 'BDT',
    merchantName: 'A merchant with a long trading name',
    customer: { reference: 'c1' },
    returnUrl: 'http://127.0.0.1/api/v1/gateways/nagad/return',
    ipnUrl: 'http://127.0.0.1/api/v1/gateways/nagad/ipn',
    expiresAt: new Date(),
  };

  beforeAll(async () => {
    api = await new FixtureReplayer('nagad', (name, f) =>
      override ? override(name) : keys.answer(name, f),
    ).start();
    c = await createTestContext({
      nagadSandboxUrl: `${api.baseUrl}/remote-payment-gateway-1.0/api/dfs`,
      nagadServerIp: '203.0.113.10',
      gatewayTimeoutMs: 2000,
    });
    c.clock.freeze(new Date('2024-02-02T06:49:53Z'));
    nagad = c.app.get(NagadGateway);
  });
  beforeEach(() => {
    api.reset();
    keys.tamper = null;
    override = null;
  });
  afterAll(async () => {
    await c.close();
    await api.stop();
  });

  describe('verify payment decides, on status alone', () => {
    it('every published verify answer has its expected outcome here', () => {
      expect(names('verify-payment.').sort()).toEqual(Object.keys(VERIFY).sort());
    });

    it.each(Object.entries(VERIFY))('%s: %s', async (name, expected) => {
      api.on('verify/payment', name);
      const asked = (fixture('nagad', name).request as { path: string }).path.replace(
        'verify/payment/',
        '',
      );
      const b = bodyOf(name);
      const query = () =>
        nagad.queryStatus(
          { sessionId: asked, reference: `pay_${String(b.orderId)}` },
          ctx(String(b.merchantId ?? MERCHANT)),
        );
      if (expected === 'throws') {
        await expect(query()).rejects.toThrow(`nagad ${String(b.reason)}: ${String(b.message)}`);
        return;
      }
      const status = (await query())!;
      expect(status.outcome).toBe(expected);
      expect(status.sessionId).toBe(asked);
      // One GET to verify/payment/{paymentRefId}, with Nagad's headers.
      const [call] = api.calls('verify/payment');
      expect(call.method).toBe('GET');
      expect(call.path).toBe(`/remote-payment-gateway-1.0/api/dfs/verify/payment/${asked}`);
      expect(call.headers).toMatchObject({
        'x-km-api-version': 'v-0.2.0',
        'x-km-ip-v4': '203.0.113.10',
        'x-km-client-type': 'PC_WEB',
      });
      if (expected === 'captured') {
        const txn = b.issuerPaymentRefNo ?? b.issuerPaymentReferenceNo;
        expect(status).toMatchObject({ currency: 'BDT', txnId: txn });
        expect(status.amountMinor).toBe(Math.round(Number(b.amount) * 100));
        expect(status.method?.account ?? null).toBe(b.clientMobileNo);
        // The orderId maps back to the payment's reference: no difference.
        const payment = {
          reference: `pay_${String(b.orderId)}`,
          amountMinor: status.amountMinor,
          currency: 'BDT',
        } as Payment;
        expect(differencesOf(payment, status)).toEqual([]);
      }
      if (expected === 'failed') expect(status.failureReason).toContain(String(b.status));
      if (expected !== 'captured') expect(status.txnId ?? null).toBeNull();
    });

    it("an orderId that is not the payment's, or another merchant's answer, is a difference (decisions 19), never a match", async () => {
      api.on('verify/payment', 'verify-payment.success-sandbox-2021');
      const b = bodyOf('verify-payment.success-sandbox-2021');
      const sessionId = String(b.paymentRefId);
      const payment = { reference: 'pay_SomethingElse123456', amountMinor: 1600, currency: 'BDT' };
      const other = await nagad.queryStatus(
        { sessionId, reference: payment.reference },
        ctx(String(b.merchantId)),
      );
      expect(other?.outcome).toBe('captured');
      expect(differencesOf(payment as Payment, other!)).toEqual(['reference']);
      const foreign = await nagad.queryStatus(
        { sessionId, reference: `pay_${String(b.orderId)}` },
        ctx('683002007104225'),
      );
      expect(
        differencesOf({ ...payment, reference: `pay_${String(b.orderId)}` } as Payment, foreign!),
      ).toEqual(['reference']);
    });

    it.each([
      ['a status Joma cannot read', { status: 'Settled' }],
      ['no status at all', { status: undefined }],
      ['a capture whose amount has three decimals', { amount: '16.005' }],
      ['a capture whose amount is a number', { amount: 16 }],
      ['an answer about another paymentRefId', { paymentRefId: 'b3RoZXI=' }],
      [
        'PartialCancelled without an issuer reference',
        { status: 'PartialCancelled', issuerPaymentRefNo: null },
      ],
    ])('%s: throws (unknown: asked again, never settled on a guess)', async (_, change) => {
      const b: Body = { ...bodyOf('verify-payment.success-sandbox-2021'), ...change };
      override = () => b;
      api.on('verify/payment', 'verify-payment.success-sandbox-2021');
      await expect(
        nagad.queryStatus(
          {
            sessionId: String(bodyOf('verify-payment.success-sandbox-2021').paymentRefId),
            reference: 'pay_x',
          },
          ctx(String(b.merchantId)),
        ),
      ).rejects.toThrow(/^nagad \?: /);
    });

    it("a lost answer (garbage, an HTTP 502 without Nagad's words) throws", async () => {
      override = () => '<html>502 Bad Gateway</html>';
      api.on('verify/payment', 'verify-payment.success-sandbox-2021');
      await expect(
        nagad.queryStatus({ sessionId: 'eA==', reference: 'pay_x' }, ctx()),
      ).rejects.toThrow(/not JSON/);
    });
  });

  it.each([
    [
      503,
      '{"reason":"16_0006_075","message":"Could not persist data to storage"}',
      /^nagad 16_0006_075: Could not persist data to storage$/,
    ],
    [502, '<html>Bad Gateway</html>', /^nagad: .* answered HTTP 502$/],
  ])(
    "an HTTP %s answer: Nagad's own words when it gives them, else the HTTP failure",
    async (status, text, expected) => {
      const server = createServer((_, res) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(text),
      );
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      try {
        const local = new NagadGateway(
          new AppConfig({
            port: 0,
            databaseUrl: 'postgres://unused',
            jwtSecret: 'j',
            encryptionKeyHex: '00'.repeat(32),
            nagadSandboxUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            gatewayTimeoutMs: 2000,
          }),
          c.clock,
        );
        await expect(
          local.queryStatus({ sessionId: 'eA==', reference: 'pay_x' }, ctx()),
        ).rejects.toThrow(expected);
      } finally {
        server.closeAllConnections();
        await new Promise((ok) => server.close(ok));
      }
    },
  );

  describe('callbacks are hints', () => {
    it.each(names('callback.'))('%s: names the payment by payment_ref_id', (name) => {
      const query = (fixture('nagad', name).request as { query: Record<string, string> }).query;
      expect(nagad.checkout.subjectOf(query)).toEqual({ sessionId: query.payment_ref_id });
    });

    it.each(names('callback.'))(
      '%s: its status never decides; verify does (in progress: open; success: captured)',
      async (name) => {
        const published = (fixture('nagad', name).request as { query: Record<string, string> })
          .query;
        // The callback as published, about the payment the verify fixtures describe.
        const ref = String(bodyOf('verify-payment.in-progress').paymentRefId);
        const query = { ...published, payment_ref_id: ref };
        api.on('verify/payment', 'verify-payment.in-progress');
        const open = await nagad.checkout.verifyConfirmation(query, ctx('683XXXX225'));
        expect(open).toMatchObject({ outcome: 'open', sessionId: ref });
        expect(api.calls('verify/payment')[0].path).toBe(
          `/remote-payment-gateway-1.0/api/dfs/verify/payment/${ref}`,
        );
        api.reset();
        api.on('verify/payment', 'verify-payment.success-sandbox-2021');
        const paid = await nagad.checkout.verifyConfirmation(query, ctx('683XXXX225'));
        expect(paid).toMatchObject({ outcome: 'captured', amountMinor: 1600, sessionId: ref });
        // Verify answering about another payment than the callback's is not believed.
        if (published.payment_ref_id !== ref)
          await expect(
            nagad.checkout.verifyConfirmation(published, ctx('683XXXX225')),
          ).rejects.toThrow(/another payment reference/);
      },
    );

    it('a callback without payment_ref_id names no payment and asks nothing', async () => {
      expect(nagad.checkout.subjectOf({ order_id: 'X', status: 'Success' })).toBeNull();
      expect(await nagad.checkout.verifyConfirmation({ status: 'Success' }, ctx())).toBeNull();
      expect(api.received).toHaveLength(0);
    });
  });

  describe('opening a checkout: initialize, then complete', () => {
    const successes = names('initialize.success-').flatMap((i) =>
      names('complete.success-').map((k) => [i, k] as const),
    );

    it.each(successes)("%s + %s: opens the checkout on Nagad's page", async (init, complete) => {
      api.on('check-out/initialize', init).on('check-out/complete', complete);
      const session = await nagad.createCheckout(checkout, ctx());
      const plain = plaintextFor(init);
      expect(session).toEqual({
        sessionId: plain.paymentReferenceId,
        checkoutUrl: bodyOf(complete).callBackUrl,
      });
      // complete goes to the paymentReferenceId, with Nagad's challenge (not ours).
      const [sent] = api.calls('check-out/complete');
      expect(sent.path).toBe(
        `/remote-payment-gateway-1.0/api/dfs/check-out/complete/${String(plain.paymentReferenceId)}`,
      );
      const opened = keys.openRequest(JSON.parse(sent.body));
      expect(opened.plain.challenge).toBe(plain.challenge ?? plain.random);
    });

    it("the initialize request: Nagad's headers, the sample's body, the plaintext members encrypted for Nagad and signed by the merchant", async () => {
      api
        .on('check-out/initialize', 'initialize.success-sandbox-2024')
        .on('check-out/complete', 'complete.success-sandbox-2024');
      await nagad.createCheckout(checkout, ctx());
      const [init] = api.calls('check-out/initialize');
      expect(init.method).toBe('POST');
      expect(init.headers).toMatchObject({
        'content-type': 'application/json',
        'x-km-api-version': 'v-0.2.0',
        'x-km-ip-v4': '203.0.113.10',
        'x-km-client-type': 'PC_WEB',
      });
      const body = JSON.parse(init.body) as Record<string, string>;
      expect(Object.keys(body)).toEqual(
        Object.keys(requestOf('initialize.request-official-sample')),
      );
      expect(body.accountNumber).toBe('01737335544');
      // 2024-02-02T06:49:53Z is 12:49:53 in Dhaka.
      expect(body.dateTime).toBe('20240202124953');
      const opened = keys.openRequest(body as never);
      expect(opened.signed).toBe(true);
      expect(Object.keys(opened.plain)).toEqual(
        Object.keys(requestOf('initialize-sensitive-data.request-official-sample')),
      );
      expect(opened.raw).toBe(JSON.stringify(opened.plain));
      expect(opened.plain).toMatchObject({ merchantId: MERCHANT, datetime: '20240202124953' });
      expect(opened.plain.challenge).toMatch(/^[0-9a-f]{40}$/);
      const orderId = String(opened.plain.orderId);
      expect(orderId).toMatch(/^[A-Za-z0-9]{5,20}$/);
      expect(orderId.startsWith('AbCdEfGhIjKlMn')).toBe(true);
      expect(init.path).toBe(
        `/remote-payment-gateway-1.0/api/dfs/check-out/initialize/${MERCHANT}/${orderId}`,
      );
      expect(nagadDateTime(c.clock.now())).toBe(body.dateTime);
    });

    it("the complete request: the sample's body with the return URL, the captured plaintext members, the amount in taka, BDT as 050", async () => {
      api
        .on('check-out/initialize', 'initialize.success-sandbox-2024')
        .on('check-out/complete', 'complete.success-sandbox-2024');
      await nagad.createCheckout(checkout, ctx());
      const [complete] = api.calls('check-out/complete');
      expect(complete.headers).toMatchObject({
        'content-type': 'application/json',
        'x-km-api-version': 'v-0.2.0',
        'x-km-client-type': 'PC_WEB',
      });
      const body = JSON.parse(complete.body) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(
        Object.keys(requestOf('complete.request-official-sample-merchant-info')),
      );
      expect(body.merchantCallbackURL).toBe(checkout.returnUrl);
      expect(body.additionalMerchantInfo).toEqual({ serviceName: 'A merchant with a long tr' });
      const opened = keys.openRequest(body as never);
      expect(opened.signed).toBe(true);
      expect(Object.keys(opened.plain)).toEqual(
        Object.keys(requestOf('complete-sensitive-data.request-sandbox-2024')),
      );
      const [init] = api.calls('check-out/initialize');
      const initPlain = keys.openRequest(JSON.parse(init.body)).plain;
      expect(opened.plain).toEqual({
        merchantId: MERCHANT,
        orderId: initPlain.orderId,
        currencyCode: '050',
        amount: '10.00',
        challenge: plaintextFor('initialize.success-sandbox-2024').challenge,
      });
    });

    it('two checkouts of one payment get two orderIds (Nagad refuses one twice a day)', async () => {
      api
        .on('check-out/initialize', 'initialize.success-sandbox-2024')
        .on('check-out/complete', 'complete.success-sandbox-2024');
      await nagad.createCheckout(checkout, ctx());
      await nagad.createCheckout(checkout, ctx());
      const [a, b] = api.calls('check-out/initialize').map((r) => r.path);
      expect(a).not.toBe(b);
    });

    it.each(names('initialize.error-'))(
      '%s: Nagad refusing, in its own words, and complete is never sent',
      async (name) => {
        api.on('check-out/initialize', name);
        const b = bodyOf(name);
        const words = b.devMessage ? `${String(b.message)} (${String(b.devMessage)})` : b.message;
        await expect(nagad.createCheckout(checkout, ctx())).rejects.toThrow(
          new RegExp(`^nagad ${String(b.reason)}: ${escape(String(words))}$`),
        );
        expect(api.calls('check-out/complete')).toHaveLength(0);
      },
    );

    it.each(names('complete.error-'))('%s: Nagad refusing, in its own words', async (name) => {
      api
        .on('check-out/initialize', 'initialize.success-sandbox-2024')
        .on('check-out/complete', name);
      const b = bodyOf(name);
      await expect(nagad.createCheckout(checkout, ctx())).rejects.toThrow(
        `nagad ${String(b.reason)}: ${String(b.message)}`,
      );
    });

    it.each([
      ['signature', /signature does not verify/],
      ['other-key', /signature does not verify|does not decrypt/],
      ['not-json', /plaintext is not JSON|signature/],
      ['garbage', /not JSON/],
    ] as const)(
      'an initialize answer with a bad %s is refused (never believed) and complete is never sent',
      async (tamper, why) => {
        keys.tamper = tamper;
        api.on('check-out/initialize', 'initialize.success-sandbox-2024');
        const err = await nagad.createCheckout(checkout, ctx()).catch((e: Error) => e);
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).toMatch(why);
        expect((err as Error).message).toMatch(/^nagad/);
        expect(api.calls('check-out/complete')).toHaveLength(0);
        // No key material in what is logged or stored of it.
        const creds = ctx().credentials!;
        for (const secret of [creds.merchantPrivateKey, creds.nagadPublicKey])
          expect((err as Error).message).not.toContain(secret.slice(40, 80));
      },
    );

    it('a complete answer that names no page, or says other than Success, is refused', async () => {
      const b = bodyOf('complete.success-sandbox-2024');
      for (const answer of [{ status: 'Success' }, { ...b, status: 'Failed' }]) {
        api.reset();
        override = (name) =>
          name.startsWith('complete.') ? answer : keys.answer(name, fixture('nagad', name));
        api
          .on('check-out/initialize', 'initialize.success-sandbox-2024')
          .on('check-out/complete', 'complete.success-sandbox-2024');
        await expect(nagad.createCheckout(checkout, ctx())).rejects.toThrow(
          /^nagad \?: a complete answer without/,
        );
      }
    });
  });

  it("has no refund, settlement or closeCheckout capability (Nagad publishes none); limits are its wire format's", () => {
    const port: PaymentGateway = nagad;
    expect(port.refunds).toBeUndefined();
    expect(port.settlements).toBeUndefined();
    expect(port.checkout.closeCheckout).toBeUndefined();
    expect(nagad.limits).toEqual({ minMinor: 1, maxMinor: 99_999_999_999_999 });
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
