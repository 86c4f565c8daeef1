import { portIsFree } from './processes';

/**
 * The drill's loopback ports, from one base (DRILL_BASE_PORT, default
 * 25400): the same roles as docker-compose.ha.yml's services.
 */
export function portPlan(base: number) {
  return {
    etcdClient: base,
    etcdPeer: base + 1,
    postgres: [base + 10, base + 11],
    patroniApi: [base + 20, base + 21],
    /** HAProxy: the PostgreSQL primary (Patroni's /primary check). */
    haproxyPrimary: base + 30,
    /** HAProxy: the streaming replicas (Patroni's /replica check), for DATABASE_READ_URL. */
    haproxyReplicas: base + 31,
    pgbouncer: base + 32,
    /** HAProxy: Joma's HTTP, over the three replicas. */
    haproxyHttp: base + 40,
    haproxyStats: base + 41,
    joma: [base + 50, base + 51, base + 52],
    receiver: base + 60,
  };
}

export type PortPlan = ReturnType<typeof portPlan>;

export function allPorts(p: PortPlan): number[] {
  return Object.values(p).flatMap((v) => (Array.isArray(v) ? v : [v]));
}

/** Throws naming every planned port something already listens on. */
export async function assertPortsFree(p: PortPlan): Promise<void> {
  const taken: number[] = [];
  for (const port of allPorts(p)) if (!(await portIsFree(port))) taken.push(port);
  if (taken.length)
    throw new Error(
      `ports already in use on 127.0.0.1: ${taken.join(', ')} (another drill running? DRILL_BASE_PORT moves them)`,
    );
}
