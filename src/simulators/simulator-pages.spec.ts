import { BKASH_SIMULATOR_APP, BkashSimulator } from './bkash.simulator';
import { SSLCOMMERZ_SIMULATOR_STORE, SslcommerzSimulator } from './sslcommerz.simulator';

/**
 * The simulators' customer pages (decisions section 17 and its amendment):
 * both languages, no script allowed (CSP), only http(s) ways back, and the
 * faults a developer can pick on the page.
 */
describe('simulator pages', () => {
  let bkash: BkashSimulator;
  let ssl: SslcommerzSimulator;
  beforeAll(async () => {
    bkash = await new BkashSimulator().start();
    ssl = await new SslcommerzSimulator().start();
  });
  afterAll(async () => {
    await bkash.stop();
    await ssl.stop();
  });

  const bkashToken = async () => {
    const r = await fetch(`${bkash.baseUrl}/tokenized/checkout/token/grant`, {
      method: 'POST',
      headers: {
        username: BKASH_SIMULATOR_APP.username,
        password: BKASH_SIMULATOR_APP.password,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        app_key: BKASH_SIMULATOR_APP.appKey,
        app_secret: BKASH_SIMULATOR_APP.appSecret,
      }),
    });
    return ((await r.json()) as { id_token: string }).id_token;
  };
  const bkashCreate = async (callbackURL: string) =>
    fetch(`${bkash.baseUrl}/tokenized/checkout/create`, {
      method: 'POST',
      headers: {
        authorization: await bkashToken(),
        'x-app-key': BKASH_SIMULATOR_APP.appKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        mode: '0011',
        payerReference: '01770618575',
        callbackURL,
        amount: '10.00',
        currency: 'BDT',
        intent: 'sale',
        merchantInvoiceNumber: 'pay_x',
      }),
    });
  const sslSession = (fields: Record<string, string> = {}) =>
    fetch(`${ssl.baseUrl}/gwprocess/v4/api.php`, {
      method: 'POST',
      body: new URLSearchParams({
        store_id: SSLCOMMERZ_SIMULATOR_STORE.storeId,
        store_passwd: SSLCOMMERZ_SIMULATOR_STORE.storePassword,
        total_amount: '10.00',
        currency: 'BDT',
        tran_id: `pay_${Math.random()}`,
        success_url: 'http://127.0.0.1:1/r',
        fail_url: 'http://127.0.0.1:1/r',
        cancel_url: 'http://127.0.0.1:1/r',
        ipn_url: 'http://127.0.0.1:1/i',
        ...fields,
      }),
    }).then((r) => r.json() as Promise<Record<string, string>>);

  it("bKash: the page speaks the browser's language, allows no script, and a javascript: callback is refused", async () => {
    expect((await bkashCreate('javascript:alert(1)')).status).toBe(400);
    const created = (await (await bkashCreate('http://127.0.0.1:1/back')).json()) as {
      bkashURL: string;
    };
    const bn = await fetch(created.bkashURL, { headers: { 'accept-language': 'bn-BD,bn' } });
    const html = await bn.text();
    expect(html).toContain('<html lang="bn">');
    expect(html).toContain('বিকাশ (সিমুলেটর)');
    const csp = bn.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src/);
    const en = await (await fetch(`${created.bkashURL}&lang=en`)).text();
    expect(en).toContain('<html lang="en">');
    expect(en).toContain('id="bkash-lose-execute"');
  });

  it('SSLCommerz: a javascript: return URL is refused; the page in both languages; the lost-refund fault picked on it', async () => {
    expect(await sslSession({ success_url: 'javascript:alert(1)' })).toMatchObject({
      status: 'FAILED',
      failedreason: 'Invalid success_url',
    });
    const session = await sslSession();
    const page = await fetch(session.GatewayPageURL, { headers: { 'accept-language': 'bn' } });
    expect(await page.text()).toContain('SSLCommerz (সিমুলেটর)');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await (await fetch(`${session.GatewayPageURL}&lang=en`)).text()).toContain('Pay now');
    const paid = await fetch(`${ssl.baseUrl}/simulator/pay`, {
      method: 'POST',
      body: new URLSearchParams({
        SESSIONKEY: session.sessionkey,
        outcome: 'ipn_lost',
        refunds: 'instant',
        lose_refund: '1',
        lang: 'bn',
      }),
    });
    expect(await paid.text()).toContain('পেমেন্ট সফল হয়েছে।');
    const s = ssl.sessions.get(session.sessionkey)!;
    const refund = () =>
      fetch(
        `${ssl.baseUrl}/validator/api/merchantTransIDvalidationAPI.php?${new URLSearchParams({
          bank_tran_id: s.attempts[0].bankTranId,
          refund_amount: '5.00',
          refund_remarks: 'r',
          refe_id: 'rfd_1',
          store_id: SSLCOMMERZ_SIMULATOR_STORE.storeId,
          store_passwd: SSLCOMMERZ_SIMULATOR_STORE.storePassword,
          format: 'json',
        })}`,
      );
    // The first refund is made and its answer lost; the next answers.
    await expect(refund()).rejects.toThrow();
    expect((await (await refund()).json()) as object).toMatchObject({ status: 'success' });
    expect([...ssl.refunds.values()].filter((r) => r.transId === 'rfd_1')).toHaveLength(2);
  });
});
