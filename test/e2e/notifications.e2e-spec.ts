import { SchedulerRegistry } from '@nestjs/schedule';
import { TransactionHost } from '@nestjs-cls/transactional';

import { Metrics } from '../../src/common/metrics/metrics';
import { AppConfig } from '../../src/config/app-config';
import { NotificationWorker } from '../../src/notifications';
import { EmailChannel } from '../../src/notifications/channels/email-channel';
import { SslWirelessSms } from '../../src/notifications/channels/sslwireless-sms';
import { NotificationMetrics } from '../../src/notifications/notification-metrics';
import { SEND_LEASE_MS } from '../../src/notifications/notification-worker';
import { NotificationsRepository } from '../../src/notifications/notifications.repository';
import { SmsCredentialsService } from '../../src/notifications/sms-credentials.service';
import { BkashFake } from '../support/bkash-fake';
import { createPrice, createProduct, MONTHLY } from '../support/catalog-factories';
import { asApp, bearer, createApp, type CreatedApp, superAdminToken } from '../support/factories';
import { withWriteRefused } from '../support/faults';
import { bkashPays, setGateway } from '../support/gateways';
import { createInvoice, createPayment, settle } from '../support/payments';
import { SmtpSink } from '../support/smtp-sink';
import { SslWirelessFake } from '../support/sslwireless-fake';
import { createTestApp, type TestApp } from '../support/test-app';

