import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { PortPlan } from './ports';
import { alive, getJson, SERVICE_USER, sleep, type Started, Supervisor, until } from './processes';

export interface PatroniNode {
  name: string;
  pgPort: number;
  apiPort: number;
  process?: Started;
}

export interface ClusterMember {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  lag?: number | string;
}

/**
 * Two PostgreSQL 15 nodes under Patroni (etcd as the store), configured
 * from deploy/ha/patroni.yml, the file docker-compose.ha.yml mounts: what
 * differs per node comes from PATRONI_* variables, here loopback ports and
 * data directories under the scratch directory.
 */
export class PatroniCluster {
  readonly nodes: PatroniNode[];

  constructor(
    private readonly sup: Supervisor,
    private readonly dir: string,
    private readonly repo: string,
    private readonly ports: PortPlan,
    readonly passwords: { superuser: string; replication: string },
  ) {
    this.nodes = ports.postgres.map((pgPort, i) => ({
      name: `pg${i + 1}`,
      pgPort,
      apiPort: ports.patroniApi[i],
    }));
  }

  /** Starts the node (again, after a kill: it rejoins as a replica, rewound if need be). */
  start(node: PatroniNode): Started {
    const data = join(this.dir, node.name);
    const home = join(this.dir, `${node.name}-home`);
    for (const d of [data, home]) {
      mkdirSync(d, { recursive: true, mode: 0o700 });
      if (process.getuid?.() === 0) chownSync(d, ...serviceIds());
    }
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      LANG: 'C.UTF-8',
      PATRONI_NAME: node.name,
      PATRONI_SCOPE: 'joma',
      PATRONI_RESTAPI_LISTEN: `127.0.0.1:${node.apiPort}`,
      PATRONI_RESTAPI_CONNECT_ADDRESS: `127.0.0.1:${node.apiPort}`,
      PATRONI_POSTGRESQL_LISTEN: `127.0.0.1:${node.pgPort}`,
      PATRONI_POSTGRESQL_CONNECT_ADDRESS: `127.0.0.1:${node.pgPort}`,
      PATRONI_POSTGRESQL_DATA_DIR: join(data, 'data'),
      PATRONI_POSTGRESQL_PGPASS: join(home, 'pgpass'),
      PATRONI_ETCD3_HOSTS: `127.0.0.1:${this.ports.etcdClient}`,
      PATRONI_SUPERUSER_USERNAME: 'postgres',
      PATRONI_SUPERUSER_PASSWORD: this.passwords.superuser,
      PATRONI_REPLICATION_USERNAME: 'replicator',
      PATRONI_REPLICATION_PASSWORD: this.passwords.replication,
    };
    node.process = this.sup.start(
      node.name,
      'patroni',
      [join(this.repo, 'deploy/ha/patroni.yml')],
      { env, asService: true },
    );
    return node.process;
  }

  /** Both nodes up: one leader, one streaming synchronous standby. */
  async startAll(timeoutMs = 90_000): Promise<void> {
    this.start(this.nodes[0]);
    await until(
      'pg1 bootstrapped and leading',
      async () => this.isRunning(this.nodes[0]) && (await this.leader()) === 'pg1',
      timeoutMs,
    );
    this.start(this.nodes[1]);
    await this.waitHealthy(timeoutMs);
  }

  /** Waits until the cluster has a leader and a streaming sync standby. */
  async waitHealthy(timeoutMs: number): Promise<void> {
    await until(
      'a leader and a streaming synchronous standby',
      async () => {
        const m = await this.members();
        return (
          m.some((x) => x.role === 'leader' && x.state === 'running') &&
          m.some(
            (x) => x.role === 'sync_standby' && (x.state === 'streaming' || x.state === 'running'),
          )
        );
      },
      timeoutMs,
      500,
    );
  }

  private isRunning(node: PatroniNode): boolean {
    return node.process ? alive(node.process) : false;
  }

  /** The members as Patroni's REST API reports them (asked of any node that answers). */
  async members(): Promise<ClusterMember[]> {
    for (const n of this.nodes) {
      const res = await getJson<{ members: ClusterMember[] }>(
        `http://127.0.0.1:${n.apiPort}/cluster`,
      );
      if (res.status === 200 && res.body) return res.body.members;
    }
    return [];
  }

  async leader(): Promise<string | undefined> {
    return (await this.members()).find((m) => m.role === 'leader')?.name;
  }

  node(name: string): PatroniNode {
    const n = this.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no node ${name}`);
    return n;
  }

  /**
   * PostgreSQL's postmaster of a node (from postmaster.pid). Patroni starts
   * it in a session of its own (setsid), so it outlives a signal to
   * Patroni's process group and must be signalled itself.
   */
  postmasterPid(node: PatroniNode): number | undefined {
    const file = join(this.dir, node.name, 'data', 'postmaster.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return pid > 0 && isRunning(pid) ? pid : undefined;
  }

  /** kill -9 of the node, as a lost machine: Patroni and its PostgreSQL (postmaster and backends). */
  async killNode(node: PatroniNode): Promise<void> {
    const postmaster = this.postmasterPid(node);
    if (postmaster) killGroupOf(postmaster);
    if (node.process) await this.sup.kill(node.process);
    if (postmaster)
      await until(`${node.name}'s postgres gone`, () => !isRunning(postmaster), 10_000, 50);
  }

  /** After Patroni was stopped: a postmaster still running is stopped too (fast shutdown, then SIGKILL). */
  async stopLeftovers(): Promise<void> {
    for (const node of this.nodes) {
      const pid = this.postmasterPid(node);
      if (!pid) continue;
      signal(pid, 'SIGINT');
      for (let i = 0; i < 50 && isRunning(pid); i++) await sleep(100);
      killGroupOf(pid);
    }
  }

  /** A planned switchover through the leader's REST API (as `patronictl switchover` does). */
  async switchover(leader: string, candidate: string): Promise<void> {
    const res = await fetch(`http://127.0.0.1:${this.node(leader).apiPort}/switchover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ leader, candidate }),
    });
    if (res.status !== 200)
      throw new Error(`switchover refused: ${res.status} ${await res.text()}`);
  }
}

/** The uid and gid of SERVICE_USER. */
export function serviceIds(): [number, number] {
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, SERVICE_USER], { encoding: 'utf8' }));
  return [id('-u'), id('-g')];
}

/** Whether `pid` runs (a zombie, exited but not reaped, does not). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * SIGKILL to a process and its process group: the postmaster shares its
 * group (and session) with the helper Patroni forked and setsid'd to start
 * it, which has exited since; its backends die with it.
 */
function killGroupOf(pid: number): void {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    if (pgid > 1) signal(-pgid, 'SIGKILL');
  } catch {
    // gone already
  }
  signal(pid, 'SIGKILL');
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
}
