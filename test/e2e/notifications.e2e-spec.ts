import { NotificationWorker } from '../../src/notifications';
import { BkashFake } from '../support/bkash-fake';
import { asApp, bearer, createApp, type CreatedApp, superAdminToken } from '../support/factories';
import { bkashPays, setGateway } from '../support/gateways';
import { createInvoice, createPayment, settle } from '../support/payments';
import { SmtpSink } from '../support/smtp-sink';
import { SslWirelessFake } from '../support/sslwireless-fake';
import { createTestApp, type TestApp } from '../support/test-app';

/**
 * Customer notifications (decisions section 16) over HTTP: the contract of
 * GET /notifications and GET /notifications/{id} (filters, newest first,
 * one mode per key, TEST contacts in full and LIVE ones masked), and one
 * LIVE path end to end, a bKash capture through the gateway's callback
 * whose receipt reaches a real SMTP server (nodemailer's smtp-server, on
 * loopback) and a stand-in for SSL Wireless's SMS API. The rules (which
 * message each fact calls for, per channel; CAPTURED, QUEUED, SKIPPED and
 * why; the switches; language and sender; retries and at-most-once
 * delivery) are proven on the services in
 * test/medium/notification-decisions.medium-spec.ts and
 * test/medium/notification-delivery.medium-spec.ts.
 */
