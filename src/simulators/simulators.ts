import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { BkashSimulator } from './bkash.simulator';
import { NagadSimulator } from './nagad.simulator';
import { SslcommerzSimulator } from './sslcommerz.simulator';

export interface Simulators {
  sslcommerz: SslcommerzSimulator;
  bkash: BkashSimulator;
  nagad: NagadSimulator;
  /** Answers a request under one of the mounts; false when the path is not a simulator's. */
  route(req: IncomingMessage, res: ServerResponse): boolean;
}

/**
 * The simulators, served at `origin` under their mount paths. Nagad's keys
 * are made here (RSA-2048, per process): its credentials are served at
 * `<nagad mount>/simulator/credentials` (and printed by `npm run simulators`).
 */
export function simulatorsAt(
  origin: string,
  mounts: { sslcommerz: string; bkash: string; nagad: string },
): Simulators {
  const sslcommerz = new SslcommerzSimulator().mountAt(origin, mounts.sslcommerz);
  const bkash = new BkashSimulator().mountAt(origin, mounts.bkash);
  const nagad = new NagadSimulator().mountAt(origin, mounts.nagad);
  return {
    sslcommerz,
    bkash,
    nagad,
    route(req, res) {
      const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
      const under = (mount: string) => path === mount || path.startsWith(`${mount}/`);
      if (under(mounts.sslcommerz)) void sslcommerz.handle(req, res);
      else if (under(mounts.bkash)) void bkash.handle(req, res);
      else if (under(mounts.nagad)) void nagad.handle(req, res);
      else return false;
      return true;
    },
  };
}

/**
 * The simulators on a server of their own (`npm run simulators`): SSLCommerz
 * under /sslcommerz, bKash under /bkash, Nagad under /nagad. The service's
 * TEST mode is pointed at them with SSLCOMMERZ_SANDBOX_URL, BKASH_SANDBOX_URL
 * and NAGAD_SANDBOX_URL (`<url>/nagad/remote-payment-gateway-1.0/api/dfs`).
 */
export async function serveSimulators(
  port: number,
  host = '127.0.0.1',
): Promise<{ simulators: Simulators; url: string; close(): Promise<void> }> {
  // The simulators know their URL only once the port is bound.
  const served: { by?: Simulators } = {};
  const server = createServer((req, res) => {
    if (!served.by?.route(req, res)) res.writeHead(404).end('Not a simulator path');
  });
  await new Promise<void>((ok) => server.listen(port, host, ok));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  const simulators = simulatorsAt(url, {
    sslcommerz: '/sslcommerz',
    bkash: '/bkash',
    nagad: '/nagad',
  });
  served.by = simulators;
  return {
    simulators,
    url,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
