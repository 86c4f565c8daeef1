import { runDocWalk } from '../support/doc-walk';
import { expectBalancedLedger } from '../support/ledger';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * From the docs alone an operator refunds a payment, imports a settlement
 * file, reconciles the day and reads its exceptions: the commands of
 * docs/reconciliation.md run as typed and print what the guide says.
 */
describe('the reconciliation guide walk, as a script', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      config: { adminEmail: 'admin@example.com', adminPassword: 'change-me-now' },
    });
  });
  afterAll(() => t.close());

  it('prints exactly what docs/reconciliation.md says', async () => {
    const { printed, promised } = await runDocWalk(t, 'docs/reconciliation.md', 'Walk:');
    expect(printed).toEqual(promised);
    await expectBalancedLedger(t.db);
  }, 60_000);
});
