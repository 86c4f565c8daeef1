import { runDocWalk } from '../support/doc-walk';
import { expectBalancedLedger } from '../support/ledger';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * From docs/gateways.md alone a developer pays an invoice through the
 * SSLCommerz and bKash simulators mounted in the service
 * (GATEWAY_SIMULATORS=true) and refunds through each, then pays through the
 * Nagad simulator and refunds by hand (a manual refund, completed): the
 * commands run as typed and print what the guide says, refunds reaching
 * SUCCEEDED only once the simulator (or, for Nagad, the operator) says done.
 */
describe('the gateways guide walk (simulators), as a script', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      config: {
        adminEmail: 'admin@example.com',
        adminPassword: 'change-me-now',
        gatewaySimulators: true,
      },
    });
  });
  afterAll(() => t.close());

  it('prints exactly what docs/gateways.md says', async () => {
    const { printed, promised } = await runDocWalk(t, 'docs/gateways.md', 'Walk:');
    expect(printed).toEqual(promised);
    await expectBalancedLedger(t.db);
  }, 60_000);
});
