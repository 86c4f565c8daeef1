import { SchedulerRegistry } from '@nestjs/schedule';
import { TransactionHost } from '@nestjs-cls/transactional';

import { AppConfig } from '../../src/config/app-config';
import { InvoicesService } from '../../src/invoices';
import { NotificationWorker } from '../../src/notifications';
import { EmailChannel } from '../../src/notifications/channels/email-channel';
import { SslWirelessSms } from '../../src/notifications/channels/sslwireless-sms';
import { NotificationMetrics } from '../../src/notifications/notification-metrics';
import { SEND_LEASE_MS } from '../../src/notifications/notification-worker';
import { NotificationsRepository } from '../../src/notifications/notifications.repository';
import { SmsCredentialsService } from '../../src/notifications/sms-credentials.service';
import { withWriteRefused } from '../support/faults';
import { serviceFixture } from '../support/service-fixture';
import { SmtpSink } from '../support/smtp-sink';
import { SslWirelessFake } from '../support/sslwireless-fake';
import { insertApp } from '../support/test-context';

type Live = { appId: number; mode: 'LIVE' };

/**
 * The notification worker's delivery (decisions section 16) as services on
 * a real database, against a real SMTP server (nodemailer's smtp-server on
 * loopback) and the SSL Wireless stand-in, both real loopback servers
 * (formerly proven over HTTP in test/e2e/notifications.e2e-spec.ts): at
 * most once, whatever happens. Temporary failures (an SMTP 4xx, an SMS
 * 503) are tried again a minute later, an SMTP 5xx is FAILED; a message
 * whose outcome is unknown (recording failed after the send, an answer
 * past the timeout) is FAILED and never sent again; a claim that ran out
 * before the hand-over is taken by the next worker within 2 minutes; an
 * SMS whose answer was lost is asked again under its csms_id only while SSL
 * Wireless would refuse it as a repeat; two workers over one queue send
 * each message once. What each fact calls for is
 * test/medium/notification-decisions.medium-spec.ts.
 */
