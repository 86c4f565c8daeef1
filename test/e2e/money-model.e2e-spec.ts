import fc from 'fast-check';

import { AppConfig } from '../../src/config/app-config';
import { NotificationWorker } from '../../src/notifications';
import { HANDED_OVER_LEASE_MS } from '../../src/notifications/notification-worker';
import { OUTCOME_UNKNOWN } from '../../src/notifications/notifications.repository';
import { RefundsService } from '../../src/refunds';
import { BkashFake } from '../support/bkash-fake';
import { createPrice, createProduct, MONTHLY } from '../support/catalog-factories';
import { ChildReplica } from '../support/child-replica';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { withWriteHeld, withWriteRefused } from '../support/faults';
import { bkashPaymentId, bkashReturn, setGateway } from '../support/gateways';
import { expectBalancedLedger } from '../support/ledger';
import { moneyViolations, NO_MONEY_VIOLATIONS } from '../support/money-invariants';
import {
  anotherNotificationWorker,
  killNotificationWorkerMidBatch,
  type WorkerDeath,
} from '../support/notification-workers';
import { SmtpSink } from '../support/smtp-sink';
import { SslWirelessFake } from '../support/sslwireless-fake';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The whole service as a state machine (issue 43): fast-check drives the
 * real HTTP app with random sequences of invoices, pay-page checkouts, API
 * payments (some sent twice under one Idempotency-Key), sandbox settlements
 * in any order (late, repeated, refused), expiries, cancels and voids,
 * refunds (whole, split, raced, above and below the approval threshold,
 * approved, rejected, and stopped by a 5xx between their steps then retried
 * under the same key), payments interrupted the same way between their
 * steps and retried, the refund re-check, settlement imports and
 * reconciliation runs, and subscriptions advanced through their schedule.
 * After every step it checks the money invariants against the database:
 *  - an invoice counts exactly the non-excess part of its captures, never
 *    more than its total, nothing once VOID;
 *  - every captured taka is counted on an invoice or refunded as excess;
 *  - refunds never exceed their capture; `amountRefundedMinor` is the sum
 *    of the succeeded ones;
 *  - refunds sent without approval never add up past the threshold;
 *  - the ledger balances and agrees with payments, refunds and settlements;
 *  - after the re-check, no refund free to go is still PENDING;
 *  - one Idempotency-Key is one record; each fact's event fired once;
 *  - no answer is a 5xx except the ones the test injected.
 * A fixed seed keeps `npm test` deterministic and fast (about 10 s);
 * `npm run test:model` runs 100 sequences from a random seed, printed so a
 * failure can be replayed (MODEL_SEED=<seed> MODEL_RUNS=<n>). Faults: a 5xx
 * between a refund's steps (a PostgreSQL trigger refuses the write of the
 * step after the first commit), raced and repeated requests, and a second
 * replica (the real entry point in a child process on the same database)
 * killed with SIGKILL in the middle of a refund or a payment, exactly
 * between its steps or wherever it got after a few milliseconds, the client
 * then retrying on the surviving replica under the same key or giving up.
 *
 * Customer messages (decisions 16 as amended, "at most once"): beside its
 * TEST money, each run's app invoices payers in LIVE (email and SMS, some
 * invoices sent to them with `notifyCustomer`) and they pay with bKash (its
 * simulator), coming back once or twice at once, or never (the merchant
 * then cancels the payment or voids the invoice): receipts and invoice
 * messages go through a real SMTP server (test/support/smtp-sink.ts) and
 * SSL Wireless's stand-in (test/support/sslwireless-fake.ts) when the
 * workers deliver. The SMTP server answers the next message slowly (30 s:
 * waited for), late (90 s, past the client's 60 s timeouts; the model's
 * SMTP conversation runs 60 times faster than production's, timeouts and
 * answers alike) or never (it keeps the message and drops the
 * connection), or refuses it (451, 550); SSL Wireless takes an SMS and
 * loses its answer, or answers 503; two replicas' workers race; the clock
 * jumps a minute (the first retry), past the hand-over lease, or past the
 * next midnight in UTC or Dhaka (where SSL Wireless takes a `csms_id` anew);
 * and a worker is killed mid-batch, before a hand-over, after it, or after
 * the provider took the message. The invariants count what the sinks
 * received:
 *  - at most one message per (fact, channel), nor the same text twice to a
 *    payer; nothing at all from TEST;
 *  - SENT only if the provider got it; what it got is SENT, FAILED with
 *    "outcome unknown", or still in the hands of its sender (the hand-over
 *    lease) or of an SMS re-ask under its `csms_id`; never failed otherwise;
 *  - an email whose answer came late or never is FAILED, outcome unknown
 *    (never re-sent); one answered within 60 s is SENT (the 60 s timeouts);
 *  - a message handed over with no outcome is FAILED, outcome unknown, by the
 *    first delivery past its lease;
 *  - a message a killed worker claimed and never handed over is handed to
 *    its provider by another worker within 2 minutes of the claim (whatever
 *    the provider then answers), never failed untried;
 *  - one receipt per channel for each LIVE capture an invoice counted;
 *  - by the end of the retry schedule every message is SENT or FAILED.
 * The message commands are drawn after the money commands and placed among
 * them, so a seed's money sequence is what it was without them; the time
 * they move the clock on is given back at the end of each run.
 */
const RUNS = Number(process.env.MODEL_RUNS ?? 10);
/**
 * Seed 21 with 10 runs finds each of the bugs issue 43 reported when its fix
 * is reverted (split approval, the excess never refunded, a refund stuck
 * PENDING after a 5xx or a killed replica, two refunds for one
 * Idempotency-Key); checked again when the killed replica joined the model.
 */
const SEED =
  process.env.MODEL_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.MODEL_SEED ?? 21);
if (process.env.MODEL_SEED === 'random') console.log(`money model: MODEL_SEED=${SEED}`);
const MAX_COMMANDS = Number(process.env.MODEL_COMMANDS ?? 60);
/** Customer-message commands (LIVE invoices and payments, providers' answers, deliveries, killed workers) per run. */
const MAX_MESSAGE_COMMANDS = Number(process.env.MODEL_MESSAGE_COMMANDS ?? 20);
/**
 * The SMTP conversation runs this many times faster than in production: the
 * app's SMTP timeouts are production's (60 s, decisions 16 as amended)
 * divided by it, and so are the SMTP server's slow and late answers, so a
 * 90-second answer costs the run 1.5 s, not 90.
 */
const SMTP_SPEEDUP = 60;
const PRODUCTION_SMTP_TIMEOUT_MS = new AppConfig({
  port: 0,
  databaseUrl: 'postgres://unused',
  jwtSecret: 'unused',
  encryptionKeyHex: '00'.repeat(32),
}).smtpTimeoutMs;
/** A production duration on the model's SMTP time. */
const smtpMs = (productionMs: number) => productionMs / SMTP_SPEEDUP;
/** How late an SMTP server may answer and still be waited for (decisions 16 as amended). */
const SMTP_WAITED_FOR_MS = 60_000;

interface Model {
  invoices: number;
  payments: number;
  refunds: number;
  subscriptions: number;
  /** LIVE invoices to payers reachable by email and SMS. */
  live: number;
}

interface Real {
  t: TestApp;
  app: CreatedApp;
  root: Record<string, string>;
  threshold: number;
  invoices: { id: number; path: string; ref: string }[];
  payments: number[];
  refunds: number[];
  subscriptions: number[];
  /** LIVE invoices (their payers get messages). */
  live: number[];
  priceId: number;
  seq: number;
}

