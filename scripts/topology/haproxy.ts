import { join } from 'node:path';

import type { PortPlan } from './ports';
import { alive, getJson, type Started, Supervisor, until } from './processes';

/** The environment deploy/ha/haproxy.cfg reads its addresses from, on loopback. */
export function haproxyEnv(ports: PortPlan): NodeJS.ProcessEnv {
  const local = (port: number) => `127.0.0.1:${port}`;
  return {
    PATH: process.env.PATH,
    JOMA_HTTP_BIND: local(ports.haproxyHttp),
    JOMA1_ADDR: local(ports.joma[0]),
    JOMA2_ADDR: local(ports.joma[1]),
    JOMA3_ADDR: local(ports.joma[2]),
    PG_PRIMARY_BIND: local(ports.haproxyPrimary),
    PG_REPLICAS_BIND: local(ports.haproxyReplicas),
    PG1_ADDR: local(ports.postgres[0]),
    PG2_ADDR: local(ports.postgres[1]),
    PG1_API_PORT: String(ports.patroniApi[0]),
    PG2_API_PORT: String(ports.patroniApi[1]),
    STATS_BIND: local(ports.haproxyStats),
  };
}

/** HAProxy with deploy/ha/haproxy.cfg, the file docker-compose.ha.yml mounts, in the foreground. */
export async function startHaproxy(
  sup: Supervisor,
  repo: string,
  ports: PortPlan,
): Promise<Started> {
  const cfg = join(repo, 'deploy/ha/haproxy.cfg');
  const proc = sup.start('haproxy', 'haproxy', ['-db', '-f', cfg], { env: haproxyEnv(ports) });
  await until(
    'HAProxy serving its stats page',
    async () =>
      alive(proc) && (await getJson(`http://127.0.0.1:${ports.haproxyStats}/`)).status === 200,
    15_000,
  );
  return proc;
}
