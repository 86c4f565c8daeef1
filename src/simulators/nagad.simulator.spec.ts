import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  sign,
  verify,
} from 'node:crypto';

import { fixture, shapeDifferences } from './gateway-shapes';
import { NagadSimulator } from './nagad.simulator';
import { serveSimulators } from './simulators';

/**
 * The Nagad simulator against Nagad's published answers
 * (test/fixtures/gateways/nagad, decisions sections 17, 19 and 22), driven by
 * a client of the test's own written from the fixtures' README with
 * node:crypto (not the simulator's crypto, and not the adapter's).
 */

const der = (k: KeyObject, type: 'pkcs8' | 'spki') =>
  k.export({ format: 'der', type } as never).toString('base64');
const pair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey: der(privateKey, 'pkcs8'), publicKey: der(publicKey, 'spki') };
};
const keys = { nagad: pair(), merchant: pair(), stranger: pair() };
const priv = (b64: string) =>
  createPrivateKey({ key: Buffer.from(b64, 'base64'), format: 'der', type: 'pkcs8' });
const pub = (b64: string) =>
  createPublicKey({ key: Buffer.from(b64, 'base64'), format: 'der', type: 'spki' });

/** yyyyMMddHHmmss in Asia/Dhaka. */
const dhaka = (at = new Date()) =>
  new Date(at.getTime() + 6 * 3_600_000).toISOString().replace(/\D/g, '').slice(0, 14);

const body = (name: string) => fixture('nagad', name).response!.body as Record<string, unknown>;
const HEADERS = {
  'content-type': 'application/json',
  'x-km-api-version': 'v-0.2.0',
  'x-km-ip-v4': '127.0.0.1',
  'x-km-client-type': 'PC_WEB',
};

/** The merchant's side of Nagad's protocol, as the README describes it. */
class TestMerchant {
  readonly merchantPrivate: KeyObject;
  readonly nagadPublic: KeyObject;
  orders = 0;

  constructor(
    readonly base: string,
    readonly creds: { merchantId: string; merchantPrivateKey: string; nagadPublicKey: string },
  ) {
    this.merchantPrivate = priv(creds.merchantPrivateKey);
    this.nagadPublic = pub(creds.nagadPublicKey);
  }

  seal(plain: string, encryptFor = this.nagadPublic, signWith = this.merchantPrivate) {
    const bytes = Buffer.from(plain, 'utf8');
    return {
      sensitiveData: publicEncrypt(
        { key: encryptFor, padding: constants.RSA_PKCS1_PADDING },
        bytes,
      ).toString('base64'),
      signature: sign('sha256', bytes, signWith).toString('base64'),
    };
  }