describe('customer notifications', () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let sms: SslWirelessFake;
  let bkash: BkashFake;
  let root: string;

  const worker = () => t.app.get(NotificationWorker);
  const notifications = (creds: CreatedApp['TEST'], query = '') =>
    t.http().get(`/api/v1/notifications${query}`).set(asApp(creds));
  const contact = {
    customerName: 'Rahim Uddin',
    customerEmail: 'rahim@example.com',
    customerPhone: '01711111111',
  };
  async function withSms(app: CreatedApp, mode: 'TEST' | 'LIVE' = 'LIVE') {
    const res = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/sms/sslwireless?mode=${mode}`)
      .set(bearer(root))
      .send({ apiToken: sms.apiToken, sid: sms.sid });
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    sms = await new SslWirelessFake().start();
    bkash = await new BkashFake().start();
    t = await createTestApp({
      config: {
        bkashLiveUrl: bkash.baseUrl,
        smtpUrl: smtp.url,
        mailFrom: 'Padma Traders <billing@padma.example>',
        sslwirelessSmsUrl: sms.baseUrl,
        smtpTimeoutMs: 1_500,
      },
    });
    root = await superAdminToken(t);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
    await sms.close();
    await bkash.stop();
  });
  afterEach(() => t.clock.reset());

  it("GET /notifications lists the key's mode's messages newest first, filtered by kind, status and invoiceId; GET /notifications/{id} reads one, 404 from the other mode", async () => {
    const app = await createApp(t, 'Padma Traders');
    await withSms(app, 'TEST');
    const invoice = await createInvoice(t, app.TEST, {
      ...contact,
      customerReference: 'rahim',
      customerLanguage: 'en',
      lineItems: [{ description: 'Annual plan', qty: 1, unitAmountMinor: 12_500_000 }],
    });
    const payment = await createPayment(t, app.TEST, {
      amountMinor: invoice.totalMinor,
      invoiceId: invoice.id,
      customerReference: invoice.customerReference,
    });
    expect((await settle(t, app.TEST, payment.id)).status).toBe(200);
    const sent = await createInvoice(t, app.TEST, {
      ...contact,
      customerReference: 'rahim',
      notifyCustomer: true,
    });

    const list = await notifications(app.TEST);
    expect(list.status).toBe(200);
    const all = list.body.data as Record<string, any>[];
    expect(all.map((n) => [n.kind, n.channel])).toEqual([
      ['INVOICE', 'SMS'],
      ['INVOICE', 'EMAIL'],
      ['RECEIPT', 'SMS'],
      ['RECEIPT', 'EMAIL'],
    ]);
    expect(all.map((n) => n.id)).toEqual([...all.map((n) => n.id)].sort((a, b) => b - a));
    const email = all[3];
    expect(email).toMatchObject({
      channel: 'EMAIL',
      kind: 'RECEIPT',
      // TEST contacts in full; the phone as SMS APIs take it.
      to: 'rahim@example.com',
      status: 'CAPTURED',
      invoiceId: invoice.id,
      paymentId: payment.id,
      subscriptionId: null,
      language: 'en',
      subject: `Receipt for invoice ${invoice.number} from Padma Traders`,
      attempts: 0,
      lastError: null,
      sentAt: null,
    });
    expect(email.text).toContain(`${invoice.payableUrl}/receipt?lang=en`);
    expect(all[2]).toMatchObject({ channel: 'SMS', to: '8801711111111', subject: null });
    expect(typeof email.createdAt).toBe('string');

    const ids = async (query: string) => {
      const res = await notifications(app.TEST, query);
      expect(res.status).toBe(200);
      return (res.body.data as { id: number }[]).map((n) => n.id);
    };
    expect(await ids('?kind=RECEIPT')).toEqual([all[2].id, all[3].id]);
    expect(await ids('?kind=INVOICE')).toEqual([all[0].id, all[1].id]);
    expect(await ids(`?invoiceId=${sent.id}`)).toEqual([all[0].id, all[1].id]);
    expect(await ids('?status=CAPTURED&kind=RECEIPT')).toEqual([all[2].id, all[3].id]);
    expect(await ids('?status=SENT')).toEqual([]);
    expect(await ids('?kind=TRIAL_ENDING')).toEqual([]);
    expect((await notifications(app.TEST, '?status=DELIVERED')).status).toBe(400);
    expect((await notifications(app.LIVE)).body.data).toEqual([]);

    const one = await t.http().get(`/api/v1/notifications/${email.id}`).set(asApp(app.TEST));
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(email);
    expect(
      (await t.http().get(`/api/v1/notifications/${email.id}`).set(asApp(app.LIVE))).status,
    ).toBe(404);
    const other = await createApp(t);
    expect(
      (await t.http().get(`/api/v1/notifications/${email.id}`).set(asApp(other.TEST))).status,
    ).toBe(404);
    expect((await notifications(other.TEST)).body.data).toEqual([]);
  });

  it('LIVE: a bKash capture on an invoice sends the receipt, with the transaction id, by email and SMS; the API masks LIVE contacts', async () => {
    const app = await createApp(t, 'Padma Traders');
    await withSms(app);
    expect((await setGateway(t, app.id, 'bkash', 'LIVE', bkash.app, true)).status).toBe(200);
    const invoice = await createInvoice(t, app.LIVE, {
      ...contact,
      customerReference: 'rahim-bkash',
      customerLanguage: 'en',
      lineItems: [{ description: 'Annual plan', qty: 1, unitAmountMinor: 250_000 }],
    });
    const p = await t.http().post('/api/v1/payments').set(asApp(app.LIVE)).send({
      invoiceId: invoice.id,
      amountMinor: 250_000,
      customerReference: 'rahim-bkash',
      gateway: 'bkash',
    });
    expect(p.status).toBe(201);
    const before = { mail: smtp.received.length, sms: sms.sent.length };
    await bkashPays(t, bkash, p.body.data.checkoutUrl);
    const paid = (await t.http().get(`/api/v1/payments/${p.body.data.id}`).set(asApp(app.LIVE)))
      .body.data;
    expect(paid.status).toBe('SUCCEEDED');
    const queued = (await notifications(app.LIVE, '?kind=RECEIPT')).body.data;
    expect(queued.map((n: { status: string }) => n.status)).toEqual(['QUEUED', 'QUEUED']);
    // LIVE contacts are masked in the API.
    expect(queued.map((n: { to: string }) => n.to).sort()).toEqual([
      '8801******111',
      'r***@example.com',
    ]);
    expect(await worker().tick()).toMatchObject({ sent: 2 });
    const mail = smtp.received[before.mail];
    expect(mail.to).toEqual(['rahim@example.com']);
    expect(mail.parsed.subject).toBe(`Receipt for invoice ${invoice.number} from Padma Traders`);
    expect(mail.parsed.text).toContain('Padma Traders received ৳2,500.00');
    expect(mail.parsed.text).toContain(`Transaction: ${paid.gatewayTxnId}`);
    expect(mail.parsed.text).toContain(`${invoice.payableUrl}/receipt?lang=en`);
    expect(sms.sent[before.sms]).toMatchObject({ msisdn: '8801711111111', sid: sms.sid });
    expect(sms.sent[before.sms].sms).toContain(`Txn ${paid.gatewayTxnId}`);
    expect(smtp.received.length - before.mail).toBe(1);
    expect(sms.sent.length - before.sms).toBe(1);
    const sentRows = (await notifications(app.LIVE, '?status=SENT')).body.data;
    expect(sentRows.map((n: { kind: string; attempts: number }) => [n.kind, n.attempts])).toEqual([
      ['RECEIPT', 1],
      ['RECEIPT', 1],
    ]);
    for (const n of sentRows) expect(typeof n.sentAt).toBe('string');
  });
});
