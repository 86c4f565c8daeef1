import { AppsService } from '../../src/apps';
import { InvoicePaymentsService } from '../../src/billing';
import { type CreatePriceInput, PricesService } from '../../src/catalog/prices.service';
import { ProductsService } from '../../src/catalog/products.service';
import { Metrics } from '../../src/common/metrics/metrics';
import type { AppConfig } from '../../src/config/app-config';
import { InvoicesService, InvoiceTemplatesService } from '../../src/invoices';
import { NotificationWorker } from '../../src/notifications';
import { NotificationMetrics } from '../../src/notifications/notification-metrics';
import { SmsCredentialsService } from '../../src/notifications/sms-credentials.service';
import { PurchasesService } from '../../src/purchases';
import { SubscriptionsService } from '../../src/subscriptions';
import { TestHelpersService } from '../../src/test-helpers/test-helpers.service';
import { serviceFixture } from '../support/service-fixture';
import { SmtpSink } from '../support/smtp-sink';
import { SslWirelessFake } from '../support/sslwireless-fake';
import { insertApp } from '../support/test-context';

type Scope = { appId: number; mode: 'TEST' | 'LIVE' };

const DAY_MS = 86_400_000;

const MONTHLY: CreatePriceInput = {
  type: 'RECURRING',
  amountMinor: 50000,
  interval: 'MONTH',
  intervalCount: 1,
};

/**
 * Which message to a payer each fact calls for (decisions section 16), as
 * services on a real database, with the real SMTP server (nodemailer's
 * smtp-server on loopback) and the SSL Wireless stand-in behind the worker
 * (formerly proven over HTTP in test/e2e/notifications.e2e-spec.ts, which
 * keeps the contract of GET /notifications and one LIVE capture through a
 * gateway reaching both sinks): a receipt per capture on an invoice, the
 * invoice with its pay link when asked for, dunning reminders 1, 3 and 7
 * days overdue, the trial-ending notice; one row per channel, CAPTURED in
 * TEST (never sent), QUEUED in LIVE, SKIPPED with the reason when the
 * channel cannot carry it; the switches that leave no message; the
 * message's language; the email's sender. The worker's at-most-once
 * delivery is test/medium/notification-delivery.medium-spec.ts.
 */
