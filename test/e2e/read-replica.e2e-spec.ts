import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { Metrics } from '../../src/common/metrics/metrics';
import { runMigrations } from '../../src/database/migrate';
import { type ReadServedBy, ReplicaReads } from '../../src/database/replica-reads';
import { sql } from '../../src/database/sql';
import { asApp, createApp, type CreatedApp } from '../support/factories';
import { createInvoice, settle } from '../support/payments';
import { type PgPair, postgresBinDir, startPgPair } from '../support/pg-pair';
import { startSilentProxy } from '../support/silent-proxy';
import { createTestApp, type TestApp } from '../support/test-app';
import { withAdminClient } from '../support/test-database';

/**
 * A read replica (DATABASE_READ_URL, decisions section 21): this file's own
 * primary and streaming hot standby (PostgreSQL's initdb, pg_basebackup -R,
 * pg_ctl on free loopback ports). Both log every statement, so which
 * server ran a list is read from the servers' own logs, not from the
 * service: the invoice list's SELECT (`FROM "invoices" "i"`) appears in
 * the log of the server that ran it. With replay paused on the standby
 * (`pg_wal_replay_pause()`), the standby provably lacks the client's new
 * rows, and the list must still show them (read on the primary); money
 * (an idempotent replay, a refund's refundable amount) never reads the
 * standby at all. Skipped, saying so, without PostgreSQL's server programs.
 */
const bin = postgresBinDir();
const SKIPPED =
  'SKIPPED: no PostgreSQL server programs (initdb, pg_ctl, pg_basebackup; /usr/lib/postgresql/<v>/bin or JOMA_TEST_PG_BIN)';
if (!bin) console.warn(`test/e2e/read-replica.e2e-spec.ts: ${SKIPPED}`);
const suite = bin ? describe : describe.skip;

const DATABASE = 'joma_test_replica';
/** The invoice list's statement, as TypeORM writes it (InvoicesRepository.page). */
const INVOICE_LIST = 'FROM "invoices" "i"';
/** The events list's statement (EventsRepository.page). */
const EVENT_LIST = 'FROM "events" "ev"';