describe('notification delivery (medium tier: the worker on a real database)', () => {
  let smtp: SmtpSink;
  let sms: SslWirelessFake;
  // Filled in before the fixture's context is built (its beforeAll runs after this file's first one).
  const config: Partial<ConstructorParameters<typeof AppConfig>[0]> = {
    mailFrom: 'Padma Traders <billing@padma.example>',
    // 60 s in production (checked below); short here so a slow server is slow in seconds.
    smtpTimeoutMs: 1_500,
  };
  beforeAll(async () => {
    smtp = await SmtpSink.start();
    sms = await new SslWirelessFake().start();
    config.smtpUrl = smtp.url;
    config.sslwirelessSmsUrl = sms.baseUrl;
  });
  const f = serviceFixture({ appName: 'Notification delivery', config });
  afterAll(async () => {
    await smtp?.close();
    await sms?.close();
  });
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
  /** A new app of its own, in LIVE (what is sent), with SSL Wireless credentials when `withSms`. */
  async function liveApp(withSms = false): Promise<Live> {
    const scope: Live = { appId: await insertApp(f.c.db, `Delivery ${++seq}`), mode: 'LIVE' };
    if (withSms)
      await f
        .get(SmsCredentialsService)
        .set(scope, 'sslwireless', { apiToken: sms.apiToken, sid: sms.sid });
    return scope;
  }
  /** A LIVE invoice sent to its customer (notifyCustomer). */
  const notifiedInvoice = (scope: Live, input: Record<string, unknown>) =>
    f.get(InvoicesService).create(scope, {
      customerReference: `cust-${++seq}`,
      lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 100000 }],
      notifyCustomer: true,
      ...input,
    });
  interface Row {
    id: number;
    channel: 'EMAIL' | 'SMS';
    status: string;
    attempts: number;
    lastError: string | null;
  }
  /** The app's messages (of one status when given), oldest first, as stored. */
  const notificationsOf = async (scope: Live, status?: string) =>
    (
      await f.c.db.query(
        `SELECT id::int AS id, channel, status, attempts, last_error AS "lastError"
           FROM notifications WHERE app_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3)
          ORDER BY id`,
        [scope.appId, scope.mode, status ?? null],
      )
    ).rows as Row[];
  const statuses = async (scope: Live) =>
    (await notificationsOf(scope)).map((n) => [n.status, n.attempts]);

  describe('retries', () => {
    it('an SMTP 4xx and an SMS 503 are tried again a minute later, not before; a 5xx is FAILED', async () => {
      const app = await liveApp(true);
      smtp.refuseNext(1, 451);
      sms.failNext(1);
      const before = { mail: smtp.received.length, sms: sms.sent.length };
      await notifiedInvoice(app, { ...contact, customerReference: 'retry' });
      expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 2 });
      const rows = await notificationsOf(app);
      expect(rows).toHaveLength(2);
      for (const n of rows) {
        expect(n).toMatchObject({ status: 'QUEUED', attempts: 1 });
        expect(n.lastError).toMatch(n.channel === 'EMAIL' ? /SMTP 451/ : /HTTP 503/);
      }
      // Not before its time.
      expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 0 });
      f.c.clock.advance(61_000);
      expect(await worker().tick()).toMatchObject({ sent: 2 });
      expect(await statuses(app)).toEqual([
        ['SENT', 2],
        ['SENT', 2],
      ]);
      expect(smtp.received.length - before.mail).toBe(1);
      expect(sms.sent.length - before.sms).toBe(1);

      smtp.refuseNext(1, 550);
      await notifiedInvoice(app, {
        customerReference: 'nouser',
        customerEmail: 'nobody@example.com',
      });
      expect(await worker().tick()).toMatchObject({ failed: 1 });
      const failed = await notificationsOf(app, 'FAILED');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ channel: 'EMAIL', attempts: 1 });
      expect(failed[0].lastError).toContain('SMTP 550');
      // A FAILED message is not tried again.
      f.c.clock.advance(61_000);
      expect(await worker().tick()).toMatchObject({ sent: 0, failed: 0 });
      expect(smtp.received.length - before.mail).toBe(1);
    });
  });

  describe('at most once', () => {
    it('a crash between sending and recording never sends the message twice', async () => {
      const app = await liveApp();
      const before = smtp.received.length;
      await notifiedInvoice(app, {
        customerReference: 'crash',
        customerEmail: 'crash@example.com',
      });
      // The send goes out, then recording its outcome fails (as if the process died there).
      await withWriteRefused(f.c.db, 'notifications', 'status', () => worker().tick());
      expect(smtp.received.length - before).toBe(1);
      let [row] = await notificationsOf(app);
      expect(row).toMatchObject({ status: 'QUEUED', attempts: 1 });
      // Its claim runs out: the outcome is unknown, so it is FAILED, never sent again.
      await worker().tick();
      f.c.clock.advance(61_000);
      await worker().tick();
      f.c.clock.advance(3 * 3600_000);
      await worker().tick();
      expect(smtp.received.length - before).toBe(1);
      [row] = await notificationsOf(app);
      expect(row.status).toBe('FAILED');
      expect(row.lastError).toContain('outcome is unknown');
    });

    it('an SMTP server that answers the message past the timeout gets it once: FAILED, outcome unknown, never re-sent', async () => {
      const app = await liveApp();
      const before = smtp.received.length;
      smtp.answerDataAfter(4_000); // past the client's timeout (1.5 s here, 60 s in production)
      try {
        await notifiedInvoice(app, {
          customerReference: 'slow-smtp',
          customerEmail: 'slow@example.com',
        });
        expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 0, failed: 1 });
      } finally {
        smtp.answerDataAfter(0);
      }
      expect(smtp.received.length - before).toBe(1);
      let [row] = await notificationsOf(app);
      expect(row).toMatchObject({ status: 'FAILED', attempts: 1 });
      expect(row.lastError).toMatch(/outcome unknown/i);
      // Past the retry schedule's first step, the lease and hours later: never sent again.
      for (const ms of [61_000, 16 * 60_000, 3 * 3600_000]) {
        f.c.clock.advance(ms);
        await worker().tick();
      }
      expect(smtp.received.length - before).toBe(1);
      [row] = await notificationsOf(app);
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
        await channel.send({
          to: 'patient@example.com',
          subject: 's',
          text: 't',
          html: '',
          id: 'x',
        });
      } finally {
        smtp.answerDataAfter(0);
        channel.onModuleDestroy();
      }
      expect(smtp.received.length - before).toBe(1);
    });

    it('messages claimed by a worker that stopped before handing them over are sent by the next, within 2 minutes', async () => {
      const app = await liveApp(true);
      const before = { mail: smtp.received.length, sms: sms.sent.length };
      for (let i = 0; i < 3; i++)
        await notifiedInvoice(app, {
          customerReference: `stopped-${i}`,
          customerEmail: `stopped${i}@example.com`,
          customerPhone: `+880171222222${i}`,
        });
      // A worker claims the batch, then stops before handing any of it over.
      const claimedAt = f.c.clock.now();
      const claimed = await f
        .get(TransactionHost)
        .withTransaction(() =>
          f
            .get(NotificationsRepository)
            .claimDue(claimedAt, new Date(claimedAt.getTime() + SEND_LEASE_MS), 50),
        );
      const mine = await notificationsOf(app);
      expect(mine).toHaveLength(6);
      const claimedIds = new Set(claimed.map((c) => Number(c.id)));
      expect(mine.every((n) => claimedIds.has(n.id))).toBe(true);
      // While its claim holds, nobody else sends them.
      expect(await worker().tick()).toMatchObject({ sent: 0 });
      expect(smtp.received.length - before.mail).toBe(0);
      expect(sms.sent.length - before.sms).toBe(0);
      // Once it runs out (well within 2 minutes of the claim), the next run sends every one of them.
      f.c.clock.advance(SEND_LEASE_MS + 5_000);
      expect(SEND_LEASE_MS + 5_000 + f.get(AppConfig).notificationPollIntervalMs).toBeLessThan(
        120_000,
      );
      expect(await worker().tick()).toMatchObject({ sent: 6 });
      expect(await statuses(app)).toEqual(Array(6).fill(['SENT', 1]));
      expect(smtp.received.length - before.mail).toBe(3);
      expect(sms.sent.length - before.sms).toBe(3);
    });

    it('an SMS whose answer was lost is asked again under its csms_id; "Duplicate CSMS ID" means SENT, one SMS', async () => {
      const app = await liveApp(true);
      const before = sms.sent.length;
      sms.loseNextAnswer(1);
      await notifiedInvoice(app, {
        customerReference: 'lost-answer',
        customerPhone: '+8801713333333',
      });
      expect(await worker().tick()).toMatchObject({ sent: 0, retrying: 1 });
      expect(sms.sent.length - before).toBe(1);
      let [row] = await notificationsOf(app);
      expect(row).toMatchObject({ status: 'QUEUED', attempts: 1 });
      expect(row.lastError).toContain('SSL Wireless');
      f.c.clock.advance(61_000);
      expect(await worker().tick()).toMatchObject({ sent: 1, failed: 0 });
      [row] = await notificationsOf(app);
      expect(row).toMatchObject({ status: 'SENT', attempts: 2, lastError: null });
      expect(sms.sent.length - before).toBe(1);
      // The csms_id: at most 20 letters and digits (SSL Wireless's rule), the notification's own.
      expect(sms.sent[before].csmsId).toBe(`joma${row.id}`);
    });

    it('an SMS whose answer was lost is not asked again once SSL Wireless would take its csms_id anew (another day)', async () => {
      const app = await liveApp(true);
      const before = sms.sent.length;
      sms.loseNextAnswer(1);
      await notifiedInvoice(app, {
        customerReference: 'lost-answer-day',
        customerPhone: '+8801714444444',
      });
      expect(await worker().tick()).toMatchObject({ retrying: 1 });
      // The workers were down for a day: its id would be new to SSL Wireless again.
      f.c.clock.advance(25 * 3600_000);
      expect(await worker().tick()).toMatchObject({ sent: 0, failed: 1 });
      const [row] = await notificationsOf(app);
      expect(row.status).toBe('FAILED');
      expect(row.lastError).toMatch(/outcome unknown/i);
      expect(sms.sent.length - before).toBe(1);
    });

    it('two workers racing over the same queue send each message once', async () => {
      const app = await liveApp();
      const before = smtp.received.length;
      for (let i = 0; i < 6; i++)
        await notifiedInvoice(app, {
          customerReference: `race-${i}`,
          customerEmail: `race${i}@example.com`,
        });
      // A second worker, as on another replica: its own instance over the same database.
      const other = new NotificationWorker(
        f.get(NotificationsRepository),
        f.get(TransactionHost),
        f.get(EmailChannel),
        f.get(SmsCredentialsService),
        f.get(SslWirelessSms),
        f.get(NotificationMetrics),
        f.c.clock,
        f.get(SchedulerRegistry),
        f.get(AppConfig),
      );
      const ticks = await Promise.all([worker().tick(), other.tick()]);
      expect(ticks.reduce((n, r) => n + (r?.sent ?? 0), 0)).toBe(6);
      expect(await worker().tick()).toMatchObject({ sent: 0 });
      expect(smtp.received.length - before).toBe(6);
      const recipients = smtp.received.slice(before).map((m) => m.to[0]);
      expect(new Set(recipients).size).toBe(6);
      expect(await statuses(app)).toEqual(Array(6).fill(['SENT', 1]));
    });
  });
});