  /** An answer's plaintext (decrypted with the merchant's key) and whether Nagad's signature holds. */
  openAnswer(answer: Record<string, unknown>) {
    const bytes = privateDecrypt(
      { key: this.merchantPrivate, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(answer.sensitiveData as string, 'base64'),
    );
    return {
      plain: JSON.parse(bytes.toString('utf8')) as Record<string, unknown>,
      signed: verify(
        'sha256',
        bytes,
        this.nagadPublic,
        Buffer.from(answer.signature as string, 'base64'),
      ),
    };
  }

  async call(
    method: string,
    path: string,
    json?: unknown,
    headers: Record<string, string> = HEADERS,
  ) {
    const res = await fetch(`${this.base}/${path}`, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  orderId(): string {
    return `Ord${Date.now()}${++this.orders}`.slice(0, 20);
  }

  async initialize(
    orderId = this.orderId(),
    o: {
      datetime?: string;
      /** The outer body's time, when it is not the plaintext's. */
      outerDatetime?: string;
      outerKey?: string;
      plainKey?: string;
      encryptFor?: KeyObject;
      signWith?: KeyObject;
      merchantId?: string;
      headers?: Record<string, string>;
    } = {},
  ) {
    const merchantId = o.merchantId ?? this.creds.merchantId;
    const datetime = o.datetime ?? dhaka();
    // Nagad's samples' plaintext: merchantId, datetime, orderId, challenge (compact JSON).
    const plain = JSON.stringify({
      merchantId,
      [o.plainKey ?? 'datetime']: datetime,
      orderId,
      challenge: 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0',
    });
    return this.call(
      'POST',
      `check-out/initialize/${merchantId}/${orderId}`,
      {
        accountNumber: '01900000001',
        [o.outerKey ?? 'dateTime']: o.outerDatetime ?? datetime,
        ...this.seal(plain, o.encryptFor, o.signWith),
      },
      o.headers,
    );
  }

  async complete(
    ref: string,
    o: {
      amount?: string;
      currencyCode?: string;
      challenge: string;
      orderId: string;
      callback?: string;
    },
  ) {
    const plain = JSON.stringify({
      merchantId: this.creds.merchantId,
      orderId: o.orderId,
      currencyCode: o.currencyCode ?? '050',
      amount: o.amount ?? '150.50',
      challenge: o.challenge,
    });
    return this.call('POST', `check-out/complete/${ref}`, {
      ...this.seal(plain),
      merchantCallbackURL: o.callback ?? 'http://127.0.0.1:1/nagad/callback?x=1',
    });
  }

  verify(ref: string) {
    const { 'content-type': _json, ...headers } = HEADERS;
    return this.call('GET', `verify/payment/${ref}`, undefined, headers);
  }

  /** initialize + complete: the payment page's address. */
  async checkout(amount = '150.50') {
    const orderId = this.orderId();
    const init = await this.initialize(orderId);
    const { plain } = this.openAnswer(init.body);
    const ref = plain.paymentReferenceId as string;
    const done = await this.complete(ref, {
      amount,
      orderId,
      challenge: plain.challenge as string,
    });
    return {
      ref,
      orderId,
      challenge: plain.challenge as string,
      page: done.body.callBackUrl as string,
    };
  }
}

describe('Nagad simulator', () => {
  let nagad: NagadSimulator;
  let m: TestMerchant;
  beforeAll(async () => {
    nagad = await new NagadSimulator({
      nagadKeys: keys.nagad,
      merchantKeys: keys.merchant,
    }).start();
    m = new TestMerchant(nagad.baseUrl, nagad.credentials);
  });
  afterAll(() => nagad.stop());

  const pick = (ref: string, query: string) =>
    fetch(
      `${new URL(nagad.baseUrl).origin}/check-out/pay?paymentRefId=${encodeURIComponent(ref)}&${query}`,
      {
        redirect: 'manual',
      },
    );
  const callbackQuery = (res: Response) =>
    Object.fromEntries(new URL(res.headers.get('location')!).searchParams);

  it('prints credentials as Nagad exchanges them: 15-character merchant id, 01… number, bare base64 PKCS#8 and SPKI', () => {
    const c = nagad.credentials;
    expect(c.merchantId).toMatch(/^\d{15}$/);
    expect(c.merchantNumber).toMatch(/^01\d{9}$/);
    expect(c.merchantPrivateKey).toMatch(/^MIIE[A-Za-z0-9+/]+=*$/);
    expect(c.nagadPublicKey).toMatch(/^MIIBI[A-Za-z0-9+/]+=*$/);
    expect(nagad.baseUrl).toMatch(/\/remote-payment-gateway-1\.0\/api\/dfs$/);
  });

  it("initialize answers in the published shape, sealed for the merchant and signed by Nagad's key", async () => {
    const orderId = m.orderId();
    const init = await m.initialize(orderId);
    expect(init.status).toBe(200);
    expect(shapeDifferences(init.body, body('initialize.success-sandbox-2024'))).toEqual([]);
    expect(init.body.sensitiveData).toHaveLength(344);
    expect(init.body.signature).toHaveLength(344);
    const { plain, signed } = m.openAnswer(init.body);
    expect(signed).toBe(true);
    expect(
      shapeDifferences(plain, body('initialize-sensitive-data.response-sandbox-2024')),
    ).toEqual([]);
    expect(plain.challenge).toMatch(/^[0-9a-f]{20}$/);
    expect(Math.abs(Number(plain.acceptDateTime) - Number(dhaka()))).toBeLessThan(100);
    // base64 of MMddHHmmssSSS.merchantId.orderId.challenge, as the 2024 capture's.
    expect(Buffer.from(plain.paymentReferenceId as string, 'base64').toString()).toMatch(
      new RegExp(`^\\d{13}\\.${nagad.merchantId}\\.${orderId}\\.${plain.challenge}$`),
    );
    // A signature by another key than Nagad's does not verify: the check above can fail.
    const forged = sign('sha256', Buffer.from('{}'), priv(keys.stranger.privateKey));
    expect(m.openAnswer({ ...init.body, signature: forged.toString('base64') }).signed).toBe(false);
  });

  it('takes datetime or dateTime, outside and inside', async () => {
    const init = await m.initialize(undefined, { outerKey: 'datetime', plainKey: 'dateTime' });
    expect(init.status).toBe(200);
    expect(m.openAnswer(init.body).signed).toBe(true);
  });

  // Codes and messages: the guide's list (test/fixtures/gateways/README.md, "Error answers").
  it.each([
    [
      'a missing X-KM-Client-Type',
      '16_0006_064',
      'Mandatory Header Missing',
      { headers: { ...HEADERS, 'x-km-client-type': '' } },
    ],
    [
      'a merchant it does not know',
      '16_0006_004',
      'Provided merchant ID is invalid',
      { merchantId: '683002007104225' },
    ],
    [
      'a signature by another key',
      '16_0006_058',
      'Failed to verify signature',
      { signWith: priv(keys.stranger.privateKey) },
    ],
    [
      'sensitiveData for another key',
      '16_0006_057',
      'Decryption failed',
      { encryptFor: pub(keys.stranger.publicKey) },
    ],
    [
      'an unpadded month in sensitiveData',
      '16_0006_081',
      'Invalid Date Time Format',
      { datetime: dhaka().slice(0, 4) + dhaka().slice(5), outerDatetime: dhaka() },
    ],
    [
      'an outer dateTime that is not yyyyMMddHHmmss',
      '16_0006_081',
      'Invalid Date Time Format',
      { outerDatetime: `${dhaka()}0` },
    ],
    [
      'a UTC time (6 hours off)',
      '16_0006_076',
      'Transaction Date Time Not in allowed window',
      { datetime: dhaka(new Date(Date.now() - 6 * 3_600_000)) },
    ],
  ] as const)('initialize with %s is refused: %s %s', async (_what, reason, message, o) => {
    const init = await m.initialize(undefined, o as Parameters<TestMerchant['initialize']>[1]);
    expect(init).toEqual({ status: 400, body: { reason, message } });
    expect(shapeDifferences(init.body, body('initialize.error-16_0006_058-signature'))).toEqual([]);
  });

  it('initialize refuses a bad order id (068) and the same order id twice the same day (083)', async () => {
    expect((await m.initialize('ab-12')).body).toEqual(
      body('initialize.error-16_0006_068-invalid-order-id'),
    );
    expect((await m.initialize('Ord1234')).status).toBe(200);
    const again = await m.initialize('Ord1234');
    expect(again).toEqual({
      status: 400,
      body: body('initialize.error-16_0006_083-duplicate-order-id'),
    });
  });

  it('complete answers the payment page; a second complete is 017, another currency 080, an unknown reference 055', async () => {
    const orderId = m.orderId();
    const init = m.openAnswer((await m.initialize(orderId)).body).plain;
    const ref = init.paymentReferenceId as string;
    const challenge = init.challenge as string;
    expect(await m.complete(ref, { orderId, challenge, currencyCode: '840' })).toEqual({
      status: 400,
      body: body('complete.error-16_0006_080-invalid-currency'),
    });
    const done = await m.complete(ref, { orderId, challenge });
    expect(done.status).toBe(200);
    expect(shapeDifferences(done.body, body('complete.success-sandbox-2024'))).toEqual([]);
    expect(done.body.status).toBe('Success');
    expect(done.body.callBackUrl).toBe(`${new URL(nagad.baseUrl).origin}/check-out/${ref}`);
    expect((await m.complete(ref, { orderId, challenge })).body).toEqual(
      body('complete.error-16_0006_017-purchase-state'),
    );
    expect((await m.complete('bm90LWEtcmVhbC1yZWZlcmVuY2U=', { orderId, challenge })).body).toEqual(
      body('complete.error-16_0006_055-invalid-payment-reference'),
    );
  });

  it('complete refuses a javascript: callback (only http(s) ways back)', async () => {
    const orderId = m.orderId();
    const init = m.openAnswer((await m.initialize(orderId)).body).plain;
    const done = await m.complete(init.paymentReferenceId as string, {
      orderId,
      challenge: init.challenge as string,
      callback: 'javascript:alert(1)',
    });
    expect(done.status).toBe(400);
    expect(done.body.reason).toBe('16_0006_999');
  });

  it('verify of an unknown reference is 055 as published, and needs the X-KM headers (064)', async () => {
    expect(await m.verify('bm90LWEtcmVhbC1yZWZlcmVuY2U=')).toEqual({
      status: 400,
      body: body('verify-payment.error-16_0006_055-invalid-payment-reference'),
    });
    const { ref } = await m.checkout();
    const res = await fetch(`${nagad.baseUrl}/verify/payment/${ref}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { reason: string }).reason).toBe('16_0006_064');
  });

  it('the page: both languages, no script, and paying sends the browser back as the captured callback; verify says Success', async () => {
    const { ref, orderId, page } = await m.checkout('150.50');
    expect((await m.verify(ref)).body.status).toBe('Ready');
    const bn = await fetch(page, { headers: { 'accept-language': 'bn-BD' } });
    const html = await bn.text();
    expect(html).toContain('<html lang="bn">');
    expect(html).toContain('নগদ (সিমুলেটর)');
    expect(html).toContain('150.50 BDT');
    expect(bn.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(bn.headers.get('content-security-policy')).not.toMatch(/script-src/);
    expect(await (await fetch(`${page}?lang=en`)).text()).toContain('id="nagad-lose-verify"');
    expect((await m.verify(ref)).body.status).toBe('InProgress');

    const back = await pick(ref, 'outcome=success');
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toMatch(
      /^http:\/\/127\.0\.0\.1:1\/nagad\/callback\?x=1&merchant=/,
    );
    const query = callbackQuery(back);
    const { x: _x, ...nagadQuery } = query;
    const published = fixture('nagad', 'callback.success-sandbox-2020').request!.query as object;
    expect(Object.keys(nagadQuery)).toEqual(Object.keys(published));
    expect(nagadQuery).toMatchObject({
      merchant: nagad.merchantId,
      order_id: orderId,
      payment_ref_id: ref,
      status: 'Success',
      status_code: '00_0000_000',
      message: 'Successful Transaction',
      issuer_payment_ref: ref,
    });
    expect(nagadQuery.payment_dt).toMatch(/^\d{14}$/);

    const verified = await m.verify(ref);
    expect(verified.status).toBe(200);
    expect(shapeDifferences(verified.body, body('verify-payment.success-sandbox-2021'))).toEqual(
      [],
    );
    expect(verified.body).toMatchObject({
      paymentRefId: ref,
      orderId,
      amount: '150.50',
      status: 'Success',
      statusCode: '000',
      issuerPaymentRefNo: expect.stringMatching(/^[A-Z0-9]{8}$/),
    });
  });

  it('another amount: verify reports what Nagad charged', async () => {
    const { ref } = await m.checkout('99.99');
    expect((await pick(ref, 'outcome=other_amount')).status).toBe(302);
    expect((await m.verify(ref)).body).toMatchObject({ status: 'Success', amount: '100.99' });
  });

  it.each([
    ['cancel', 'Cancelled', 'verify-payment.cancelled'],
    ['abort', 'Aborted', 'verify-payment.aborted'],
    ['failure', 'Failed', 'verify-payment.failed'],
  ])(
    'outcome %s: the callback and verify say %s, in the published shapes',
    async (outcome, status, shape) => {
      const { ref } = await m.checkout();
      const back = await pick(ref, `outcome=${outcome}`);
      const { x: _x, ...query } = callbackQuery(back);
      const published = fixture('nagad', 'callback.aborted').request!.query as object;
      expect(Object.keys(query)).toEqual(Object.keys(published));
      expect(query.status).toBe(status);
      const verified = await m.verify(ref);
      expect(verified.body.status).toBe(status);
      expect(shapeDifferences(verified.body, body(shape))).toEqual([]);
    },
  );

  it('a lost callback keeps the browser on the page; a lost verify drops the connection once; a slow verify waits', async () => {
    const { ref } = await m.checkout();
    const stayed = await pick(ref, 'outcome=success&lose_callback=1&lose_verify=1&slow=400');
    expect(stayed.status).toBe(200);
    expect(stayed.headers.get('location')).toBeNull();
    expect(await stayed.text()).toContain('id="nagad-stayed"');
    await expect(m.verify(ref)).rejects.toThrow();
    const started = Date.now();
    expect((await m.verify(ref)).body.status).toBe('Success');
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
    const quick = Date.now();
    await m.verify(ref);
    expect(Date.now() - quick).toBeLessThan(380);
  });

  it('programmatic controls: payerPays another amount, loseNextVerify, the callback URL a test browser follows', async () => {
    const { ref, orderId } = await m.checkout('10');
    nagad.payerPays(ref, { amountMinor: 1_100 });
    expect(nagad.callbackUrl(ref)).toContain(`&order_id=${orderId}&`);
    nagad.loseNextVerify(2);
    await expect(m.verify(ref)).rejects.toThrow();
    await expect(m.verify(ref)).rejects.toThrow();
    expect((await m.verify(ref)).body).toMatchObject({ status: 'Success', amount: '11.00' });
    expect(nagad.requests.at(-1)).toMatchObject({ method: 'GET', path: `/verify/payment/${ref}` });
  });

  it("the guide's verify variant: its members, dates as yyyyMMddHHmmss, statusCode 00_000_00", async () => {
    const { ref } = await m.checkout();
    nagad.payerPays(ref);
    nagad.shapes.verify = 'verify-payment.success-guide-v3.3';
    try {
      const verified = (await m.verify(ref)).body;
      expect(Object.keys(verified)).toEqual(Object.keys(body('verify-payment.success-guide-v3.3')));
      expect(verified.issuerPaymentDateTime).toMatch(/^\d{14}$/);
      expect(verified.statusCode).toBe('00_000_00');
    } finally {
      nagad.shapes.verify = 'verify-payment.success-sandbox-2021';
    }
  });

  it('the shape check sees another member set and another date format', () => {
    const sandbox = body('verify-payment.success-sandbox-2021');
    expect(shapeDifferences(body('verify-payment.success-guide-v3.3'), sandbox)).toEqual([
      expect.stringMatching(/^members /),
      'clientMobileNo is null where the fixture has string',
      'orderDateTime is null where the fixture has yyyy-MM-dd HH:mm:ss.S',
      'issuerPaymentDateTime is yyyyMMddHHmmss where the fixture has yyyy-MM-dd HH:mm:ss.S',
    ]);
    expect(shapeDifferences(sandbox, sandbox)).toEqual([]);
  });

  it('npm run simulators serves it under /nagad with the sandbox layout, and its credentials', async () => {
    const served = await serveSimulators(0);
    try {
      const base = `${served.url}/nagad/remote-payment-gateway-1.0/api/dfs`;
      expect(served.simulators.nagad.baseUrl).toBe(base);
      const creds = (await (await fetch(`${served.url}/nagad/simulator/credentials`)).json()) as {
        merchantId: string;
        merchantPrivateKey: string;
        nagadPublicKey: string;
      };
      expect(creds).toEqual(served.simulators.nagad.credentials);
      const other = new TestMerchant(base, creds);
      const init = await other.initialize();
      expect(init.status).toBe(200);
      expect(other.openAnswer(init.body).signed).toBe(true);
      // The live layout (…/api/dfs) is taken too.
      const live = new TestMerchant(`${served.url}/nagad/api/dfs`, creds);
      expect((await live.initialize()).status).toBe(200);
    } finally {
      await served.close();
    }
  });
});
