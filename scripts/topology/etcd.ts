import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { PortPlan } from './ports';
import { alive, getJson, type Started, Supervisor, until } from './processes';

/**
 * One etcd member on loopback, Patroni's distributed configuration store.
 * A single member is a quorum of one: enough for a drill on one machine; a
 * deployment runs three (docker-compose.ha.yml) so that losing one keeps
 * the quorum.
 */
export async function startEtcd(sup: Supervisor, dir: string, ports: PortPlan): Promise<Started> {
  const data = join(dir, 'etcd');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  const client = `http://127.0.0.1:${ports.etcdClient}`;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  const etcd = sup.start('etcd', 'etcd', [
    '--name=etcd1',
    `--data-dir=${data}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=etcd1=${peer}`,
    '--initial-cluster-state=new',
    '--initial-cluster-token=joma-drill',
    // etcd 3.4's /health and Patroni's etcd3 client both speak the v3 gRPC gateway.
    '--enable-v2=false',
  ]);
  await until(
    'etcd healthy',
    async () =>
      alive(etcd) &&
      (await getJson<{ health?: string }>(`${client}/health`)).body?.health === 'true',
    20_000,
  );
  return etcd;
}