/**
 * Customer notifications (decisions section 16) against a real SMTP server
 * (nodemailer's smtp-server, on loopback) and a stand-in for SSL Wireless's
 * SMS API: receipts, invoices with their pay link, dunning reminders and
 * trial-ending notices; TEST captures, LIVE sends; retries; no message twice.
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
  async function settings(app: CreatedApp, body: Record<string, unknown>) {
    const res = await t
      .http()
      .patch(`/api/v1/admin/apps/${app.id}/settings`)
      .set(bearer(root))
      .send(body);
    expect(res.status).toBe(200);
  }
  async function pay(app: CreatedApp, invoice: Record<string, any>) {
    const p = await createPayment(t, app.TEST, {
      amountMinor: invoice.totalMinor,
      invoiceId: invoice.id,
      customerReference: invoice.customerReference,
    });
    expect((await settle(t, app.TEST, p.id)).status).toBe(200);
    return p;
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
        // 60 s in production (checked below); short here so a slow server is slow in seconds.
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

  it('TEST: a capture on an invoice is captured as a receipt per channel, and nothing is sent', async () => {
    const app = await createApp(t, 'Padma Traders');
    await withSms(app, 'TEST');
    const invoice = await createInvoice(t, app.TEST, {
      ...contact,
      customerReference: 'rahim',
      customerLanguage: 'en',
      lineItems: [{ description: 'Annual plan', qty: 1, unitAmountMinor: 12_500_000 }],
    });
    const payment = await pay(app, invoice);
    const list = await notifications(app.TEST);
    expect(list.status).toBe(200);
    const receipts = list.body.data;
    expect(receipts.map((n: { channel: string }) => n.channel).sort()).toEqual(['EMAIL', 'SMS']);
    for (const n of receipts) {
      expect(n).toMatchObject({
        kind: 'RECEIPT',
        status: 'CAPTURED',
        invoiceId: invoice.id,
        paymentId: payment.id,
        language: 'en',
      });
      expect(n.text).toContain('৳1,25,000.00');
      expect(n.text).toContain(`${invoice.payableUrl}/receipt?lang=en`);
      expect(n.text).toContain(invoice.number);
    }
    const email = receipts.find((n: { channel: string }) => n.channel === 'EMAIL');
    expect(email.to).toBe('rahim@example.com');
    expect(email.subject).toBe(`Receipt for invoice ${invoice.number} from Padma Traders`);
    expect(receipts.find((n: { channel: string }) => n.channel === 'SMS').to).toBe('8801711111111');
    await worker().tick();
    expect(smtp.received).toHaveLength(0);
    expect(sms.sent).toHaveLength(0);
    const one = await t.http().get(`/api/v1/notifications/${email.id}`).set(asApp(app.TEST));
    expect(one.body.data).toEqual(email);
    expect(
      (await t.http().get(`/api/v1/notifications/${email.id}`).set(asApp(app.LIVE))).status,
    ).toBe(404);
  });

  it('LIVE: an invoice with notifyCustomer reaches the SMTP server and the SMS API, in Bangla', async () => {
    const app = await createApp(t, 'Padma Traders');
    await withSms(app);
    const res = await t
      .http()
      .post('/api/v1/invoices')
      .set(asApp(app.LIVE))
      .send({
        ...contact,
        customerReference: 'rahim-live',
        customerLanguage: 'bn',
        notifyCustomer: true,
        dueDate: '2030-12-06',
        lineItems: [{ description: 'Annual plan', qty: 1, unitAmountMinor: 12_500_000 }],
      });
    expect(res.status).toBe(201);
    const invoice = res.body.data;
    const queued = (await notifications(app.LIVE)).body.data;
    expect(queued.map((n: { status: string }) => n.status)).toEqual(['QUEUED', 'QUEUED']);
    // LIVE contacts are masked in the API.
    expect(queued.map((n: { to: string }) => n.to).sort()).toEqual([
      '8801******111',
      'r***@example.com',
    ]);

    const tick = await worker().tick();
    expect(tick).toMatchObject({ sent: 2, retrying: 0, failed: 0 });
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0];
    expect(mail.to).toEqual(['rahim@example.com']);
    expect(mail.parsed.from?.text).toBe('"Padma Traders" <billing@padma.example>');
    expect(mail.parsed.subject).toBe(`Padma Traders: ইনভয়েস ${invoice.number}, ৳১,২৫,০০০.০০`);
    expect(mail.parsed.text).toContain('৳১,২৫,০০০.০০');
    expect(mail.parsed.text).toContain('৬ ডিসে ২০৩০');
    // The link opens the pay page in the message's language.
    const link = `${invoice.payableUrl}?lang=bn`;
    expect(mail.parsed.text).toContain(link);
    expect(mail.parsed.html).toContain(`href="${link}"`);
    // No tracking: the only link is the pay link, no image but the logo.
    expect(
      String(mail.parsed.html)
        .match(/https?:\/\/[^"'\s<]+/g)
        ?.every((u) => u === link),
    ).toBe(true);

    expect(sms.sent).toHaveLength(1);
    expect(sms.sent[0]).toMatchObject({ msisdn: '8801711111111', sid: sms.sid });
    expect(sms.sent[0].sms).toBe(
      `Padma Traders: ইনভয়েস ${invoice.number}, ৳১,২৫,০০০.০০, শেষ তারিখ ৬ ডিসে ২০৩০। পরিশোধ: ${invoice.payableUrl}?lang=bn`,
    );
    const sent = (await notifications(app.LIVE)).body.data;
    expect(sent.map((n: { status: string; attempts: number }) => [n.status, n.attempts])).toEqual([
      ['SENT', 1],
      ['SENT', 1],
    ]);
    // A second tick sends nothing again.
    await worker().tick();
    expect(smtp.received).toHaveLength(1);
    expect(sms.sent).toHaveLength(1);
    // Operators see it in the metrics: sent per channel, and nothing left queued.
    const metrics = await t.app.get(Metrics).registry.metrics();
    expect(metrics).toMatch(/joma_notifications_total\{channel="EMAIL",status="SENT"\} [1-9]/);
    expect(metrics).toMatch(/joma_notifications_total\{channel="SMS",status="SENT"\} [1-9]/);
    expect(metrics).toMatch(/joma_notifications_queued\{channel="EMAIL"\} 0/);
  });

  it('LIVE: an SMTP 4xx and an SMS 503 are tried again a minute later; a 5xx is FAILED', async () => {
    const app = await createApp(t);
    await withSms(app);
    smtp.refuseNext(1, 451);
    sms.failNext(1);
    const before = { mail: smtp.received.length, sms: sms.sent.length };
    await createInvoice(t, app.LIVE, {
      ...contact,
      customerReference: 'retry',
      notifyCustomer: true,
    });
    expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 2 });
    let rows = (await notifications(app.LIVE)).body.data;
    for (const n of rows) {
      expect(n).toMatchObject({ status: 'QUEUED', attempts: 1 });
      expect(n.lastError).toMatch(/SMTP 451|HTTP 503/);
    }
    // Not before its time.
    expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 0 });
    t.clock.advance(61_000);
    expect(await worker().tick()).toMatchObject({ sent: 2 });
    rows = (await notifications(app.LIVE)).body.data;
    expect(rows.map((n: { status: string; attempts: number }) => [n.status, n.attempts])).toEqual([
      ['SENT', 2],
      ['SENT', 2],
    ]);
    expect(smtp.received.length - before.mail).toBe(1);
    expect(sms.sent.length - before.sms).toBe(1);

    smtp.refuseNext(1, 550);
    await createInvoice(t, app.LIVE, {
      customerReference: 'nouser',
      customerEmail: 'nobody@example.com',
      notifyCustomer: true,
    });
    expect(await worker().tick()).toMatchObject({ failed: 1 });
    const failed = (await notifications(app.LIVE, '?status=FAILED')).body.data;
    expect(failed).toHaveLength(1);
    expect(failed[0].lastError).toContain('SMTP 550');
  });

  it('LIVE: a bKash capture on an invoice sends the receipt, with the transaction id, by email and SMS', async () => {
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
    expect(await worker().tick()).toMatchObject({ sent: 2 });
    const mail = smtp.received[before.mail];
    expect(mail.parsed.subject).toBe(`Receipt for invoice ${invoice.number} from Padma Traders`);
    expect(mail.parsed.text).toContain('Padma Traders received ৳2,500.00');
    expect(mail.parsed.text).toContain(`Transaction: ${paid.gatewayTxnId}`);
    expect(mail.parsed.text).toContain(`${invoice.payableUrl}/receipt?lang=en`);
    expect(sms.sent[before.sms].sms).toContain(`Txn ${paid.gatewayTxnId}`);
    expect(sms.sent.length - before.sms).toBe(1);
  });

  it('a crash between sending and recording never sends the message twice', async () => {
    const app = await createApp(t);
    const before = smtp.received.length;
    await createInvoice(t, app.LIVE, {
      customerReference: 'crash',
      customerEmail: 'crash@example.com',
      notifyCustomer: true,
    });
    // The send goes out, then recording its outcome fails (as if the process died there).
    await withWriteRefused(t.db, 'notifications', 'status', () => worker().tick());
    expect(smtp.received.length - before).toBe(1);
    const [row] = (await notifications(app.LIVE)).body.data;
    expect(row).toMatchObject({ status: 'QUEUED', attempts: 1 });
    // Its claim runs out: the outcome is unknown, so it is FAILED, never sent again.
    await worker().tick();
    t.clock.advance(61_000);
    await worker().tick();
    t.clock.advance(3 * 3600_000);
    await worker().tick();
    expect(smtp.received.length - before).toBe(1);
    const [after] = (await notifications(app.LIVE)).body.data;
    expect(after.status).toBe('FAILED');
    expect(after.lastError).toContain('outcome is unknown');
  });

  it('an SMTP server that answers the message past the timeout gets it once: FAILED, outcome unknown, never re-sent', async () => {
    const app = await createApp(t);
    const before = smtp.received.length;
    smtp.answerDataAfter(4_000); // past the client's timeout (1.5 s here, 60 s in production)
    try {
      await createInvoice(t, app.LIVE, {
        customerReference: 'slow-smtp',
        customerEmail: 'slow@example.com',
        notifyCustomer: true,
      });
      expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 0, failed: 1 });
    } finally {
      smtp.answerDataAfter(0);
    }
    expect(smtp.received.length - before).toBe(1);
    let [row] = (await notifications(app.LIVE)).body.data;
    expect(row).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(row.lastError).toMatch(/outcome unknown/i);
    // Past the retry schedule's first step, the lease and hours later: never sent again.
    for (const ms of [61_000, 16 * 60_000, 3 * 3600_000]) {
      t.clock.advance(ms);
      await worker().tick();
    }
    expect(smtp.received.length - before).toBe(1);
    [row] = (await notifications(app.LIVE)).body.data;
    expect(row).toMatchObject({ status: 'FAILED', attempts: 1 });
  });

  it("the SMTP client's timeouts are 60 s unless configured: a server slower than a few seconds is waited for", async () => {
    const config = new AppConfig({
      port: 0,
      databaseUrl: 'postgres://unused',
      jwtSecret: 'unused',
      encryptionKeyHex: '00'.repeat(32),
      smtpUrl: smtp.url,
    });
    expect(config.smtpTimeoutMs).toBe(60_000);
    const channel = new EmailChannel(config);
    const before = smtp.received.length;
    smtp.answerDataAfter(2_500);
    try {
      await channel.send({ to: 'patient@example.com', subject: 's', text: 't', html: '', id: 'x' });
    } finally {
      smtp.answerDataAfter(0);
      channel.onModuleDestroy();
    }
    expect(smtp.received.length - before).toBe(1);
  });

  it('messages claimed by a worker that stopped before handing them over are sent by the next, within 2 minutes', async () => {
    const app = await createApp(t);
    await withSms(app);
    const before = { mail: smtp.received.length, sms: sms.sent.length };
    for (let i = 0; i < 3; i++)
      await createInvoice(t, app.LIVE, {
        customerReference: `stopped-${i}`,
        customerEmail: `stopped${i}@example.com`,
        customerPhone: `0171222222${i}`,
        notifyCustomer: true,
      });
    // A worker claims the batch, then stops before handing any of it over.
    const claimedAt = t.clock.now();
    const claimed = await t.app
      .get(TransactionHost)
      .withTransaction(() =>
        t.app
          .get(NotificationsRepository)
          .claimDue(claimedAt, new Date(claimedAt.getTime() + SEND_LEASE_MS), 50),
      );
    const mine = (await notifications(app.LIVE)).body.data as { id: number }[];
    expect(mine).toHaveLength(6);
    const claimedIds = new Set(claimed.map((c) => Number(c.id)));
    expect(mine.every((n) => claimedIds.has(n.id))).toBe(true);
    // While its claim holds, nobody else sends them.
    await worker().tick();
    expect(smtp.received.length - before.mail).toBe(0);
    expect(sms.sent.length - before.sms).toBe(0);
    // Once it runs out (well within 2 minutes of the claim), the next run sends every one of them.
    t.clock.advance(SEND_LEASE_MS + 5_000);
    expect(SEND_LEASE_MS + 5_000 + t.app.get(AppConfig).notificationPollIntervalMs).toBeLessThan(
      120_000,
    );
    await worker().tick();
    const rows = (await notifications(app.LIVE)).body.data;
    expect(rows.map((n: { status: string; attempts: number }) => [n.status, n.attempts])).toEqual(
      Array(6).fill(['SENT', 1]),
    );
    expect(smtp.received.length - before.mail).toBe(3);
    expect(sms.sent.length - before.sms).toBe(3);
  });

  it('an SMS whose answer was lost is asked again under its csms_id; "Duplicate CSMS ID" means SENT, one SMS', async () => {
    const app = await createApp(t);
    await withSms(app);
    const before = sms.sent.length;
    sms.loseNextAnswer(1);
    await createInvoice(t, app.LIVE, {
      customerReference: 'lost-answer',
      customerPhone: '01713333333',
      notifyCustomer: true,
    });
    expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 1 });
    expect(sms.sent.length - before).toBe(1);
    let [row] = (await notifications(app.LIVE)).body.data;
    expect(row).toMatchObject({ status: 'QUEUED', attempts: 1 });
    expect(row.lastError).toContain('SSL Wireless');
    t.clock.advance(61_000);
    expect(await worker().tick()).toMatchObject({ sent: 1, failed: 0 });
    [row] = (await notifications(app.LIVE)).body.data;
    expect(row).toMatchObject({ status: 'SENT', attempts: 2, lastError: null });
    expect(sms.sent.length - before).toBe(1);
    // The csms_id: at most 20 letters and digits (SSL Wireless's rule), the notification's own.
    expect(sms.sent[before].csmsId).toBe(`joma${row.id}`);
  });

  it('an SMS whose answer was lost is not asked again once SSL Wireless would take its csms_id anew (another day)', async () => {
    const app = await createApp(t);
    await withSms(app);
    const before = sms.sent.length;
    sms.loseNextAnswer(1);
    await createInvoice(t, app.LIVE, {
      customerReference: 'lost-answer-day',
      customerPhone: '01714444444',
      notifyCustomer: true,
    });
    expect(await worker().tick()).toMatchObject({ retrying: 1 });
    // The workers were down for a day: its id would be new to SSL Wireless again.
    t.clock.advance(25 * 3600_000);
    expect(await worker().tick()).toMatchObject({ sent: 0, failed: 1 });
    const [row] = (await notifications(app.LIVE)).body.data;
    expect(row.status).toBe('FAILED');
    expect(row.lastError).toMatch(/outcome unknown/i);
    expect(sms.sent.length - before).toBe(1);
  });

  it("an email's sender is the merchant the message names, at MAIL_FROM's address", async () => {
    const app = await createApp(t, 'Meghna Foods');
    const before = smtp.received.length;
    await createInvoice(t, app.LIVE, {
      customerReference: 'sender',
      customerEmail: 'sender@example.com',
      notifyCustomer: true,
    });
    expect(await worker().tick()).toMatchObject({ sent: 1 });
    const mail = smtp.received[before];
    expect(mail.parsed.from?.value).toEqual([
      { name: 'Meghna Foods', address: 'billing@padma.example' },
    ]);
    expect(mail.from).toBe('billing@padma.example');
    // The template's company name, when the mode has one, is the merchant.
    const put = await t
      .http()
      .put('/api/v1/invoices/template')
      .set(asApp(app.LIVE))
      .send({ companyName: 'মেঘনা ফুডস' });
    expect(put.status).toBe(200);
    await createInvoice(t, app.LIVE, {
      customerReference: 'sender-bn',
      customerEmail: 'sender@example.com',
      notifyCustomer: true,
    });
    expect(await worker().tick()).toMatchObject({ sent: 1 });
    expect(smtp.received[before + 1].parsed.from?.value).toEqual([
      { name: 'মেঘনা ফুডস', address: 'billing@padma.example' },
    ]);
  });

  it('two workers racing over the same queue send each message once', async () => {
    const app = await createApp(t);
    const before = smtp.received.length;
    for (let i = 0; i < 6; i++)
      await createInvoice(t, app.LIVE, {
        customerReference: `race-${i}`,
        customerEmail: `race${i}@example.com`,
        notifyCustomer: true,
      });
    // A second worker, as on another replica: its own instance over the same database.
    const other = new NotificationWorker(
      t.app.get(NotificationsRepository),
      t.app.get(TransactionHost),
      t.app.get(EmailChannel),
      t.app.get(SmsCredentialsService),
      t.app.get(SslWirelessSms),
      t.app.get(NotificationMetrics),
      t.clock,
      t.app.get(SchedulerRegistry),
      t.app.get(AppConfig),
    );
    const ticks = await Promise.all([worker().tick(), other.tick()]);
    expect(ticks.reduce((n, r) => n + (r?.sent ?? 0), 0)).toBe(6);
    await worker().tick();
    expect(smtp.received.length - before).toBe(6);
    const recipients = smtp.received.slice(before).map((m) => m.to[0]);
    expect(new Set(recipients).size).toBe(6);
  });

  it('LIVE without a channel: SKIPPED with the reason; a foreign number is never texted', async () => {
    const app = await createApp(t);
    await createInvoice(t, app.LIVE, {
      customerReference: 'abroad',
      customerEmail: 'abroad@example.com',
      customerPhone: '+447700900123',
      notifyCustomer: true,
    });
    const rows = (await notifications(app.LIVE)).body.data;
    const byChannel = Object.fromEntries(rows.map((n: { channel: string }) => [n.channel, n]));
    expect(byChannel.SMS).toMatchObject({
      status: 'SKIPPED',
      lastError: 'Not a Bangladeshi mobile number',
    });
    expect(byChannel.EMAIL.status).toBe('QUEUED');
    const app2 = await createApp(t);
    await createInvoice(t, app2.LIVE, {
      ...contact,
      customerReference: 'nosms',
      notifyCustomer: true,
    });
    const sms2 = (await notifications(app2.LIVE, '?kind=INVOICE')).body.data.find(
      (n: { channel: string }) => n.channel === 'SMS',
    );
    expect(sms2).toMatchObject({ status: 'SKIPPED' });
    expect(sms2.lastError).toContain('no sslwireless credentials');
  });

  it('receiptsEnabled false: a capture leaves no message; notifyCustomer false: no invoice message', async () => {
    const app = await createApp(t);
    await settings(app, { receiptsEnabled: false });
    const invoice = await createInvoice(t, app.TEST, { ...contact, customerReference: 'quiet' });
    await pay(app, invoice);
    expect((await notifications(app.TEST)).body.data).toEqual([]);
  });

  describe('subscriptions', () => {
    async function subscribe(app: CreatedApp, price: Record<string, unknown>) {
      const product = await createProduct(t, app);
      const p = await createPrice(t, app, product.id, price);
      const res = await t
        .http()
        .post('/api/v1/purchases')
        .set(asApp(app.TEST))
        .send({ ...contact, customerReference: `sub-${Date.now()}`, priceId: p.id });
      expect(res.status).toBe(201);
      return res.body.data as { subscriptionId: number; invoiceId: number };
    }
    const advance = (app: CreatedApp, id: number) =>
      t
        .http()
        .post(`/api/v1/test-helpers/subscriptions/${id}/advance`)
        .set(asApp(app.TEST))
        .send({});

    it('an overdue subscription invoice gets reminders 1, 3 and 7 days overdue (dunningEnabled)', async () => {
      const app = await createApp(t);
      await settings(app, { defaultLanguage: 'en' });
      const { subscriptionId, invoiceId } = await subscribe(app, MONTHLY);
      for (let i = 0; i < 6; i++) await advance(app, subscriptionId);
      const rows = (await notifications(app.TEST, '?kind=DUNNING_REMINDER')).body.data;
      const emails = rows.filter((n: { channel: string }) => n.channel === 'EMAIL');
      expect(emails).toHaveLength(3);
      for (const n of emails) {
        expect(n).toMatchObject({ status: 'CAPTURED', invoiceId, subscriptionId, language: 'en' });
        expect(n.subject).toContain('is overdue');
        expect(n.text).toContain('৳500.00');
      }
    });

    it('dunningEnabled false: no reminder', async () => {
      const app = await createApp(t);
      await settings(app, { dunningEnabled: false });
      const { subscriptionId } = await subscribe(app, MONTHLY);
      for (let i = 0; i < 6; i++) await advance(app, subscriptionId);
      expect((await notifications(app.TEST, '?kind=DUNNING_REMINDER')).body.data).toEqual([]);
    });

    it('a trial ending is announced with the first invoice and its pay link', async () => {
      const app = await createApp(t);
      const { subscriptionId, invoiceId } = await subscribe(app, { ...MONTHLY, trialDays: 14 });
      await advance(app, subscriptionId);
      const rows = (await notifications(app.TEST, '?kind=TRIAL_ENDING')).body.data;
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({
        invoiceId,
        subscriptionId,
        language: 'bn',
        status: 'CAPTURED',
      });
      const invoice = await t.http().get(`/api/v1/invoices/${invoiceId}`).set(asApp(app.TEST));
      expect(rows[0].text).toContain(invoice.body.data.payableUrl);
    });
  });
});
