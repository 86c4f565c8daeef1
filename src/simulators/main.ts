import { BKASH_SIMULATOR_APP } from './bkash.simulator';
import { serveSimulators } from './simulators';
import { SSLCOMMERZ_SIMULATOR_STORE } from './sslcommerz.simulator';

/**
 * `npm run simulators`: SSLCommerz, bKash and Nagad stand-ins on a loopback
 * port (SIMULATORS_PORT, default 4010) for trying an integration end to end
 * on a laptop; no money moves. Prints what to point the service at. Nagad's
 * RSA keys are made at each start: set its credentials again after a restart.
 */
async function main(): Promise<void> {
  const port = Number(process.env.SIMULATORS_PORT ?? 4010);
  const { url, simulators } = await serveSimulators(
    port,
    process.env.SIMULATORS_HOST ?? '127.0.0.1',
  );
  process.stdout.write(
    [
      `Gateway simulators listening on ${url} (no money moves).`,
      'Start the service with:',
      `  SSLCOMMERZ_SANDBOX_URL=${url}/sslcommerz BKASH_SANDBOX_URL=${url}/bkash/v1.2.0-beta NAGAD_SANDBOX_URL=${simulators.nagad.baseUrl} npm start`,
      'and set these TEST-mode credentials on your app (PATCH /api/v1/admin/apps/{id}/gateways/{gateway}?mode=TEST):',
      `  sslcommerz: ${JSON.stringify(SSLCOMMERZ_SIMULATOR_STORE)}`,
      `  bkash:      ${JSON.stringify(BKASH_SIMULATOR_APP)}`,
      `  nagad:      ${JSON.stringify(simulators.nagad.credentials)}`,
      '  (Nagad keys are new at each start; also served at ' +
        `${url}/nagad/simulator/credentials)`,
      'Or skip this process: GATEWAY_SIMULATORS=true npm start mounts them in the service under /simulators/.',
      '',
    ].join('\n'),
  );
}

void main();