suite(
  `read replica: lists on a caught-up standby, never a stale page, never money${bin ? '' : ` (${SKIPPED})`}`,
  () => {
    let pair: PgPair;
    let t: TestApp;
    let app: CreatedApp;

    beforeAll(async () => {
      pair = await startPgPair(async (server) => {
        await withAdminClient(server, (c) => c.query(`CREATE DATABASE ${DATABASE}`));
        await runMigrations(`${server}/${DATABASE}`);
      });
      t = await createTestApp({
        databaseUrl: pair.primary.url(DATABASE),
        config: { databaseReadUrl: pair.standby.url(DATABASE), dbReadMaxWaitMs: 200 },
      });
      app = await createApp(t);
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await pair?.stop();
    });
    afterEach(async () => {
      if (pair) await pair.standby.query('SELECT pg_wal_replay_resume()');
    });

    const listInvoices = () => t.http().get('/api/v1/invoices?size=100').set(asApp(app.TEST));
    const idsOf = (res: { body: { data: { id: number }[] } }) => res.body.data.map((i) => i.id);
    const marks = () => ({ primary: pair.primary.mark(), standby: pair.standby.mark() });
    const served = () => t.app.get(ReplicaReads).served;

    async function pauseReplay(): Promise<void> {
      await pair.standby.query('SELECT pg_wal_replay_pause()');
      for (;;) {
        const [{ state }] = await pair.standby.query<{ state: string }>(
          'SELECT pg_get_wal_replay_pause_state() AS state',
        );
        if (state === 'paused') return;
        await new Promise((ok) => setTimeout(ok, 10));
      }
    }

    it('serves lists, a CSV export and the daily figures from the standby once it has replayed the writes', async () => {
      const invoice = await createInvoice(t, app.TEST, { customerReference: 'replica-1' });
      await pair.caughtUp();
      const at = marks();
      const list = await listInvoices();
      expect(list.status).toBe(200);
      expect(idsOf(list)).toContain(invoice.id);
      expect(pair.standby.logSince(at.standby)).toContain(INVOICE_LIST);
      expect(pair.primary.logSince(at.primary)).not.toContain(INVOICE_LIST);

      const csvAt = marks();
      const csv = await t
        .http()
        .get('/api/v1/invoices')
        .set(asApp(app.TEST))
        .set('Accept', 'text/csv');
      expect(csv.status).toBe(200);
      expect(csv.text).toContain(invoice.number);
      expect(pair.standby.logSince(csvAt.standby)).toContain(INVOICE_LIST);
      expect(pair.primary.logSince(csvAt.primary)).not.toContain(INVOICE_LIST);

      const eventsAt = marks();
      const events = await t.http().get('/api/v1/events?size=100').set(asApp(app.TEST));
      expect(events.status).toBe(200);
      expect(events.body.data.map((e: { type: string }) => e.type)).toContain('invoice.issued');
      expect(pair.standby.logSince(eventsAt.standby)).toContain(EVENT_LIST);
      expect(pair.standby.logSince(eventsAt.standby)).toMatch(/FROM "?webhook_deliveries/);
      expect(pair.primary.logSince(eventsAt.primary)).not.toContain(EVENT_LIST);

      const dailyAt = marks();
      const daily = await t.http().get('/api/v1/reports/daily-collections').set(asApp(app.TEST));
      expect(daily.status).toBe(200);
      expect(pair.standby.logSince(dailyAt.standby)).toMatch(/FROM payments/);
      expect(pair.primary.logSince(dailyAt.primary)).not.toMatch(/FROM payments/);
    });

    it('with replay paused, a list right after the client’s write still shows it (the primary serves); once replay resumes, the standby does', async () => {
      await pauseReplay();
      const lagging = served().get('primary:lagging') ?? 0;
      const at = marks();
      const created: number[] = [];
      for (let i = 0; i < 3; i++) {
        created.push((await createInvoice(t, app.TEST, { customerReference: `lag-${i}` })).id);
        const list = await listInvoices();
        expect(list.status).toBe(200);
        expect(idsOf(list)).toEqual(expect.arrayContaining(created));
      }
      // The standby really is behind: it has none of them.
      const [{ n }] = await pair.standby.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM invoices WHERE id = ANY($1)',
        [created],
        DATABASE,
      );
      expect(n).toBe(0);
      expect(pair.standby.logSince(at.standby)).not.toContain(INVOICE_LIST);
      expect(pair.primary.logSince(at.primary)).toContain(INVOICE_LIST);
      expect(served().get('primary:lagging')).toBe(lagging + 3);

      await pair.standby.query('SELECT pg_wal_replay_resume()');
      await pair.caughtUp();
      const after = marks();
      const list = await listInvoices();
      expect(idsOf(list)).toEqual(expect.arrayContaining(created));
      expect(pair.standby.logSince(after.standby)).toContain(INVOICE_LIST);
      expect(pair.primary.logSince(after.primary)).not.toContain(INVOICE_LIST);
    });

    /**
     * A payment with an Idempotency-Key, captured, the same request again
     * (the stored answer), a full refund and one more (422): what each
     * decision read, it read on the primary, and nothing of it on the standby.
     */
    async function moneyScenario(key: string, amountMinor: number): Promise<void> {
      const at = marks();
      const send = () =>
        t
          .http()
          .post('/api/v1/payments')
          .set(asApp(app.TEST))
          .set('Idempotency-Key', key)
          .send({ amountMinor, customerReference: key });
      const first = await send();
      expect(first.status).toBe(201);
      expect((await settle(t, app.TEST, first.body.data.id)).status).toBe(200);
      const again = await send();
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);

      const refund = (minor: number) =>
        t
          .http()
          .post(`/api/v1/payments/${first.body.data.id}/refunds`)
          .set(asApp(app.TEST))
          .send({ amountMinor: minor });
      expect((await refund(amountMinor)).status).toBe(201);
      const more = await refund(1);
      expect(more.status).toBe(422);
      expect(more.body.meta.errorCode).toBe('AMOUNT_OUT_OF_RANGE');
      const payments = await t.db.query(
        'SELECT count(*)::int AS n FROM payments WHERE app_id = $1 AND amount_minor = $2',
        [app.id, amountMinor],
      );
      expect(payments.rows[0].n).toBe(1);
      // Nothing of it was read on the standby.
      expect(pair.standby.logSince(at.standby)).not.toMatch(/payments|refunds|idempotenc/i);
    }

    it('money never reads the standby, even caught up: an idempotent replay and a refund run on the primary', async () => {
      await pair.caughtUp();
      await moneyScenario('replica-money-1', 91000);
    });

    it('with replay paused, an idempotent replay answers the stored answer and a refund sees the capture the standby lacks', async () => {
      await pauseReplay();
      await moneyScenario('replica-money-2', 92000);
      const [{ n }] = await pair.standby.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM payments WHERE amount_minor = 92000`,
        [],
        DATABASE,
      );
      expect(n).toBe(0);
    });

    it('a read inside a transaction stays on the transaction; outside one it runs on the standby', async () => {
      const reads = t.app.get(ReplicaReads);
      const txHost = t.app.get(TransactionHost) as TransactionHost<TransactionalAdapterTypeOrm>;
      const inRecovery = () =>
        reads.read(
          async () =>
            (await sql(txHost.tx).one<{ standby: boolean }>(
              'SELECT pg_is_in_recovery() AS standby',
            ))!.standby,
        );
      await pair.caughtUp();
      expect(await inRecovery()).toBe(true);
      const before = served().get('primary:in_transaction') ?? 0;
      expect(await txHost.withTransaction(inRecovery)).toBe(false);
      expect(served().get('primary:in_transaction')).toBe(before + 1);
    });

    it('counts where the reads ran (joma_db_replica_reads_total) and the read pool', async () => {
      const text = await t.app.get(Metrics).registry.metrics();
      expect(text).toMatch(/joma_db_replica_reads_total\{served_by="replica"\} [1-9]/);
      expect(text).toMatch(/joma_db_replica_reads_total\{served_by="primary:lagging"\} [1-9]/);
      expect(text).toMatch(/joma_db_pool_connections\{pool="read",state="total"\} [1-9]/);
    });

    /** A second Joma whose replica is reached through a proxy that can go silent (no reset). */
    async function behindSilentProxy(dbStatementTimeoutMs: number) {
      const proxy = await startSilentProxy(Number(new URL(pair.standby.url(DATABASE)).port));
      const replicaUrl = new URL(pair.standby.url(DATABASE));
      replicaUrl.port = String(proxy.port);
      const other = await createTestApp({
        databaseUrl: pair.primary.url(DATABASE),
        config: {
          databaseReadUrl: replicaUrl.toString(),
          dbReadMaxWaitMs: 200,
          dbStatementTimeoutMs,
        },
      });
      const servedHere = (k: ReadServedBy) => other.app.get(ReplicaReads).served.get(k) ?? 0;
      const close = async () => {
        await other.close();
        await proxy.close();
      };
      return { proxy, other, servedHere, close };
    }

    it('a replica host gone silent (no reset) holds no list: the caught-up question gives up within about a second, the primary answers, and the replica rests before it is asked again', async () => {
      // A statement timeout of a minute: only the caught-up question's own limit can end the wait in time.
      const { proxy, other, servedHere, close } = await behindSilentProxy(60_000);
      try {
        const list = () => other.http().get('/api/v1/invoices?size=100').set(asApp(app.TEST));
        const invoice = await createInvoice(t, app.TEST, { customerReference: 'silent-replica' });
        await pair.caughtUp();
        expect((await list()).status).toBe(200);
        expect(servedHere('replica')).toBe(1);

        proxy.silence();
        // Without the question's limit this request waited for TCP to give up (minutes), or
        // for the read pool's query_timeout (61 s here): past this test's 30 s either way.
        const during = await list();
        expect(during.status).toBe(200);
        expect(idsOf(during)).toContain(invoice.id);
        expect(servedHere('primary:unavailable')).toBe(1);

        // Resting: the next list goes straight to the primary, nothing is asked of the replica.
        const asked = proxy.bytesFromClients;
        const next = await list();
        expect(next.status).toBe(200);
        expect(servedHere('primary:unavailable')).toBe(2);
        expect(proxy.bytesFromClients).toBe(asked);

        // Back: after its rest (5 s) the replica serves again, on a new connection.
        proxy.resume();
        const until = Date.now() + 20_000;
        while (servedHere('replica') < 2 && Date.now() < until) {
          expect((await list()).status).toBe(200);
          await new Promise((ok) => setTimeout(ok, 500));
        }
        expect(servedHere('replica')).toBe(2);
      } finally {
        await close();
      }
    }, 30_000);

    it('a replica gone silent after the caught-up question: the read gives up at the statement timeout plus a second and runs again on the primary; the replica rests', async () => {
      const { proxy, other, servedHere, close } = await behindSilentProxy(1_500);
      try {
        const reads = other.app.get(ReplicaReads);
        const txHost = other.app.get(
          TransactionHost,
        ) as TransactionHost<TransactionalAdapterTypeOrm>;
        let silenced = false;
        const inRecovery = () =>
          reads.read(async () => {
            // Between the question (answered) and the read: the host goes silent.
            if (!silenced) {
              silenced = true;
              proxy.silence();
            }
            return (await sql(txHost.tx).one<{ standby: boolean }>(
              'SELECT pg_is_in_recovery() AS standby',
            ))!.standby;
          });
        await pair.caughtUp();
        // Without the read pool's query_timeout the read waits for TCP (minutes): past 30 s.
        expect(await inRecovery()).toBe(false);
        expect(silenced).toBe(true);
        expect(servedHere('primary:unavailable')).toBe(1);
        const asked = proxy.bytesFromClients;
        expect(await inRecovery()).toBe(false);
        expect(proxy.bytesFromClients).toBe(asked);
        expect(servedHere('primary:unavailable')).toBe(2);
      } finally {
        await close();
      }
    }, 30_000);
  },
);
