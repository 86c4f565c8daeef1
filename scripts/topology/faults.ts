import type { JomaReplicas } from './joma';
import type { Load } from './load';
import type { PatroniCluster } from './patroni';
import { sleep, until } from './processes';
import { withClient } from './sql';

/** How long Joma may take to answer writes again once a new primary accepts them (decisions 21). */
export const RECOVERY_LIMIT_MS = 30_000;

/** One primary change, as measured: when the new primary took writes, when Joma's clients did again. */
export interface PrimaryChange {
  fault: 'switchover' | 'primary killed';
  from: string;
  to: string;
  /** From the fault to the new primary accepting writes. */
  promotedAfterMs: number;
  /** From the new primary accepting writes to the first acknowledged write through HAProxy. */
  jomaBackAfterMs: number;
}

/** The faults, in the order the drill runs them, with `phaseMs` of load between them. */
export class Faults {
  readonly changes: PrimaryChange[] = [];

  constructor(
    private readonly cluster: PatroniCluster,
    private readonly joma: JomaReplicas,
    private readonly load: Load,
    private readonly superuserUrl: (pgPort: number) => string,
    private readonly log: (line: string) => void,
  ) {}

  /** kill -9 of one Joma replica under load; HAProxy routes around it; it is started again. */
  async killReplica(i: number, phaseMs: number): Promise<void> {
    this.log(`fault: kill -9 joma${i + 1}`);
    await this.joma.kill(i);
    await sleep(phaseMs);
    this.joma.start(i);
    await this.joma.ready(i);
    this.log(`joma${i + 1} started again and ready`);
  }

  /** A planned switchover to the standby (Patroni's REST API, as `patronictl switchover`). */
  async switchover(): Promise<void> {
    const from = await this.leader();
    const to = this.other(from);
    this.log(`fault: switchover ${from} -> ${to}`);
    const t0 = Date.now();
    await this.cluster.switchover(from, to);
    await this.measure('switchover', from, to, t0);
    await this.cluster.waitHealthy(120_000);
    this.log(`${from} rejoined as the synchronous standby`);
  }

  /** kill -9 of the primary's node (Patroni and PostgreSQL), then the node is started again and rejoins. */
  async killPrimary(phaseMs: number): Promise<void> {
    const from = await this.leader();
    const to = this.other(from);
    this.log(`fault: kill -9 ${from} (Patroni and its PostgreSQL, the primary)`);
    const t0 = Date.now();
    await this.cluster.killNode(this.cluster.node(from));
    await this.measure('primary killed', from, to, t0);
    await sleep(phaseMs);
    this.cluster.start(this.cluster.node(from));
    await this.cluster.waitHealthy(180_000);
    this.log(`${from} started again and rejoined as the synchronous standby`);
  }

  private async leader(): Promise<string> {
    let name: string | undefined;
    await until('a leader', async () => (name = await this.cluster.leader()) !== undefined, 60_000);
    return name!;
  }

  private other(name: string): string {
    return this.cluster.nodes.find((n) => n.name !== name)!.name;
  }

  /** Polls `to` until it takes writes, then the load until Joma acknowledges one again. */
  private async measure(fault: PrimaryChange['fault'], from: string, to: string, t0: number) {
    const url = this.superuserUrl(this.cluster.node(to).pgPort);
    let promotedAt = 0;
    await until(
      `${to} accepting writes`,
      async () => {
        const writable = await withClient(url, async (c) => {
          const r = await c.query('SELECT pg_is_in_recovery() AS standby');
          return !r.rows[0].standby;
        }).catch(() => false);
        if (writable) promotedAt = Date.now();
        return writable;
      },
      90_000,
      100,
    );
    let backAt: number | undefined;
    await until(
      'Joma acknowledging writes again',
      () => (backAt = this.load.firstSuccessAfter(promotedAt)) !== undefined,
      RECOVERY_LIMIT_MS + 30_000,
      100,
    ).catch(() => undefined); // measured as too long below
    const change: PrimaryChange = {
      fault,
      from,
      to,
      promotedAfterMs: promotedAt - t0,
      jomaBackAfterMs: backAt === undefined ? Infinity : Math.max(backAt - promotedAt, 0),
    };
    this.changes.push(change);
    this.log(
      `${fault}: ${to} took writes after ${change.promotedAfterMs} ms; Joma answered writes ${change.jomaBackAfterMs} ms later`,
    );
  }
}
