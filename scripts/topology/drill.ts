// The "more than one machine" drill (decisions 21, issue 59): the topology
// of docker-compose.ha.yml on this machine's loopback, from Debian's
// packages: etcd, two PostgreSQL 15 nodes under Patroni (synchronous
// replication), HAProxy (Joma's HTTP; PostgreSQL's primary and replicas by
// Patroni's checks), PgBouncer in transaction mode, three Joma replicas
// (DATABASE_URL through PgBouncer, DATABASE_DIRECT_URL and DATABASE_READ_URL
// through HAProxy's primary and replica ports) and a webhook receiver.
// It drives a bounded load through HAProxy, kills a replica, switches the
// primary over, kills the primary, checks every acknowledged request and the
// money invariants by SQL and every webhook delivery, stops everything it
// started, and prints one line:
//
//   requests N, acknowledged N, lost N, duplicated N, longest write outage N ms, webhook deliveries missing N
//
//   npm run drill                     CI-sized: seconds of load per phase
//   npm run drill -- --soak [minutes] the fault cycle again and again (default 10 minutes)
//   npm run drill -- --keep           keep the scratch directory (logs, data) even when green
//
// Settings: DRILL_PHASE_S (load between faults; 5, soak 30), DRILL_CONCURRENCY
// (clients; 4), DRILL_BASE_PORT (25400: every port is base + an offset, see
// ports.ts), DRILL_DRAIN_S (longest wait for webhook deliveries; 150).
// Exit code 1 when anything was lost, duplicated, undelivered or broken, or
// Joma took longer than 30 s to answer after a new primary took writes.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Pool } from 'pg';

import { checkAcknowledged, missingDeliveries } from './checks';
import { startEtcd } from './etcd';
import { Faults, RECOVERY_LIMIT_MS } from './faults';
import { startHaproxy } from './haproxy';
import { buildIfStale, JomaReplicas } from './joma';
import { Load } from './load';
import { setUpMerchant } from './merchant';
import { ensurePackages, packageVersion } from './packages';
import { PatroniCluster } from './patroni';
import { startPgbouncer } from './pgbouncer';
import { assertPortsFree, portPlan } from './ports';
import { sleep, Supervisor } from './processes';
import { WebhookReceiver } from './receiver';
import { createJomaDatabase } from './sql';

const repo = join(__dirname, '..', '..');
const args = process.argv.slice(2);
const soakAt = args.indexOf('--soak');
const soakMinutes = soakAt < 0 ? 0 : Number(args[soakAt + 1]) || 10;
const keep = args.includes('--keep');
const phaseMs = 1000 * Number(process.env.DRILL_PHASE_S ?? (soakMinutes ? 30 : 5));
const concurrency = Number(process.env.DRILL_CONCURRENCY ?? 4);
const drainMs = 1000 * Number(process.env.DRILL_DRAIN_S ?? 150);
const ports = portPlan(Number(process.env.DRILL_BASE_PORT ?? 25400));

const started = Date.now();
const log = (line: string) =>
  process.stderr.write(
    `drill ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s  ${line}\n`,
  );
const secret = (bytes: number) => randomBytes(bytes).toString('hex');