describe('notification decisions (medium tier: services on a real database)', () => {
  let smtp: SmtpSink;
  let sms: SslWirelessFake;
  // Filled in before the fixture's context is built (its beforeAll runs after this file's first one).
  const config: Partial<ConstructorParameters<typeof AppConfig>[0]> = {
    mailFrom: 'Padma Traders <billing@padma.example>',
    smtpTimeoutMs: 1_500,
  };
  beforeAll(async () => {
    smtp = await SmtpSink.start();
    sms = await new SslWirelessFake().start();
    config.smtpUrl = smtp.url;
    config.sslwirelessSmsUrl = sms.baseUrl;
  });
  const f = serviceFixture({ balancedLedger: true, appName: 'Notifications', config });
  afterAll(async () => {
    await smtp?.close();
    await sms?.close();
  });
  // Rows are stamped by the app's clock: tests that move it put it back.
  afterEach(() => f.c.clock.reset());
  // One worker queue for the file: a test that failed half-way leaves the next nothing to send.
  afterEach(() =>
    f.c.db.query(
      `UPDATE notifications SET status = 'FAILED', last_error = 'left QUEUED by a failed test'
        WHERE status = 'QUEUED'`,
    ),
  );

  let seq = 0;
  const worker = () => f.get(NotificationWorker);
  const contact = {
    customerName: 'Rahim Uddin',
    customerEmail: 'rahim@example.com',
    customerPhone: '+8801711111111', // as stored (the API takes 01711111111 too)
  };
  /** A new app of its own (named as its messages name the merchant), both modes. */
  async function newApp(name = `Merchant ${++seq}`) {
    const appId = await insertApp(f.c.db, name);
    return {
      appId,
      TEST: { appId, mode: 'TEST' } as Scope,
      LIVE: { appId, mode: 'LIVE' } as Scope,
    };
  }
  const withSms = (scope: Scope) =>
    f
      .get(SmsCredentialsService)
      .set(scope, 'sslwireless', { apiToken: sms.apiToken, sid: sms.sid });
  const newInvoice = (scope: Scope, input: Record<string, unknown>) =>
    f.get(InvoicesService).create(scope, {
      customerReference: `cust-${++seq}`,
      lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 100000 }],
      ...input,
    });
  /** A payment of the invoice's total, captured on the sandbox. */
  async function pay(scope: Scope, invoiceId: number, totalMinor: number, ref: string) {
    const p = await f
      .get(InvoicePaymentsService)
      .createPayment(scope, { amountMinor: totalMinor, invoiceId, customerReference: ref });
    expect((await f.get(TestHelpersService).settlePayment(scope, p.id, 'succeeded')).status).toBe(
      'SUCCEEDED',
    );
    return p;
  }
  interface Row {
    id: number;
    channel: 'EMAIL' | 'SMS';
    kind: string;
    to: string;
    status: string;
    invoiceId: number | null;
    paymentId: number | null;
    subscriptionId: number | null;
    language: string;
    subject: string | null;
    text: string;
    html: string | null;
    senderName: string | null;
    attempts: number;
    lastError: string | null;
    factKey: string;
  }
  /** The messages of one app and mode (optionally of one kind), oldest first, as stored. */
  const notificationsOf = async (scope: Scope, kind?: string) =>
    (
      await f.c.db.query(
        `SELECT id::int AS id, channel, kind, recipient AS "to", status,
                invoice_id::int AS "invoiceId", payment_id::int AS "paymentId",
                subscription_id::int AS "subscriptionId", language, subject, body_text AS text,
                body_html AS html, sender_name AS "senderName", attempts,
                last_error AS "lastError", fact_key AS "factKey"
           FROM notifications WHERE app_id = $1 AND mode = $2 AND ($3::text IS NULL OR kind = $3)
          ORDER BY id`,
        [scope.appId, scope.mode, kind ?? null],
      )
    ).rows as Row[];
  const byChannel = (rows: Row[]) =>
    Object.fromEntries(rows.map((n) => [n.channel, n])) as Record<'EMAIL' | 'SMS', Row>;
  /** joma_notifications_total{channel, status} as the registry holds it now. */
  const counted = async (channel: string, status: string) =>
    (await f.get(NotificationMetrics).messages.get()).values.find(
      (v) => v.labels.channel === channel && v.labels.status === status,
    )?.value ?? 0;

  describe('receipts and invoices', () => {
    it('TEST: a capture on an invoice is captured as a receipt per channel, in full, and nothing is sent', async () => {
      const app = await newApp('Padma Traders');
      await withSms(app.TEST);
      const { invoice, payableUrl } = await newInvoice(app.TEST, {
        ...contact,
        customerReference: 'rahim',
        customerLanguage: 'en',
        lineItems: [{ description: 'Annual plan', qty: 1, unitAmountMinor: 12_500_000 }],
      });
      const payment = await pay(app.TEST, invoice.id, 12_500_000, 'rahim');
      const receipts = await notificationsOf(app.TEST);
      expect(receipts.map((n) => n.channel).sort()).toEqual(['EMAIL', 'SMS']);
      for (const n of receipts) {
        expect(n).toMatchObject({
          kind: 'RECEIPT',
          status: 'CAPTURED',
          invoiceId: invoice.id,
          paymentId: payment.id,
          language: 'en',
          factKey: `receipt:payment:${payment.id}`,
        });
        expect(n.text).toContain('৳1,25,000.00');
        expect(n.text).toContain(`${payableUrl}/receipt?lang=en`);
        expect(n.text).toContain(invoice.number);
      }
      const { EMAIL: email, SMS: text } = byChannel(receipts);
      expect(email.to).toBe('rahim@example.com');
      expect(email.subject).toBe(`Receipt for invoice ${invoice.number} from Padma Traders`);
      expect(text.to).toBe('8801711111111');
      // The worker leaves CAPTURED messages alone: the sinks get nothing.
      const before = { mail: smtp.received.length, sms: sms.sent.length };
      expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 0, failed: 0 });
      expect(smtp.received.length - before.mail).toBe(0);
      expect(sms.sent.length - before.sms).toBe(0);
      expect((await notificationsOf(app.TEST)).map((n) => [n.status, n.attempts])).toEqual([
        ['CAPTURED', 0],
        ['CAPTURED', 0],
      ]);
    });

    it('LIVE: an invoice with notifyCustomer reaches the SMTP server and the SMS API, in Bangla, once', async () => {
      const app = await newApp('Padma Traders');
      await withSms(app.LIVE);
      const metric = {
        email: await counted('EMAIL', 'SENT'),
        sms: await counted('SMS', 'SENT'),
      };
      const { invoice, payableUrl } = await newInvoice(app.LIVE, {
        ...contact,
        customerReference: 'rahim-live',
        customerLanguage: 'bn',
        notifyCustomer: true,
        dueDate: '2030-12-06',
        lineItems: [{ description: 'Annual plan', qty: 1, unitAmountMinor: 12_500_000 }],
      });
      const queued = await notificationsOf(app.LIVE);
      expect(queued.map((n) => [n.kind, n.status])).toEqual([
        ['INVOICE', 'QUEUED'],
        ['INVOICE', 'QUEUED'],
      ]);
      expect(queued.map((n) => n.to).sort()).toEqual(['8801711111111', 'rahim@example.com']);

      const before = { mail: smtp.received.length, sms: sms.sent.length };
      expect(await worker().tick()).toMatchObject({ sent: 2, retrying: 0, failed: 0 });
      expect(smtp.received.length - before.mail).toBe(1);
      const mail = smtp.received[before.mail];
      expect(mail.to).toEqual(['rahim@example.com']);
      expect(mail.parsed.from?.text).toBe('"Padma Traders" <billing@padma.example>');
      expect(mail.parsed.subject).toBe(`Padma Traders: ইনভয়েস ${invoice.number}, ৳১,২৫,০০০.০০`);
      expect(mail.parsed.text).toContain('৳১,২৫,০০০.০০');
      expect(mail.parsed.text).toContain('৬ ডিসে ২০৩০');
      // The link opens the pay page in the message's language.
      const link = `${payableUrl}?lang=bn`;
      expect(mail.parsed.text).toContain(link);
      expect(mail.parsed.html).toContain(`href="${link}"`);
      // No tracking: the only link is the pay link, no image but the logo.
      const urls = String(mail.parsed.html).match(/https?:\/\/[^"'\s<]+/g);
      expect(urls?.length).toBeGreaterThan(0);
      expect(urls?.every((u) => u === link)).toBe(true);

      expect(sms.sent.length - before.sms).toBe(1);
      expect(sms.sent[before.sms]).toMatchObject({ msisdn: '8801711111111', sid: sms.sid });
      expect(sms.sent[before.sms].sms).toBe(
        `Padma Traders: ইনভয়েস ${invoice.number}, ৳১,২৫,০০০.০০, শেষ তারিখ ৬ ডিসে ২০৩০। পরিশোধ: ${payableUrl}?lang=bn`,
      );
      expect((await notificationsOf(app.LIVE)).map((n) => [n.status, n.attempts])).toEqual([
        ['SENT', 1],
        ['SENT', 1],
      ]);
      // A second tick sends nothing again.
      expect(await worker().tick()).toMatchObject({ sent: 0 });
      expect(smtp.received.length - before.mail).toBe(1);
      expect(sms.sent.length - before.sms).toBe(1);
      // Operators see it in the metrics: sent per channel, and nothing left queued.
      expect(await counted('EMAIL', 'SENT')).toBe(metric.email + 1);
      expect(await counted('SMS', 'SENT')).toBe(metric.sms + 1);
      const metrics = await f.get(Metrics).registry.metrics();
      expect(metrics).toMatch(/joma_notifications_total\{channel="EMAIL",status="SENT"\} [1-9]/);
      expect(metrics).toMatch(/joma_notifications_total\{channel="SMS",status="SENT"\} [1-9]/);
      expect(metrics).toMatch(/joma_notifications_queued\{channel="EMAIL"\} 0/);
    });

    it("an email's sender is the merchant the message names, at MAIL_FROM's address; the template's company name when the mode has one", async () => {
      const app = await newApp('Meghna Foods');
      const before = smtp.received.length;
      await newInvoice(app.LIVE, {
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
      await f.get(InvoiceTemplatesService).put(app.LIVE, { companyName: 'মেঘনা ফুডস' });
      await newInvoice(app.LIVE, {
        customerReference: 'sender-bn',
        customerEmail: 'sender@example.com',
        notifyCustomer: true,
      });
      expect(await worker().tick()).toMatchObject({ sent: 1 });
      expect(smtp.received.length - before).toBe(2);
      expect(smtp.received[before + 1].parsed.from?.value).toEqual([
        { name: 'মেঘনা ফুডস', address: 'billing@padma.example' },
      ]);
      expect((await notificationsOf(app.LIVE)).map((n) => n.senderName)).toEqual([
        'Meghna Foods',
        'মেঘনা ফুডস',
      ]);
    });

    it('LIVE without a channel: SKIPPED with the reason; a foreign number is never texted', async () => {
      const app = await newApp();
      await withSms(app.LIVE); // even with SMS credentials
      await newInvoice(app.LIVE, {
        customerReference: 'abroad',
        customerEmail: 'abroad@example.com',
        customerPhone: '+447700900123',
        notifyCustomer: true,
      });
      const abroad = byChannel(await notificationsOf(app.LIVE));
      expect(abroad.SMS).toMatchObject({
        status: 'SKIPPED',
        lastError: 'Not a Bangladeshi mobile number',
      });
      expect(abroad.EMAIL.status).toBe('QUEUED');
      const app2 = await newApp();
      await newInvoice(app2.LIVE, { ...contact, customerReference: 'nosms', notifyCustomer: true });
      const nosms = byChannel(await notificationsOf(app2.LIVE, 'INVOICE'));
      expect(nosms.SMS).toMatchObject({ status: 'SKIPPED' });
      expect(nosms.SMS.lastError).toContain('no sslwireless credentials');
      expect(nosms.EMAIL.status).toBe('QUEUED');
      // The worker sends the two emails, and no SMS at all.
      const before = { mail: smtp.received.length, sms: sms.sent.length };
      expect(await worker().tick()).toMatchObject({ sent: 2, failed: 0 });
      expect(smtp.received.length - before.mail).toBe(2);
      expect(sms.sent.length - before.sms).toBe(0);
      expect(byChannel(await notificationsOf(app.LIVE)).SMS.status).toBe('SKIPPED');
      expect(byChannel(await notificationsOf(app2.LIVE)).SMS.status).toBe('SKIPPED');
    });

    it('receiptsEnabled false: a capture on an invoice leaves no message', async () => {
      const app = await newApp();
      await f.get(AppsService).updateSettings(app.appId, { receiptsEnabled: false });
      const { invoice } = await newInvoice(app.TEST, { ...contact, customerReference: 'quiet' });
      await pay(app.TEST, invoice.id, invoice.totalMinor, 'quiet');
      expect((await f.get(InvoicesService).get(app.TEST, invoice.id)).invoice.status).toBe('PAID');
      expect(await notificationsOf(app.TEST)).toEqual([]);
    });

    it('notifyCustomer false or left out: no invoice message (true: one per channel)', async () => {
      const app = await newApp();
      await newInvoice(app.TEST, { ...contact, customerReference: 'unasked' });
      await newInvoice(app.TEST, {
        ...contact,
        customerReference: 'declined',
        notifyCustomer: false,
      });
      expect(await notificationsOf(app.TEST)).toEqual([]);
      const { invoice } = await newInvoice(app.TEST, {
        ...contact,
        customerReference: 'asked',
        notifyCustomer: true,
      });
      expect((await notificationsOf(app.TEST)).map((n) => [n.kind, n.invoiceId])).toEqual([
        ['INVOICE', invoice.id],
        ['INVOICE', invoice.id],
      ]);
    });
  });

  describe('subscriptions', () => {
    async function subscribe(scope: Scope, price: Partial<CreatePriceInput> = {}) {
      const { product } = await f.get(ProductsService).create(scope, { name: `Plan ${++seq}` });
      const p = await f.get(PricesService).create(scope, product.id, { ...MONTHLY, ...price });
      const bought = await f
        .get(PurchasesService)
        .purchase(scope, { ...contact, customerReference: `sub-${++seq}`, priceId: p.id });
      return { subscriptionId: bought.subscriptionId!, invoiceId: bought.invoiceId };
    }
    const advance = (scope: Scope, id: number) => f.get(SubscriptionsService).advance(scope, id);

    it('an overdue subscription invoice gets reminders 1, 3 and 7 days overdue (dunningEnabled), none after', async () => {
      const app = await newApp();
      await f.get(AppsService).updateSettings(app.appId, { defaultLanguage: 'en' });
      const { subscriptionId, invoiceId } = await subscribe(app.TEST);
      const { dueDate } = (await f.get(InvoicesService).get(app.TEST, invoiceId)).invoice;
      // Overdue from the start of the Dhaka day after the due date.
      const overdueSince = Date.parse(`${dueDate}T00:00:00+06:00`) + DAY_MS;
      const emailsOf = async () =>
        (await notificationsOf(app.TEST, 'DUNNING_REMINDER')).filter((n) => n.channel === 'EMAIL');
      // Each advance moves the subscription to its next moment: a reminder, then the next.
      const seen: [number, number][] = [];
      for (let i = 0; i < 3; i++) {
        const { subscription: s } = await advance(app.TEST, subscriptionId);
        expect(s.status).toBe('INCOMPLETE');
        const daysOverdue = (f.c.clock.nowMs() + s.clockOffsetMs - overdueSince) / DAY_MS;
        seen.push([Math.round(daysOverdue), (await emailsOf()).length]);
      }
      expect(seen).toEqual([
        [1, 1],
        [3, 2],
        [7, 3],
      ]);
      // The next moment is the end of dunning (14 days): cancelled, and no fourth reminder.
      expect((await advance(app.TEST, subscriptionId)).subscription.status).toBe('CANCELED');
      const emails = await emailsOf();
      expect(emails).toHaveLength(3);
      expect(emails.map((n) => n.factKey)).toEqual(
        [1, 2, 3].map((n) => `dunning:invoice:${invoiceId}:${n}`),
      );
      for (const n of emails) {
        expect(n).toMatchObject({ status: 'CAPTURED', invoiceId, subscriptionId, language: 'en' });
        expect(n.subject).toContain('is overdue');
        expect(n.text).toContain('৳500.00');
      }
      // And one SMS with each.
      expect(await notificationsOf(app.TEST, 'DUNNING_REMINDER')).toHaveLength(6);
    });

    it('dunningEnabled false: no reminder, all the way to the end of dunning', async () => {
      const app = await newApp();
      await f.get(AppsService).updateSettings(app.appId, { dunningEnabled: false });
      const { subscriptionId } = await subscribe(app.TEST);
      let status = '';
      for (let i = 0; i < 4; i++)
        status = (await advance(app.TEST, subscriptionId)).subscription.status;
      expect(status).toBe('CANCELED');
      expect(await notificationsOf(app.TEST, 'DUNNING_REMINDER')).toEqual([]);
    });

    it('a trial ending is announced with the first invoice and its pay link', async () => {
      const app = await newApp();
      const { subscriptionId, invoiceId } = await subscribe(app.TEST, { trialDays: 14 });
      await advance(app.TEST, subscriptionId);
      const rows = await notificationsOf(app.TEST, 'TRIAL_ENDING');
      expect(rows.map((n) => n.channel)).toEqual(['EMAIL', 'SMS']);
      const { payableUrl } = await f.get(InvoicesService).get(app.TEST, invoiceId);
      for (const n of rows) {
        expect(n).toMatchObject({ invoiceId, subscriptionId, language: 'bn', status: 'CAPTURED' });
        expect(n.text).toContain(payableUrl);
      }
    });
  });
});