const ok = (status: number, allowed: number[], what: string, body: unknown) => {
  if (!allowed.includes(status))
    throw new Error(`${what}: status ${status} not in ${allowed}: ${JSON.stringify(body)}`);
};

describe('money model: the service under random operation sequences (fast-check)', () => {
  let t: TestApp;
  let replica: ChildReplica;
  let smtp: SmtpSink;
  let sms: SslWirelessFake;
  let bkash: BkashFake;
  /** Another replica's notification worker (same database, channels and clock). */
  let otherWorker: NotificationWorker;
  beforeAll(async () => {
    smtp = await SmtpSink.start();
    // SSL Wireless refuses a repeated csms_id within the day (on the model's clock), then takes it anew.
    sms = await new SslWirelessFake(undefined, undefined, () => t.clock.nowMs()).start();
    bkash = await new BkashFake().start();
    t = await createTestApp({
      config: {
        // The re-check moves the test clock a minute at a time: admin sessions must outlive a long run.
        jwtTtlMinutes: 60 * 24 * 365,
        bkashLiveUrl: bkash.baseUrl,
        smtpUrl: smtp.url,
        mailFrom: 'Joma <billing@joma.example>',
        smtpTimeoutMs: smtpMs(PRODUCTION_SMTP_TIMEOUT_MS),
        sslwirelessSmsUrl: sms.baseUrl,
      },
    });
    otherWorker = anotherNotificationWorker(t);
    replica = new ChildReplica(t);
    await replica.ready();
  }, 120_000);
  afterAll(async () => {
    await replica.close();
    await t.close();
    await smtp.close();
    await sms.close();
    await bkash.stop();
  });

  const http = () => t.http();

  // ---------------------------------------------------------------- commands
  type Cmd = fc.AsyncCommand<Model, Real, false>;
  /** Newest first: small indices keep a sequence working on the same few invoices and payments. */
  const pick = <T>(xs: T[], i: number) => xs[xs.length - 1 - (i % xs.length)];

  class NewInvoice implements Cmd {
    constructor(readonly total: number) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const ref = `m-${++r.seq}`;
      const res = await http()
        .post('/api/v1/invoices')
        .set(asApp(r.app.TEST))
        .send({
          customerReference: ref,
          lineItems: [{ description: 'Model item', qty: 1, unitAmountMinor: this.total }],
        });
      ok(res.status, [201], 'invoice', res.body);
      r.invoices.push({
        id: res.body.data.id,
        path: new URL(res.body.data.payableUrl).pathname,
        ref,
      });
      m.invoices++;
    }
    toString = () => `NewInvoice(${this.total})`;
  }

  class PayClick implements Cmd {
    constructor(readonly i: number) {}
    check = (m: Model) => m.invoices > 0;
    async run(m: Model, r: Real) {
      const inv = pick(r.invoices, this.i);
      const res = await http().post(inv.path).type('form').send({ gateway: 'sandbox' });
      ok(res.status, [303, 409, 429], 'pay click', res.text);
      await trackNewPayments(m, r, inv.id);
    }
    toString = () => `PayClick(${this.i})`;
  }

  /** The customer's checkout expires, and they click Pay again: two checkouts, both payable. */
  class ComeBackAfterExpiry implements Cmd {
    constructor(readonly i: number) {}
    check = (m: Model) => m.invoices > 0;
    async run(m: Model, r: Real) {
      const inv = pick(r.invoices, this.i);
      const first = await http().post(inv.path).type('form').send({ gateway: 'sandbox' });
      ok(first.status, [303, 409, 429], 'pay click', first.text);
      await trackNewPayments(m, r, inv.id);
      const [open] = (
        await t.db.query(
          `SELECT id FROM payments WHERE invoice_id = $1 AND status = 'PENDING' ORDER BY id DESC LIMIT 1`,
          [inv.id],
        )
      ).rows;
      if (!open) return;
      const expired = await http()
        .post(`/api/v1/test-helpers/payments/${open.id}/expire`)
        .set(asApp(r.app.TEST))
        .send();
      ok(expired.status, [200, 409], 'expire', expired.body);
      const again = await http().post(inv.path).type('form').send({ gateway: 'sandbox' });
      ok(again.status, [303, 409, 429], 'pay click again', again.text);
      await trackNewPayments(m, r, inv.id);
    }
    toString = () => `ComeBackAfterExpiry(${this.i})`;
  }

  class ApiPay implements Cmd {
    constructor(
      readonly i: number,
      readonly share: number,
      readonly twice: boolean,
    ) {}
    check = (m: Model) => m.invoices > 0;
    async run(m: Model, r: Real) {
      const inv = pick(r.invoices, this.i);
      const due = await dueOf(inv.id);
      const amountMinor = Math.max(1000, Math.floor(due * this.share));
      const key = `pay-${++r.seq}`;
      const send = () =>
        http()
          .post('/api/v1/payments')
          .set({ ...asApp(r.app.TEST), 'Idempotency-Key': key })
          .send({ invoiceId: inv.id, amountMinor });
      const first = await send();
      ok(first.status, [201, 409, 422], 'api payment', first.body);
      if (this.twice) {
        const again = await send();
        expect(again.status).toBe(first.status);
        if (first.status === 201) expect(again.body.data.id).toBe(first.body.data.id);
      }
      await trackNewPayments(m, r, inv.id);
    }
    toString = () => `ApiPay(${this.i}, ${this.share}, twice=${this.twice})`;
  }

  /** A 5xx between a payment's steps (its checkout cannot be attached), then the same request under the same key. */
  class PaymentFaultThenRetry implements Cmd {
    constructor(readonly i: number) {}
    check = (m: Model) => m.invoices > 0;
    async run(m: Model, r: Real) {
      const inv = pick(r.invoices, this.i);
      const key = `pf-${++r.seq}`;
      const amountMinor = Math.max(1000, Math.floor((await dueOf(inv.id)) / 2));
      const send = () =>
        http()
          .post('/api/v1/payments')
          .set({ ...asApp(r.app.TEST), 'Idempotency-Key': key })
          .send({ invoiceId: inv.id, amountMinor });
      const count = async () =>
        (
          await t.db.query('SELECT count(*)::int AS n FROM payments WHERE invoice_id = $1', [
            inv.id,
          ])
        ).rows[0].n as number;
      const before = await count();
      const failed = await withWriteRefused(t.db, 'payments', 'gateway_session_id', send);
      ok(failed.status, [500, 409, 422], 'payment under fault', failed.body);
      if (failed.status !== 500) return;
      expect(await count()).toBe(before + 1);
      const again = await send();
      ok(again.status, [201], 'payment retried after a 5xx', again.body);
      expect(await count()).toBe(before + 1);
      await trackNewPayments(m, r, inv.id);
    }
    toString = () => `PaymentFault(${this.i})`;
  }

  class Settle implements Cmd {
    constructor(
      readonly p: number,
      readonly outcome: 'succeeded' | 'failed' | 'cancelled',
      readonly times: number,
    ) {}
    check = (m: Model) => m.payments > 0;
    async run(_m: Model, r: Real) {
      const id = await choosePayment(r, this.p, ['PENDING', 'EXPIRED', 'PENDING']);
      const settle = () =>
        http()
          .post(`/api/v1/test-helpers/payments/${id}/settle`)
          .set(asApp(r.app.TEST))
          .send({ outcome: this.outcome });
      const answers = await Promise.all(Array.from({ length: this.times }, settle));
      for (const a of answers) ok(a.status, [200, 409], 'settle', a.body);
    }
    toString = () => `Settle(${this.p}, ${this.outcome}, x${this.times})`;
  }

  class ExpireOrCancel implements Cmd {
    constructor(
      readonly p: number,
      readonly how: 'expire' | 'cancel',
    ) {}
    check = (m: Model) => m.payments > 0;
    async run(_m: Model, r: Real) {
      const id = pick(r.payments, this.p);
      const res =
        this.how === 'expire'
          ? await http()
              .post(`/api/v1/test-helpers/payments/${id}/expire`)
              .set(asApp(r.app.TEST))
              .send()
          : await http().post(`/api/v1/payments/${id}/cancel`).set(asApp(r.app.TEST)).send();
      ok(res.status, [200, 409], this.how, res.body);
    }
    toString = () => `${this.how}(${this.p})`;
  }

  /**
   * The payer pays on the sandbox's page and the browser never comes back
   * (the redirect not followed); then the merchant cancels that payment or
   * voids its invoice (decisions 13 as amended: the capture is never lost).
   */
  class PaidThenClosed implements Cmd {
    constructor(
      readonly p: number,
      readonly how: 'cancel' | 'void',
    ) {}
    check = (m: Model) => m.payments > 0;
    async run(_m: Model, r: Real) {
      const id = await choosePayment(r, this.p, ['PENDING']);
      const [row] = (
        await t.db.query(
          `SELECT gateway_session_id AS session, invoice_id, status FROM payments WHERE id = $1`,
          [id],
        )
      ).rows;
      if (row?.status !== 'PENDING' || !row.session) return;
      const paid = await http()
        .post(`/sandbox/checkout/${row.session}`)
        .type('form')
        .send({ outcome: 'pay' });
      ok(paid.status, [303, 409], 'pay at the sandbox', paid.text);
      const res =
        this.how === 'cancel' || !row.invoice_id
          ? await http().post(`/api/v1/payments/${id}/cancel`).set(asApp(r.app.TEST)).send()
          : await http()
              .post(`/api/v1/invoices/${row.invoice_id}/void`)
              .set(asApp(r.app.TEST))
              .send();
      ok(res.status, [200, 409], `paid then ${this.how}`, res.body);
    }
    toString = () => `PaidThenClosed(${this.p}, ${this.how})`;
  }

  class Void implements Cmd {
    constructor(readonly i: number) {}
    check = (m: Model) => m.invoices > 0;
    async run(_m: Model, r: Real) {
      const inv = pick(r.invoices, this.i);
      const res = await http()
        .post(`/api/v1/invoices/${inv.id}/void`)
        .set(asApp(r.app.TEST))
        .send();
      ok(res.status, [200, 409], 'void', res.body);
    }
    toString = () => `Void(${this.i})`;
  }

  class Refund implements Cmd {
    constructor(
      readonly p: number,
      readonly parts: number,
      readonly share: number,
      readonly raced: boolean,
    ) {}
    check = (m: Model) => m.payments > 0;
    async run(m: Model, r: Real) {
      const id = await choosePayment(r, this.p, ['SUCCEEDED']);
      const [pay] = (await t.db.query('SELECT amount_minor FROM payments WHERE id = $1', [id]))
        .rows;
      const part = Math.max(1, Math.floor((Number(pay.amount_minor) * this.share) / this.parts));
      const one = () =>
        http()
          .post(`/api/v1/payments/${id}/refunds`)
          .set({ ...asApp(r.app.TEST), 'Idempotency-Key': `rf-${++r.seq}` })
          .send(this.share >= 1 && this.parts === 1 ? {} : { amountMinor: part });
      const answers = this.raced
        ? await Promise.all(Array.from({ length: this.parts }, one))
        : await sequence(this.parts, one);
      for (const a of answers) {
        ok(a.status, [201, 409, 422], 'refund', a.body);
        if (a.status === 201) trackRefund(m, r, a.body.data.id);
      }
    }
    toString = () =>
      `Refund(${this.p}, parts=${this.parts}, share=${this.share}, raced=${this.raced})`;
  }

  /** A 5xx between the refund's steps, then the same request under the same key. */
  class RefundFaultThenRetry implements Cmd {
    constructor(
      readonly p: number,
      readonly retry: boolean,
    ) {}
    check = (m: Model) => m.payments > 0;
    async run(m: Model, r: Real) {
      const id = await choosePayment(r, this.p, ['SUCCEEDED']);
      const key = `rff-${++r.seq}`;
      const send = () =>
        http()
          .post(`/api/v1/payments/${id}/refunds`)
          .set({ ...asApp(r.app.TEST), 'Idempotency-Key': key })
          .send({ amountMinor: 1000 });
      const before = await refundCount(id);
      const failed = await withWriteRefused(t.db, 'refunds', 'submitted_at', send);
      // 201: it waits for approval, so nothing was sent and no fault was met.
      ok(failed.status, [500, 201, 409, 422], 'refund under fault', failed.body);
      if (failed.status === 201) trackRefund(m, r, failed.body.data.id);
      if (failed.status !== 500) return;
      expect(await refundCount(id)).toBe(before + 1);
      const [opened] = (
        await t.db.query('SELECT max(id)::int AS id FROM refunds WHERE payment_id = $1', [id])
      ).rows;
      trackRefund(m, r, opened.id);
      if (!this.retry) return;
      const again = await send();
      ok(again.status, [201], 'refund retried after a 5xx', again.body);
      expect(again.body.data.id).toBe(opened.id);
      expect(await refundCount(id)).toBe(before + 1);
    }
    toString = () => `RefundFault(${this.p}, retry=${this.retry})`;
  }

  /**
   * A replica killed (SIGKILL) in the middle of a refund or an API payment:
   * exactly between its steps (the first committed, the next one waiting,
   * `withWriteHeld`) or after `afterMs` of the request, wherever it got.
   * The client then retries under the same key on the surviving replica
   * (as a load balancer's retry would) or gives up, leaving the rest to the
   * re-check. Either way one key is at most one record.
   */
  class ReplicaKilled implements Cmd {
    constructor(
      readonly i: number,
      readonly what: 'refund' | 'payment',
      readonly afterMs: number | 'between-steps',
      readonly retry: boolean,
      /** Which of a refund's steps waits: claimed (opened), marked sent (claimed), or its answer recorded (sent). */
      readonly step: 'claimed_until' | 'submitted_at' | 'status' = 'submitted_at',
    ) {}
    check = (m: Model) => (this.what === 'refund' ? m.payments > 0 : m.invoices > 0);
    async run(m: Model, r: Real) {
      const { base } = await replica.ready();
      const key = `rk-${++r.seq}`;
      const target = await this.target(r);
      const before = await target.count();
      const send = () =>
        fetch(`${base}${target.path}`, {
          method: 'POST',
          headers: {
            ...asApp(r.app.TEST),
            'Idempotency-Key': key,
            'content-type': 'application/json',
          },
          body: JSON.stringify(target.body),
        }).then(
          (res) => res.status,
          () => 0, // the process died under it
        );
      let sent: Promise<number> = Promise.resolve(0);
      if (this.afterMs === 'between-steps')
        await withWriteHeld(t.db, target.table, target.column, async (stopped) => {
          sent = send(); // once the write is held: sent earlier, it could pass it first
          const at = await stopped(sent);
          if (at !== null) await replica.kill();
          count(
            `ReplicaKilled.${target.table}.${target.column}.${at === null ? 'not-reached' : 'held'}`,
          );
        });
      else {
        sent = send();
        await new Promise((ok) => setTimeout(ok, this.afterMs as number));
        await replica.kill();
      }
      const answered = await sent;
      if (this.afterMs !== 'between-steps')
        count(`ReplicaKilled.${this.what}.${answered ? 'answered' : 'killed'}-after-ms`);
      expect(await target.count()).toBeLessThanOrEqual(before + 1);
      if (this.retry) {
        const again = () =>
          http()
            .post(target.path)
            .set({ ...asApp(r.app.TEST), 'Idempotency-Key': key })
            .send(target.body);
        let res = await again();
        if (res.body?.meta?.errorCode === 'IDEMPOTENCY_KEY_IN_USE') {
          // The dead replica's lease on the key runs out; then the retry takes over.
          t.clock.advance(61_000);
          res = await again();
        }
        ok(res.status, [201, 409, 422], `${this.what} retried after a killed replica`, res.body);
        expect(res.body?.meta?.errorCode).not.toBe('IDEMPOTENCY_KEY_IN_USE');
        const after = await target.count();
        expect(after).toBeLessThanOrEqual(before + 1);
        if (res.status === 201) expect(res.body.data.id).toBe(await target.newest());
      }
      await target.track(m);
    }
    private async target(r: Real) {
      if (this.what === 'refund') {
        const id = await choosePayment(r, this.i, ['SUCCEEDED']);
        return {
          path: `/api/v1/payments/${id}/refunds`,
          body: { amountMinor: 1000 },
          table: 'refunds',
          column: this.step,
          count: () => refundCount(id),
          newest: async () =>
            (await t.db.query('SELECT max(id)::int AS id FROM refunds WHERE payment_id = $1', [id]))
              .rows[0].id as number,
          track: async (m: Model) => {
            const rows = (await t.db.query('SELECT id FROM refunds WHERE payment_id = $1', [id]))
              .rows;
            for (const row of rows) trackRefund(m, r, row.id);
          },
        };
      }
      const inv = pick(r.invoices, this.i);
      return {
        path: '/api/v1/payments',
        body: {
          invoiceId: inv.id,
          amountMinor: Math.max(1000, Math.floor((await dueOf(inv.id)) / 2)),
        },
        table: 'payments',
        column: 'gateway_session_id',
        count: async () =>
          (
            await t.db.query('SELECT count(*)::int AS n FROM payments WHERE invoice_id = $1', [
              inv.id,
            ])
          ).rows[0].n as number,
        newest: async () =>
          (
            await t.db.query('SELECT max(id)::int AS id FROM payments WHERE invoice_id = $1', [
              inv.id,
            ])
          ).rows[0].id as number,
        track: (m: Model) => trackNewPayments(m, r, inv.id),
      };
    }
    toString = () =>
      `ReplicaKilled(${this.i}, ${this.what}, at=${this.afterMs === 'between-steps' && this.what === 'refund' ? this.step : this.afterMs}, retry=${this.retry})`;
  }

  class Decide implements Cmd {
    constructor(
      readonly rf: number,
      readonly how: 'approve' | 'reject',
    ) {}
    check = (m: Model) => m.refunds > 0;
    async run(_m: Model, r: Real) {
      const id = pick(r.refunds, this.rf);
      const res = await http().post(`/api/v1/admin/refunds/${id}/${this.how}`).set(r.root).send();
      ok(res.status, [200, 409], this.how, res.body);
    }
    toString = () => `${this.how}(${this.rf})`;
  }

  class Recheck implements Cmd {
    check = () => true;
    async run(_m: Model, r: Real) {
      t.clock.advance(61_000);
      await t.app.get(RefundsService).recheckPending();
      // No refund free to go stays PENDING after the re-check (the sandbox answers at once).
      const stuck = await t.db.query(
        `SELECT id FROM refunds WHERE app_id = $1 AND status = 'PENDING'
           AND (NOT approval_required OR approved_at IS NOT NULL)`,
        [r.app.id],
      );
      expect(stuck.rows).toEqual([]);
    }
    toString = () => 'Recheck';
  }

  class Reconcile implements Cmd {
    constructor(readonly skew: number) {}
    check = () => true;
    async run(_m: Model, r: Real) {
      const captured = (
        await t.db.query(
          `SELECT gateway_txn_id, amount_minor, succeeded_at FROM payments
            WHERE app_id = $1 AND mode = 'TEST' AND status = 'SUCCEEDED' ORDER BY id`,
          [r.app.id],
        )
      ).rows;
      const lines = captured.map(
        (p, n) =>
          `${p.gateway_txn_id},${Number(p.amount_minor) + (n % 3 === 0 ? this.skew : 0)},BDT,${new Date(p.succeeded_at).toISOString()},0`,
      );
      lines.push(`GHOST-${++r.seq},1000,BDT,${new Date(t.clock.nowMs()).toISOString()},10`);
      const imported = await http()
        .post(`/api/v1/admin/settlements/import?applicationId=${r.app.id}&mode=TEST`)
        .set(r.root)
        .send({
          gateway: 'sandbox',
          csv: ['gateway_txn_id,amount_minor,currency,transaction_time,fee_minor', ...lines].join(
            '\n',
          ),
        });
      ok(imported.status, [201], 'import', imported.body);
      const period = new Date(t.clock.nowMs() + 6 * 3600_000).toISOString().slice(0, 10);
      const run = await http()
        .post(
          `/api/v1/admin/reconciliation/runs?period=${period}&applicationId=${r.app.id}&mode=TEST`,
        )
        .set(r.root)
        .send();
      ok(run.status, [201], 'reconciliation run', run.body);
      expect(run.body.data.ledgerBalanced).toBe(true);
    }
    toString = () => `Reconcile(skew=${this.skew})`;
  }

  class Subscribe implements Cmd {
    check = () => true;
    async run(m: Model, r: Real) {
      const ref = `s-${++r.seq}`;
      const res = await http()
        .post('/api/v1/purchases')
        .set(asApp(r.app.TEST))
        .send({ priceId: r.priceId, customerReference: ref });
      ok(res.status, [201], 'purchase', res.body);
      r.subscriptions.push(res.body.data.subscriptionId);
      m.subscriptions++;
      const [inv] = (
        await t.db.query('SELECT pay_token FROM invoices WHERE id = $1', [res.body.data.invoiceId])
      ).rows;
      r.invoices.push({ id: res.body.data.invoiceId, path: `/pay/${inv.pay_token}`, ref });
      m.invoices++;
    }
    toString = () => 'Subscribe';
  }

  class SubscriptionMove implements Cmd {
    constructor(
      readonly s: number,
      readonly how: 'advance' | 'cancel' | 'pause' | 'resume',
    ) {}
    check = (m: Model) => m.subscriptions > 0;
    async run(m: Model, r: Real) {
      const id = pick(r.subscriptions, this.s);
      const res =
        this.how === 'advance'
          ? await http()
              .post(`/api/v1/test-helpers/subscriptions/${id}/advance`)
              .set(asApp(r.app.TEST))
              .send()
          : await http()
              .post(`/api/v1/subscriptions/${id}/${this.how}`)
              .set(asApp(r.app.TEST))
              .send(this.how === 'cancel' ? { atPeriodEnd: false } : {});
      ok(res.status, [200, 409], `subscription ${this.how}`, res.body);
      // Renewal invoices join the pool.
      const known = new Set(r.invoices.map((i) => i.id));
      const rows = (
        await t.db.query(
          'SELECT i.id, i.pay_token, c.external_id FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.subscription_id = $1 ORDER BY i.id',
          [id],
        )
      ).rows;
      for (const row of rows)
        if (!known.has(row.id)) {
          r.invoices.push({ id: row.id, path: `/pay/${row.pay_token}`, ref: row.external_id });
          m.invoices++;
        }
    }
    toString = () => `Subscription(${this.s}).${this.how}`;
  }

  // ------------------------------------------------- customer messages (LIVE)
  const worker = () => t.app.get(NotificationWorker);
  /** A payer's contact, unique across the whole test (a message names its payer). */
  let payers = 0;

  /** A LIVE invoice to a payer with an email address and a Bangladeshi mobile; `notify`: it is sent to them. */
  class LiveInvoice implements Cmd {
    constructor(
      readonly total: number,
      readonly notify: boolean,
      readonly language: 'bn' | 'en',
    ) {}
    check = () => true;
    async run(m: Model, r: Real) {
      const n = ++payers;
      const res = await http()
        .post('/api/v1/invoices')
        .set(asApp(r.app.LIVE))
        .send({
          customerReference: `l-${++r.seq}`,
          customerEmail: `payer${n}@example.com`,
          customerPhone: `0171${String(n).padStart(7, '0')}`,
          customerLanguage: this.language,
          notifyCustomer: this.notify,
          lineItems: [{ description: 'Live item', qty: 1, unitAmountMinor: this.total }],
        });
      ok(res.status, [201], 'live invoice', res.body);
      r.live.push(res.body.data.id);
      m.live++;
    }
    toString = () => `LiveInvoice(${this.total}, notify=${this.notify}, ${this.language})`;
  }

  /**
   * The payer pays a LIVE invoice (or part of it) with bKash and comes back
   * once, or twice at once (a repeated return), or never: the merchant then
   * cancels the payment or voids the invoice, which asks bKash first and
   * records the capture it finds. Either way one receipt per capture.
   */
  class LivePay implements Cmd {
    constructor(
      readonly i: number,
      readonly share: number,
      readonly how: 'return' | 'return-twice' | 'cancel' | 'void',
    ) {}
    check = (m: Model) => m.live > 0;
    async run(_m: Model, r: Real) {
      const invoiceId = pick(r.live, this.i);
      const created = await http()
        .post('/api/v1/payments')
        .set({ ...asApp(r.app.LIVE), 'Idempotency-Key': `lp-${++r.seq}` })
        .send({
          invoiceId,
          amountMinor: Math.max(1000, Math.floor((await dueOf(invoiceId)) * this.share)),
          gateway: 'bkash',
        });
      ok(created.status, [201, 409, 422], 'live payment', created.body);
      if (created.status !== 201) return;
      const paymentID = bkashPaymentId(created.body.data.checkoutUrl);
      bkash.customerPays(paymentID);
      if (this.how === 'return' || this.how === 'return-twice') {
        const back = await Promise.all(
          Array.from({ length: this.how === 'return' ? 1 : 2 }, () =>
            bkashReturn(t, bkash, paymentID, 'success'),
          ),
        );
        for (const b of back) ok(b.status, [200, 302, 303, 409], 'back from bKash', b.text);
        return;
      }
      const res =
        this.how === 'cancel'
          ? await http()
              .post(`/api/v1/payments/${created.body.data.id}/cancel`)
              .set(asApp(r.app.LIVE))
              .send()
          : await http().post(`/api/v1/invoices/${invoiceId}/void`).set(asApp(r.app.LIVE)).send();
      ok(res.status, [200, 409], `paid with bKash then ${this.how}`, res.body);
    }
    toString = () => `LivePay(${this.i}, ${this.share}, ${this.how})`;
  }

  type EmailAnswer = 'slow' | 'late' | 'dropped' | '451' | '550';
  type SmsAnswer = 'lost' | '503';
  type Advance = 'none' | 'minute' | 'lease' | 'midnight';
  /** Messages whose worker was killed after the provider took them (answered, never recorded). */
  const diedAfterSend = new Set<number>();

  /**
   * The SMTP server will answer the next message slowly (30 s), late (90 s,
   * past the client's 60 s), or never (it keeps the message and drops the
   * connection), or refuse it (451, 550): whichever worker sends it next.
   */
  class SmtpServerWill implements Cmd {
    constructor(readonly answer: EmailAnswer) {}
    check = () => true;
    async run() {
      if (this.answer === 'slow') smtp.answerNext(smtpMs(30_000));
      if (this.answer === 'late') smtp.answerNext(smtpMs(90_000));
      if (this.answer === 'dropped') smtp.answerNext('drop');
      if (this.answer === '451' || this.answer === '550') smtp.refuseNext(1, Number(this.answer));
    }
    toString = () => `SmtpServerWill(${this.answer})`;
  }

  /** SSL Wireless will take the next SMS and lose its answer, or answer it 503 (not taken). */
  class SslWirelessWill implements Cmd {
    constructor(readonly answer: SmsAnswer) {}
    check = () => true;
    async run() {
      if (this.answer === 'lost') sms.loseNextAnswer(1);
      else sms.failNext(1);
    }
    toString = () => `SslWirelessWill(${this.answer})`;
  }

  function providersAsUsual() {
    smtp.answerAsUsual();
    sms.loseNextAnswer(0);
    sms.failNext(0);
  }

  /**
   * The workers deliver what is due, after the clock moved `advance` (a
   * minute: the first retry; past the hand-over lease; past the next
   * midnight in UTC or Dhaka, where SSL Wireless takes a csms_id anew).
   * `raced`: two replicas' workers at once.
   */
  class Deliver implements Cmd {
    constructor(
      readonly advance: Advance,
      readonly raced: boolean,
    ) {}
    check = () => true;
    async run() {
      advanceClock(this.advance);
      const startedAt = t.clock.now();
      await Promise.all(this.raced ? [worker().tick(), otherWorker.tick()] : [worker().tick()]);
      // A message handed over whose sender never recorded an outcome, its lease run out: FAILED, outcome unknown.
      expect(
        (
          await t.db.query(
            `SELECT id, claimed_until FROM notifications
              WHERE status = 'QUEUED' AND handed_over_at IS NOT NULL AND claimed_until <= $1`,
            [startedAt],
          )
        ).rows,
      ).toEqual([]);
    }
    toString = () => `Deliver(advance=${this.advance}${this.raced ? ', raced' : ''})`;
  }

  /**
   * Payers are sent invoices (enough messages that the batch outlasts the
   * worker), and a worker (another replica's) is killed mid-batch: it
   * claims what is due, finishes `finished` messages and stops in the next
   * one, before handing it over, after the hand-over, or after the
   * provider took it. The app's worker, polling as workers do, must then
   * have handed every message the dead one claimed and never handed over to
   * its provider by 2 minutes after the claim: sent, not failed (decisions
   * 16 as amended). The one it handed over is never sent again (the
   * invariants).
   */
  class WorkerKilled implements Cmd {
    constructor(
      readonly finished: number,
      readonly death: WorkerDeath,
    ) {}
    check = () => true;
    async run(m: Model, r: Real) {
      for (let n = 0; n < Math.ceil((this.finished + 2) / 2); n++)
        await new LiveInvoice(1000, true, 'en').run(m, r);
      const dead = await killNotificationWorkerMidBatch(t, this.finished, this.death);
      count(`WorkerKilled.${dead.stoppedIn === null ? 'finished-its-batch' : this.death}`);
      if (dead.stoppedIn !== null && this.death === 'after-send') diedAfterSend.add(dead.stoppedIn);
      if (!dead.claimedAt) return;
      const stranded = dead.claimed.filter((id) => !dead.handedOver.includes(id));
      const tries = async () =>
        (
          await t.db.query(
            `SELECT id::int, channel, status, attempts, last_error,
                    outcome_unknown_since IS NOT NULL AS asked_again
               FROM notifications WHERE id = ANY($1::bigint[]) ORDER BY id`,
            [stranded],
          )
        ).rows;
      const before = new Map((await tries()).map((row) => [row.id, row.attempts]));
      // The app's worker polls every notificationPollIntervalMs: its last poll within 2 minutes of the claim.
      const lastPoll = dead.claimedAt.getTime() + 120_000 - t.config.notificationPollIntervalMs;
      travel(Math.max(0, lastPoll - t.clock.nowMs()));
      await worker().tick();
      // Each was handed to its provider by then (whatever the provider answered), never failed untried
      // (but an SMS asked again under its csms_id past midnight, rightly not sent again).
      expect(
        (await tries()).filter(
          (row) =>
            row.attempts <= before.get(row.id) &&
            !(
              row.status === 'FAILED' &&
              row.asked_again &&
              String(row.last_error).startsWith(OUTCOME_UNKNOWN)
            ),
        ),
      ).toEqual([]);
    }
    toString = () => `WorkerKilled(finished=${this.finished}, ${this.death})`;
  }

  /**
   * Time the message commands move the app's clock on (a minute, the
   * hand-over lease, to the next midnight, the retry schedule's two days),
   * given back when the run is over: the money commands' clock goes as it
   * did without them. The replica ReplicaKilled kills runs on the system
   * clock and an Idempotency-Key lives 24 hours from its first request, so
   * a run borrows at most MAX_BORROWED_MS before its end (more, and a retry
   * on the other replica would find the key expired, as no real pair of
   * replicas would).
   */
  let borrowed = 0;
  const MAX_BORROWED_MS = 20 * 3600_000;
  function travel(ms: number) {
    t.clock.advance(ms);
    borrowed += ms;
  }

  function advanceClock(how: Advance) {
    if (how === 'minute') travel(61_000);
    if (how === 'lease') travel(HANDED_OVER_LEASE_MS + 1_000);
    if (how === 'midnight') {
      const jump = nextMidnight() - t.clock.nowMs();
      if (borrowed + jump > MAX_BORROWED_MS) return count('Deliver.midnight-too-far');
      travel(jump);
    }
  }

  /** A second past the next midnight in UTC or in Dhaka (UTC+6), whichever comes first. */
  function nextMidnight(): number {
    const now = t.clock.nowMs();
    const day = 24 * 3600_000;
    const dhaka = 6 * 3600_000;
    const utc = Math.floor(now / day + 1) * day;
    const bd = Math.floor((now + dhaka) / day + 1) * day - dhaka;
    return Math.min(utc, bd) + 1_000;
  }

  // ---------------------------------------------------------------- helpers
  async function sequence<T>(n: number, f: () => PromiseLike<T>): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(await f());
    return out;
  }
  async function dueOf(invoiceId: number): Promise<number> {
    const [row] = (
      await t.db.query(
        'SELECT total_minor - amount_paid_minor AS due FROM invoices WHERE id = $1',
        [invoiceId],
      )
    ).rows;
    return Number(row.due);
  }
  async function trackNewPayments(m: Model, r: Real, invoiceId: number) {
    const known = new Set(r.payments);
    for (const row of (
      await t.db.query('SELECT id FROM payments WHERE invoice_id = $1 ORDER BY id', [invoiceId])
    ).rows)
      if (!known.has(row.id)) {
        r.payments.push(row.id);
        m.payments++;
      }
  }
  /** A tracked payment, preferably one in `statuses` (so captures and refunds happen often). */
  async function choosePayment(r: Real, index: number, statuses: string[]): Promise<number> {
    const fit = (
      await t.db.query(
        `SELECT id FROM payments WHERE app_id = $1 AND mode = 'TEST' AND status = ANY($2::text[]) ORDER BY id`,
        [r.app.id, statuses],
      )
    ).rows.map((row) => row.id as number);
    return fit.length > 0 ? pick(fit, index) : pick(r.payments, index);
  }
  function trackRefund(m: Model, r: Real, id: number) {
    if (r.refunds.includes(id)) return;
    r.refunds.push(id);
    m.refunds++;
  }
  async function refundCount(paymentId: number): Promise<number> {
    return (
      await t.db.query('SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1', [paymentId])
    ).rows[0].n;
  }

  // -------------------------------------------------------------- invariants
  async function invariants(r: Real): Promise<void> {
    // The rules are listed, with what each means, in test/support/money-invariants.ts
    // (the topology drill checks the same ones after its faults).
    expect(await moneyViolations(t.db, r.app.id, r.threshold)).toEqual(NO_MONEY_VIOLATIONS);
    await expectBalancedLedger(t.db);
  }

  /**
   * Customer messages at most once (decisions 16 as amended), for the run's
   * app, counted at the sinks (which serve every run): an email names its
   * message in its Message-ID, an SMS in its csms_id (`joma` and its id).
   */
  async function messageInvariants(r: Real): Promise<void> {
    const rows = new Map(
      (
        await t.db.query(
          `SELECT id::int, app_id::int, mode, fact_key, channel, status, last_error,
                  handed_over_at IS NOT NULL AS held, outcome_unknown_since IS NOT NULL AS asked_again
             FROM notifications`,
        )
      ).rows.map((row) => [row.id as number, row]),
    );
    interface Got {
      id: number;
      to: string;
      text: string;
      /** How the provider answered: ok within `afterMs`, or never. */
      answered: number | null;
    }
    const got: Got[] = [
      ...smtp.received.map((mail) => ({
        id: Number(/^<notification-(\d+)@joma>$/.exec(mail.parsed.messageId ?? '')?.[1]),
        to: `email:${mail.to.join(',')}`,
        text: `${mail.parsed.subject}\n${mail.parsed.text}`,
        answered: mail.answer.kind === 'ok' ? mail.answer.afterMs : null,
      })),
      ...sms.sent.map((s) => ({
        id: Number(/^joma-?(\d+)$/.exec(s.csmsId)?.[1]),
        to: `sms:${s.msisdn}`,
        text: s.sms,
        answered: s.answered ? 0 : null,
      })),
    ];
    const wrong: string[] = [];
    const perFact = new Map<string, number>();
    const perText = new Map<string, number>();
    const received = new Map<number, Got[]>();
    for (const g of got) {
      const row = rows.get(g.id);
      if (!row) {
        wrong.push(`${g.to} got a message no notification is: ${g.text.slice(0, 60)}`);
        continue;
      }
      if (row.app_id !== r.app.id) continue; // another run's
      received.set(g.id, [...(received.get(g.id) ?? []), g]);
      const fact = `${row.app_id}/${row.mode}/${row.fact_key}/${row.channel}`;
      perFact.set(fact, (perFact.get(fact) ?? 0) + 1);
      perText.set(`${g.to}\n${g.text}`, (perText.get(`${g.to}\n${g.text}`) ?? 0) + 1);
      // TEST never writes to anyone.
      if (row.mode !== 'LIVE') wrong.push(`${row.mode} message ${g.id} reached ${g.to}`);
    }
    // At most once per (fact, channel); and no payer gets the same text twice, whatever ids say.
    for (const [fact, n] of perFact) if (n > 1) wrong.push(`${fact} received ${n} times`);
    for (const [text, n] of perText)
      if (n > 1) wrong.push(`${text.split('\n')[0]} got one text ${n} times`);
    const timeout = smtpMs(PRODUCTION_SMTP_TIMEOUT_MS);
    for (const [id, row] of rows) {
      if (row.app_id !== r.app.id) continue;
      const mine = received.get(id) ?? [];
      const unknown = row.status === 'FAILED' && String(row.last_error).startsWith(OUTCOME_UNKNOWN);
      const what = `${row.channel} ${id} (${row.fact_key}) ${row.status} "${row.last_error ?? ''}"`;
      // SENT only if the provider got it.
      if (row.status === 'SENT' && mine.length === 0) wrong.push(`${what}: never received`);
      if (mine.length === 0) continue;
      // What a provider got is SENT, FAILED with "outcome unknown", or still in hand: its sender's
      // (handed over, the lease running) or an SMS's re-ask under its csms_id.
      const inHand = row.status === 'QUEUED' && (row.held || row.asked_again);
      if (row.status !== 'SENT' && !unknown && !inHand) wrong.push(`${what}: received`);
      const answer = mine[0].answered;
      if (diedAfterSend.has(id)) continue; // its sender never heard the answer
      // Answered within 60 s: waited for, SENT. Answered late or never: an email is FAILED,
      // outcome unknown (never sent again); an SMS is asked again under its csms_id or FAILED so.
      if (answer !== null && answer < smtpMs(SMTP_WAITED_FOR_MS) && row.status !== 'SENT')
        wrong.push(`${what}: answered after ${answer * SMTP_SPEEDUP} ms, not SENT`);
      if (row.channel === 'EMAIL' && (answer === null || answer >= timeout) && !unknown)
        wrong.push(`${what}: answered ${answer === null ? 'never' : 'late'}, not FAILED so`);
    }
    expect(wrong).toEqual([]);
    // One receipt per channel for each LIVE capture an invoice counted (however often the payer came
    // back, or a cancel or a void found it), none for one it did not count (decisions 16).
    expect(
      (
        await t.db.query(
          `SELECT p.id, p.status, p.amount_minor, p.excess_minor, count(n.id)::int AS receipts
             FROM payments p LEFT JOIN notifications n ON n.payment_id = p.id AND n.kind = 'RECEIPT'
            WHERE p.app_id = $1 AND p.mode = 'LIVE' AND p.invoice_id IS NOT NULL
            GROUP BY p.id
           HAVING count(n.id) <> CASE WHEN p.status = 'SUCCEEDED' AND p.amount_minor > p.excess_minor
                                      THEN 2 ELSE 0 END`,
          [r.app.id],
        )
      ).rows,
    ).toEqual([]);
  }

  // ---------------------------------------------------------------- the run
  const share = fc.constantFrom(0.25, 0.5, 1, 1);
  const arb = {
    invoice: fc.constantFrom(1000, 50000, 100000, 2_500_000).map((v) => new NewInvoice(v)),
    click: fc.nat({ max: 3 }).map((i) => new PayClick(i)),
    comeBack: fc.nat({ max: 3 }).map((i) => new ComeBackAfterExpiry(i)),
    api: fc
      .tuple(fc.nat({ max: 3 }), share, fc.boolean())
      .map(([i, s, twice]) => new ApiPay(i, s, twice)),
    payFault: fc.nat({ max: 3 }).map((i) => new PaymentFaultThenRetry(i)),
    settle: fc
      .tuple(
        fc.nat({ max: 3 }),
        fc.constantFrom('succeeded', 'succeeded', 'succeeded', 'failed', 'cancelled'),
        fc.constantFrom(1, 2),
      )
      .map(([p, o, n]) => new Settle(p, o as 'succeeded', n)),
    expire: fc
      .tuple(fc.nat({ max: 3 }), fc.constantFrom('expire', 'cancel'))
      .map(([p, h]) => new ExpireOrCancel(p, h as 'expire')),
    paidThenClosed: fc
      .tuple(fc.nat({ max: 3 }), fc.constantFrom<'cancel' | 'void'>('cancel', 'void'))
      .map(([p, how]) => new PaidThenClosed(p, how)),
    voids: fc.nat({ max: 3 }).map((i) => new Void(i)),
    refund: fc
      .tuple(fc.nat({ max: 3 }), fc.constantFrom(1, 2, 3, 5), share, fc.boolean())
      .map(([p, parts, s, raced]) => new Refund(p, parts, s, raced)),
    fault: fc
      .tuple(fc.nat({ max: 3 }), fc.boolean())
      .map(([p, retry]) => new RefundFaultThenRetry(p, retry)),
    killed: fc
      .tuple(
        fc.nat({ max: 3 }),
        fc.constantFrom('refund', 'refund', 'payment'),
        fc.constantFrom<number | 'between-steps'>(
          'between-steps',
          'between-steps',
          'between-steps',
          20,
          80,
          250,
        ),
        fc.boolean(),
        fc.constantFrom('claimed_until', 'submitted_at', 'status'),
      )
      .map(
        ([i, what, at, retry, step]) =>
          new ReplicaKilled(i, what as 'refund', at, retry, step as 'status'),
      ),
    decide: fc
      .tuple(fc.nat({ max: 3 }), fc.constantFrom('approve', 'reject'))
      .map(([x, h]) => new Decide(x, h as 'approve')),
    recheck: fc.constant(new Recheck()),
    reconcile: fc.constantFrom(0, 7).map((skew) => new Reconcile(skew)),
    subscribe: fc.constant(new Subscribe()),
    move: fc
      .tuple(fc.nat({ max: 2 }), fc.constantFrom('advance', 'advance', 'cancel', 'pause', 'resume'))
      .map(([s, h]) => new SubscriptionMove(s, h as 'advance')),
  };
  /**
   * Customer messages (LIVE): drawn after the money commands, so a seed's
   * money sequence stays what it was, and placed among them.
   */
  const messageArb = {
    liveInvoice: fc
      .tuple(
        fc.constantFrom(1000, 50000, 250000),
        fc.constantFrom(true, true, false),
        fc.constantFrom('bn', 'en'),
      )
      .map(([v, notify, lang]) => new LiveInvoice(v, notify, lang as 'bn')),
    livePay: fc
      .tuple(
        fc.nat({ max: 3 }),
        share,
        fc.constantFrom('return', 'return', 'return-twice', 'cancel', 'void'),
      )
      .map(([i, s, how]) => new LivePay(i, s, how as 'return')),
    smtpWill: fc
      .constantFrom<EmailAnswer>('slow', 'late', 'dropped', '451', '550')
      .map((a) => new SmtpServerWill(a)),
    sslWirelessWill: fc
      .constantFrom<SmsAnswer>('lost', 'lost', '503')
      .map((a) => new SslWirelessWill(a)),
    deliver: fc
      .tuple(fc.constantFrom<Advance>('none', 'minute', 'lease', 'midnight'), fc.boolean())
      .map(([advance, raced]) => new Deliver(advance, raced)),
    workerKilled: fc
      .tuple(
        fc.nat({ max: 3 }),
        fc.constantFrom<WorkerDeath>('before-hand-over', 'handed-over', 'after-send'),
      )
      .map(([finished, death]) => new WorkerKilled(finished, death)),
  };
  /** How often each kind comes: money moves most where payments are captured and refunded. */
  const WEIGHTS: Record<keyof typeof arb, number> = {
    invoice: 2,
    click: 2,
    comeBack: 2,
    api: 2,
    payFault: 1,
    settle: 5,
    expire: 1,
    voids: 1,
    paidThenClosed: 1,
    refund: 3,
    fault: 1,
    killed: Number(process.env.MODEL_KILL_WEIGHT ?? 1),
    decide: 2,
    recheck: 1,
    reconcile: 1,
    subscribe: 1,
    move: 2,
  };
  const weighted = (Object.keys(arb) as (keyof typeof arb)[]).flatMap((k) =>
    Array.from({ length: WEIGHTS[k] }, () => arb[k] as fc.Arbitrary<Cmd>),
  );
  const MESSAGE_WEIGHTS: Record<keyof typeof messageArb, number> = {
    liveInvoice: 3,
    livePay: 3,
    smtpWill: 2,
    sslWirelessWill: 2,
    deliver: 4,
    workerKilled: 1,
  };
  const MESSAGE_COMMANDS = [
    LiveInvoice,
    LivePay,
    SmtpServerWill,
    SslWirelessWill,
    Deliver,
    WorkerKilled,
  ];
  /**
   * A run's commands: a money sequence with up to MODEL_MESSAGE_COMMANDS
   * message commands among them. Printed (a counterexample) as the commands
   * that ran, as fast-check prints its own command sequences.
   */
  class Sequence {
    readonly ran: boolean[];
    constructor(readonly commands: Cmd[]) {
      this.ran = commands.map(() => false);
    }
    toString = () => this.commands.filter((_, i) => this.ran[i]).join(',');
    [fc.toStringMethod] = () => this.toString();
  }

  const sequences = fc
    .tuple(
      fc.commands(weighted, { maxCommands: MAX_COMMANDS, size: 'max' }),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.oneof(
            ...(Object.keys(messageArb) as (keyof typeof messageArb)[]).map((k) => ({
              arbitrary: messageArb[k] as fc.Arbitrary<Cmd>,
              weight: MESSAGE_WEIGHTS[k],
            })),
          ),
        ),
        { maxLength: MAX_MESSAGE_COMMANDS, size: 'max' },
      ),
    )
    .map(([money, messages]) => {
      const list = [...money];
      const at = (n: number) => n % (list.length + 1);
      const placed = [...messages].sort((a, b) => at(a[0]) - at(b[0]));
      const out: Cmd[] = [];
      for (let i = 0, j = 0; i <= list.length; i++) {
        for (; j < placed.length && at(placed[j][0]) === i; j++) out.push(placed[j][1]);
        if (i < list.length) out.push(list[i]);
      }
      return new Sequence(out);
    });

  const stats: Record<string, number> = {};
  const count = (what: string) => (stats[what] = (stats[what] ?? 0) + 1);
  /** Milliseconds spent per kind of command (MODEL_STATS), invariants included. */
  const spent: Record<string, number> = {};
  /** MODEL_STATS: how often each command ran and what it met, what the providers went through, how the messages ended. */
  async function printStats() {
    if (!process.env.MODEL_STATS) return;
    for (const row of (
      await t.db.query(
        `SELECT channel, status, split_part(COALESCE(last_error, ''), ':', 1) AS why, count(*)::int AS n
           FROM notifications GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      )
    ).rows)
      stats[`messages.${row.channel}.${row.status}${row.why ? `.${row.why}` : ''}`] = row.n;
    for (const mail of smtp.received)
      count(
        `smtp.${mail.answer.kind === 'dropped' ? 'dropped' : `answered-after-${mail.answer.afterMs * SMTP_SPEEDUP}`}`,
      );
    for (const text of sms.sent) count(`sslwireless.${text.answered ? 'answered' : 'lost'}`);
    console.log(JSON.stringify({ stats, spent }));
  }

  it(
    'keeps every money invariant after every step of random sequences',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(1000, 20000, 100000),
          sequences,
          async (threshold, cmds) => {
            const app = await createApp(t);
            const root = bearer(await superAdminToken(t));
            const set = await http()
              .patch(`/api/v1/admin/apps/${app.id}/settings`)
              .set(root)
              .send({ refundApprovalThresholdMinor: threshold });
            ok(set.status, [200], 'settings', set.body);
            // LIVE: bKash (its simulator) and SSL Wireless (its stand-in) for this app.
            ok(
              (await setGateway(t, app.id, 'bkash', 'LIVE', bkash.app, true)).status,
              [200],
              'bKash',
              '',
            );
            const sslwireless = await http()
              .patch(`/api/v1/admin/apps/${app.id}/sms/sslwireless?mode=LIVE`)
              .set(root)
              .send({ apiToken: sms.apiToken, sid: sms.sid });
            ok(sslwireless.status, [200], 'SSL Wireless', sslwireless.body);
            const real: Real = {
              t,
              app,
              root,
              threshold,
              invoices: [],
              payments: [],
              refunds: [],
              subscriptions: [],
              live: [],
              priceId: await priceFor(app),
              seq: 0,
            };
            providersAsUsual();
            const model: Model = {
              invoices: 0,
              payments: 0,
              refunds: 0,
              subscriptions: 0,
              live: 0,
            };
            try {
              await fc.asyncModelRun(
                () => ({ model, real }),
                cmds.commands.map((c, i) => wrap(c, () => (cmds.ran[i] = true))),
              );
              await endOfRun(model, real);
            } finally {
              t.clock.advance(-borrowed); // given back (see travel)
              borrowed = 0;
            }
            if (process.env.MODEL_STATS) {
              const [x] = (
                await t.db.query(
                  `SELECT count(*) FILTER (WHERE excess_minor > 0) AS excess, count(*) FILTER (WHERE status = 'SUCCEEDED') AS captured,
                        (SELECT count(*) FROM refunds WHERE app_id = $1) AS refunds FROM payments WHERE app_id = $1`,
                  [app.id],
                )
              ).rows;
              console.log(`run: ${cmds} -> ${JSON.stringify(x)}`);
            }
          },
        ),
        // MODEL_SHRINK=1: shrink a counterexample (slow: every try runs against the real app).
        { numRuns: RUNS, seed: SEED, endOnFailure: !process.env.MODEL_SHRINK },
      );
      await printStats();
    },
    // A killed replica's successor boots in about 5 s (ts-node), a few times a run.
    60_000 + RUNS * 10_000,
  );

  /**
   * The end of the day: whatever is free to go is sent, and the books still
   * hold. Then the workers go on past the next midnight (where SSL Wireless
   * would take an SMS's csms_id anew) and along the retry schedule (past its
   * 24 hours) while anything waits: every message ends SENT or FAILED, those
   * killed workers handed over FAILED with "outcome unknown".
   */
  async function endOfRun(model: Model, r: Real) {
    await new Recheck().run(model, r);
    await invariants(r);
    const queued = async () =>
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM notifications WHERE app_id = $1 AND status = 'QUEUED'`,
          [r.app.id],
        )
      ).rows[0].n as number;
    travel(nextMidnight() - t.clock.nowMs());
    await new Deliver('none', false).run();
    const hour = 3600_000;
    const retries = [61_000, 5 * 60_000, HANDED_OVER_LEASE_MS + 1_000, 30 * 60_000, 2 * hour];
    for (const ms of [...retries, 6 * hour, 12 * hour, 24 * hour]) {
      if ((await queued()) === 0) break;
      travel(ms);
      await new Deliver('none', false).run();
    }
    await messageInvariants(r);
    expect(
      (
        await t.db.query(
          `SELECT id, channel, status, attempts, last_error FROM notifications
            WHERE app_id = $1 AND status NOT IN ('SENT', 'FAILED', 'SKIPPED')`,
          [r.app.id],
        )
      ).rows,
    ).toEqual([]);
  }

  /** Each command followed by the invariants. */
  function wrap(c: Cmd, ran: () => void): Cmd {
    return {
      check: (m: Model) => c.check(m),
      run: async (m: Model, r: Real) => {
        ran();
        const kind = c.toString().split('(')[0];
        count(kind);
        const started = Date.now();
        await c.run(m, r);
        await invariants(r);
        // Only these commands send, or move what was sent (the money commands' customers have no contacts).
        if (MESSAGE_COMMANDS.some((k) => c instanceof k)) await messageInvariants(r);
        spent[kind] = (spent[kind] ?? 0) + Date.now() - started;
      },
      toString: () => c.toString(),
    };
  }

  /** A daily price in the run's own app (products and prices are per app and mode). */
  async function priceFor(app: CreatedApp): Promise<number> {
    const product = await createProduct(t, app, 'TEST', { name: 'Daily plan' });
    return (
      await createPrice(t, app, product.id, { ...MONTHLY, amountMinor: 30000, interval: 'DAY' })
    ).id;
  }
});
