import fc from 'fast-check';

import { RefundsService } from '../../src/refunds';
import { createPrice, createProduct, MONTHLY } from '../support/catalog-factories';
import { ChildReplica } from '../support/child-replica';
import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { withWriteHeld, withWriteRefused } from '../support/faults';
import { expectBalancedLedger } from '../support/ledger';
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

interface Model {
  invoices: number;
  payments: number;
  refunds: number;
  subscriptions: number;
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
  beforeAll(async () => {
    // The re-check moves the test clock a minute at a time: admin sessions must outlive a long run.
    t = await createTestApp({ config: { jwtTtlMinutes: 60 * 24 * 365 } });
    replica = new ChildReplica(t);
    await replica.ready();
  }, 120_000);
  afterAll(async () => {
    await replica.close();
    await t.close();
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
            WHERE app_id = $1 AND status = 'SUCCEEDED' ORDER BY id`,
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
        'SELECT id FROM payments WHERE app_id = $1 AND status = ANY($2::text[]) ORDER BY id',
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
    const q = async (sql: string) => (await t.db.query(sql, [r.app.id])).rows;
    // An invoice counts exactly the non-excess part of its captures; nothing when VOID.
    expect(
      await q(`SELECT i.id, i.status, i.total_minor, i.amount_paid_minor, COALESCE(s.counted, 0) AS counted
                 FROM invoices i LEFT JOIN (
                   SELECT invoice_id, sum(amount_minor - excess_minor) AS counted FROM payments
                    WHERE status = 'SUCCEEDED' GROUP BY invoice_id) s ON s.invoice_id = i.id
                WHERE i.app_id = $1 AND (i.amount_paid_minor <> COALESCE(s.counted, 0)
                   OR i.amount_paid_minor > i.total_minor OR (i.status = 'VOID' AND i.amount_paid_minor <> 0))`),
    ).toEqual([]);
    // Every captured taka is counted on an invoice or refunded as excess (automatically).
    expect(
      await q(`SELECT p.id, p.excess_minor, COALESCE(a.auto, 0) AS auto FROM payments p
                 LEFT JOIN (SELECT payment_id, sum(amount_minor) AS auto FROM refunds
                             WHERE automatic AND status <> 'FAILED' GROUP BY payment_id) a ON a.payment_id = p.id
                WHERE p.app_id = $1 AND p.status = 'SUCCEEDED' AND p.excess_minor <> COALESCE(a.auto, 0)`),
    ).toEqual([]);
    // Refunds never exceed their capture; the payment's refunded total is the succeeded ones.
    expect(
      await q(`SELECT p.id, p.status, p.amount_minor, p.amount_refunded_minor, s.active, s.done FROM payments p
                 JOIN (SELECT payment_id,
                              sum(amount_minor) FILTER (WHERE status <> 'FAILED') AS active,
                              COALESCE(sum(amount_minor) FILTER (WHERE status = 'SUCCEEDED'), 0) AS done
                         FROM refunds GROUP BY payment_id) s ON s.payment_id = p.id
                WHERE p.app_id = $1 AND (p.status <> 'SUCCEEDED' OR s.active > p.amount_minor
                   OR p.amount_refunded_minor <> s.done)`),
    ).toEqual([]);
    // Refunds that went without approval never add up past the threshold (cumulative rule).
    expect(
      await q(`SELECT payment_id, sum(amount_minor) AS unapproved FROM refunds
                WHERE app_id = $1 AND NOT automatic AND NOT approval_required AND status <> 'FAILED'
                GROUP BY payment_id HAVING sum(amount_minor) > ${r.threshold}`),
    ).toEqual([]);
    // The ledger balances, and agrees with payments, refunds and settlements.
    await expectBalancedLedger(t.db);
    const [books] = await q(`SELECT
        (SELECT COALESCE(sum(debit_minor - credit_minor), 0) FROM ledger_entries WHERE app_id = $1 AND mode = 'TEST' AND account = 'gateway_clearing') AS clearing,
        (SELECT COALESCE(sum(debit_minor - credit_minor), 0) FROM ledger_entries WHERE app_id = $1 AND mode = 'TEST' AND account = 'refunds_pending') AS pending,
        (SELECT COALESCE(sum(amount_minor), 0) FROM payments WHERE app_id = $1 AND status = 'SUCCEEDED') AS captured,
        (SELECT COALESCE(sum(amount_minor), 0) FROM refunds WHERE app_id = $1 AND status = 'SUCCEEDED') AS refunded,
        (SELECT COALESCE(sum(amount_minor), 0) FROM refunds WHERE app_id = $1 AND status = 'PENDING') AS open,
        (SELECT COALESCE(sum(amount_minor), 0) FROM settlement_lines WHERE app_id = $1 AND mode = 'TEST') AS settled`);
    expect(Number(books.clearing)).toBe(
      Number(books.captured) - Number(books.refunded) - Number(books.settled),
    );
    expect(Number(books.pending)).toBe(0 - Number(books.open));
    // No capture is lost: a checkout the sandbox captured belongs to a payment
    // that is SUCCEEDED, still PENDING (asked at its deadline), or CANCELLED
    // and still watched (checkout_open_until ahead); never one closed for good.
    expect(
      await q(`SELECT p.id, p.status, p.checkout_open_until FROM payments p
                 JOIN sandbox_sessions s ON s.session_id = p.gateway_session_id
                WHERE p.app_id = $1 AND s.status = 'CAPTURED' AND p.status <> 'SUCCEEDED'
                  AND NOT (p.status = 'PENDING')
                  AND NOT (p.status = 'CANCELLED' AND p.checkout_open_until IS NOT NULL)`),
    ).toEqual([]);
    // Each fact's event fired exactly once.
    expect(
      await q(`SELECT type, COALESCE(data->>'refund_id', data->>'payment_id', data->>'invoice_id') AS subject, count(*)
                 FROM events WHERE app_id = $1 AND type IN ('payment.succeeded', 'payment.failed',
                   'payment.cancelled', 'refund.pending', 'refund.succeeded', 'refund.failed',
                   'invoice.paid', 'invoice.voided', 'invoice.issued')
                GROUP BY 1, 2 HAVING count(*) > 1`),
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

  const stats: Record<string, number> = {};
  const count = (what: string) => (stats[what] = (stats[what] ?? 0) + 1);
  afterAll(() => {
    if (process.env.MODEL_STATS) console.log(JSON.stringify(stats));
  });

  it(
    'keeps every money invariant after every step of random sequences',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(1000, 20000, 100000),
          fc.commands(weighted, { maxCommands: MAX_COMMANDS, size: 'max' }),
          async (threshold, cmds) => {
            const app = await createApp(t);
            const root = bearer(await superAdminToken(t));
            const set = await http()
              .patch(`/api/v1/admin/apps/${app.id}/settings`)
              .set(root)
              .send({ refundApprovalThresholdMinor: threshold });
            ok(set.status, [200], 'settings', set.body);
            const real: Real = {
              t,
              app,
              root,
              threshold,
              invoices: [],
              payments: [],
              refunds: [],
              subscriptions: [],
              priceId: await priceFor(app),
              seq: 0,
            };
            const model: Model = { invoices: 0, payments: 0, refunds: 0, subscriptions: 0 };
            await fc.asyncModelRun(
              () => ({ model, real }),
              [...cmds].map((c) => wrap(c)),
            );
            // The end of the day: whatever is free to go is sent, and the books still hold.
            await new Recheck().run(model, real);
            await invariants(real);
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
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    // A killed replica's successor boots in about 5 s (ts-node), a few times a run.
    60_000 + RUNS * 10_000,
  );

  /** Each command followed by the invariants. */
  function wrap(c: Cmd): Cmd {
    return {
      check: (m: Model) => c.check(m),
      run: async (m: Model, r: Real) => {
        count(c.toString().split('(')[0]);
        await c.run(m, r);
        await invariants(r);
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