async function main(): Promise<number> {
  ensurePackages(log);
  await assertPortsFree(ports);
  const scratch = mkdtempSync(join(tmpdir(), 'joma-drill-'));
  chmodSync(scratch, 0o755); // the service account reaches its own directories inside
  log(
    `scratch directory ${scratch}; ${soakMinutes ? `soak, ${soakMinutes} min` : 'CI-sized'}, ${phaseMs / 1000} s phases, ${concurrency} clients`,
  );
  const sup = new Supervisor(scratch);
  const passwords = { superuser: secret(16), replication: secret(16) };
  const jomaPassword = secret(16);
  const cluster = new PatroniCluster(sup, scratch, repo, ports, passwords);
  const receiver = new WebhookReceiver();
  let load: Load | undefined;
  let pool: Pool | undefined;
  let stopping: Promise<void> | undefined;
  const teardown = () =>
    (stopping ??= (async () => {
      await load?.stop().catch(() => undefined);
      await pool?.end().catch(() => undefined);
      await receiver.close().catch(() => undefined);
      await sup.stopAll();
      await cluster.stopLeftovers();
    })());
  const interrupted = (signal: NodeJS.Signals) => {
    if (stopping) return;
    log(`${signal}: stopping everything the drill started`);
    void teardown().then(() => process.exit(130));
  };
  // Every signal after the first finds the teardown running already.
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);

  let green = false;
  try {
    log('building Joma if a source changed (npm start does the same)');
    buildIfStale(repo);
    await startEtcd(sup, scratch, ports);
    log('etcd up');
    await cluster.startAll();
    log(`Patroni: ${(await cluster.members()).map((m) => `${m.name} ${m.role}`).join(', ')}`);
    await startHaproxy(sup, repo, ports);
    const superuserUrl = (port: number) =>
      `postgres://postgres:${passwords.superuser}@127.0.0.1:${port}/postgres`;
    createJomaDatabase(repo, superuserUrl(ports.haproxyPrimary), jomaPassword);
    const bouncer = await startPgbouncer(sup, scratch, repo, ports, jomaPassword);
    log(
      `PgBouncer ${packageVersion('pgbouncer')} in transaction mode; Joma with ` +
        (bouncer.preparedStatements
          ? 'DB_PREPARED_STATEMENTS=true (max_prepared_statements keeps them)'
          : 'DB_PREPARED_STATEMENTS=false (before 1.21 PgBouncer cannot keep named prepared statements apart)'),
    );
    await receiver.listen(ports.receiver);
    const joma = new JomaReplicas(sup, repo, ports, {
      databaseUrl: `postgres://joma:${jomaPassword}@127.0.0.1:${ports.pgbouncer}/joma`,
      directUrl: `postgres://joma:${jomaPassword}@127.0.0.1:${ports.haproxyPrimary}/joma`,
      readUrl: `postgres://joma:${jomaPassword}@127.0.0.1:${ports.haproxyReplicas}/joma`,
      preparedStatements: bouncer.preparedStatements,
      jwtSecret: secret(32),
      encryptionKey: secret(32),
      adminEmail: 'drill@example.com',
      adminPassword: secret(12),
    });
    await joma.startAll();
    log('three Joma replicas ready behind HAProxy');
    const base = `http://127.0.0.1:${ports.haproxyHttp}`;
    const settings = joma.env(0);
    const merchant = await setUpMerchant(
      base,
      { email: String(settings.ADMIN_EMAIL), password: String(settings.ADMIN_PASSWORD) },
      `http://127.0.0.1:${ports.receiver}/hooks`,
    );
    receiver.secret = merchant.endpointSecret;
    load = new Load(base, merchant.creds);
    const faults = new Faults(
      cluster,
      joma,
      load,
      (port) => superuserUrl(port).replace(/\/postgres$/, '/joma'),
      log,
    );

    load.start(concurrency);
    log(`load started: ${concurrency} clients through HAProxy`);
    const soakUntil = started + soakMinutes * 60_000;
    do {
      await sleep(phaseMs);
      await faults.killReplica(1, phaseMs);
      await sleep(phaseMs);
      await faults.switchover();
      await sleep(phaseMs);
      await faults.killPrimary(phaseMs);
      await sleep(phaseMs);
    } while (Date.now() < soakUntil);
    await load.stop();
    log(
      `load stopped: ${load.requests} requests, ${load.acks.length} acknowledged; sent again after: ` +
        Object.entries(load.retried)
          .map(([status, n]) => `${status === '0' ? 'no answer' : status} x${n}`)
          .join(', '),
    );

    pool = new Pool({
      connectionString: superuserUrl(ports.haproxyPrimary).replace(/\/postgres$/, '/joma'),
      max: 2,
    });
    pool.on('error', () => undefined);
    const received = () => new Set(receiver.received.keys());
    const drainUntil = Date.now() + drainMs;
    let deliveries = await missingDeliveries(pool, merchant.appId, merchant.endpointId, received());
    while (deliveries.missing > 0 && Date.now() < drainUntil) {
      await sleep(1_000);
      deliveries = await missingDeliveries(pool, merchant.appId, merchant.endpointId, received());
    }
    log(
      `webhooks: ${deliveries.expected - deliveries.missing} of ${deliveries.expected} events delivered and verified; ${receiver.badSignatures} bad signatures`,
    );
    const findings = await checkAcknowledged(pool, merchant.appId, load.acks, merchant.threshold);
    const outage = load.longestOutageMs();
    const slow = faults.changes.filter((c) => c.jomaBackAfterMs > RECOVERY_LIMIT_MS);
    for (const line of [
      ...findings.broken.map((b) => `money invariant broken: ${b}`),
      ...load.unexpected.slice(0, 10).map((u) => `unexpected answer: ${u}`),
      ...slow.map(
        (c) => `${c.fault}: Joma took ${c.jomaBackAfterMs} ms (limit ${RECOVERY_LIMIT_MS})`,
      ),
    ])
      log(line);
    process.stdout.write(
      `requests ${load.requests}, acknowledged ${load.acks.length}, lost ${findings.lost}, duplicated ${findings.duplicated}, ` +
        `longest write outage ${outage} ms, webhook deliveries missing ${deliveries.missing}\n`,
    );
    green =
      findings.lost === 0 &&
      findings.duplicated === 0 &&
      deliveries.missing === 0 &&
      receiver.badSignatures === 0 &&
      findings.broken.length === 0 &&
      load.unexpected.length === 0 &&
      slow.length === 0 &&
      faults.changes.length >= 2;
    return green ? 0 : 1;
  } finally {
    await teardown();
    if (green && !keep) rmSync(scratch, { recursive: true, force: true });
    else log(`logs and data kept in ${scratch}`);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
